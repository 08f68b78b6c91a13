"""docs/keys-and-commands.md stays true to the registry (and so to the help screen)."""

from __future__ import annotations

import pytest
from cli_process import run_python

from co_tui.tui.commands import COMMANDS, KEYS
from co_tui.tui.key_label import key_label
from co_tui.tui.keys_reference import DOC_PATH, generated_block, reference_markdown


def _doc() -> str:
    return DOC_PATH.read_text(encoding="utf-8")


def test_doc_block_equals_the_generated_reference():
    block = generated_block(_doc())
    assert block is not None, "the generated-block markers are missing from the doc"
    assert block.strip() == reference_markdown().strip(), (
        "docs/keys-and-commands.md is stale: run `python -m co_tui.tui.keys_reference --write`"
    )


def test_every_registry_entry_appears_in_the_doc():
    doc = _doc()
    for spec in COMMANDS:
        assert spec.slash in doc, spec.name
        assert spec.summary in doc, spec.name
        if spec.key:
            assert f"`{key_label(spec.key)}`" in doc, spec.key
    for key in KEYS:
        assert f"| `{key_label(key.key)}` | {key.description} |" in doc, key.key


def test_key_labels_read_like_keys():
    assert key_label("ctrl+k") == "Ctrl+K"
    assert key_label("escape") == "Esc"
    assert key_label("f2") == "F2"
    assert key_label("escape,q") == "Esc / Q"
    assert key_label("ctrl+shift+pagedown") == "Ctrl+Shift+PgDn"


def test_the_offline_models_phrases_are_documented():
    from co_tui.agent.offline_intents import TRIGGERS

    doc = _doc()
    for example, effect in TRIGGERS:
        assert f"`{example}`" in doc and effect.split("`")[0] in doc, example


@pytest.mark.slow
def test_the_reference_does_not_load_pydantic_ai():
    # The help screen is part of the TUI, which must paint before pydantic and pydantic-ai load.
    code = (
        "import sys; from co_tui.tui.keys_reference import reference_markdown; reference_markdown(); "
        "import co_tui.tui.screens.help, co_tui.tui.palette; heavy = {'pydantic_ai', 'pydantic', "
        "'pydantic_settings'}; sys.exit(1 if any(m.split('.')[0] in heavy for m in sys.modules) else 0)"
    )
    done = run_python(code)
    assert done.returncode == 0, done.stderr
