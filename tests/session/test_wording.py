"""Governance returns facts; the session words them (session/wording.py). The lines the user reads
about the context are defined once, in the session, and read the same as before the move."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from co_tui.session import wording

MOVED = [
    ("co_tui.governance.refused", "busy_line"),
    ("co_tui.governance.compact_mode", "MODE_TEXT"),
    ("co_tui.governance.compact_mode", "over_budget_notice"),
    ("co_tui.governance.compact_mode", "past_window_line"),
    ("co_tui.governance.compact_mode", "print_mode_ask_line"),
    ("co_tui.governance.capability", "veto_line"),
    ("co_tui.governance.pins", "pins_over_budget_line"),
    ("co_tui.governance.summary_check", "kept_line"),
]


@pytest.mark.parametrize(("module", "name"), MOVED)
def test_governance_no_longer_words_it(module: str, name: str) -> None:
    assert not hasattr(importlib.import_module(module), name)
    assert hasattr(wording, name)


def test_the_capability_reports_facts_not_sentences() -> None:
    from co_tui.governance.capability import CutPastWindowEvent, HookVetoEvent, PinsOverBudgetEvent

    for event in (CutPastWindowEvent, HookVetoEvent, PinsOverBudgetEvent):
        kinds = {field.name: field.type for field in dataclasses.fields(event) if field.name != "event_kind"}
        assert "message" not in kinds and kinds, event


def test_the_lines_read_as_before() -> None:
    assert wording.busy_line("pinning") == "pinning: a turn is running — press esc to interrupt it first"
    assert wording.past_window_line(9_000, 8_000) == (
        "compact_mode ask: this request (~9k tokens) would pass the model's 8k window — cutting without asking"
    )
    assert wording.veto_line(True) == "pre_compact hook vetoed the automatic cut: this request goes over the budget"
    assert wording.veto_line(False).startswith("pre_compact hook's veto not honoured")
    assert wording.pins_over_budget_line(12_900, 10_000).startswith("Pinned turns hold ~12.9k tokens")
    assert wording.kept_line(["src/a.py"], ["src/b.py"]) == "kept 1 of 2 paths; lost: src/b.py"
    assert set(wording.MODE_TEXT) == {"auto", "ask", "off"}


def test_every_refusal_governance_raises_has_its_line() -> None:
    """Governance raises refusals with `why` and facts; each `why` it can raise is worded here."""
    import re
    from pathlib import Path

    import co_tui.governance

    raised = {
        why
        for path in Path(co_tui.governance.__file__).parent.glob("*.py")
        for why in re.findall(r'why="([a-z_.]+)"', path.read_text())
    }
    raised |= {"undo.is_clear", "undo.is_undo"}  # chosen by a conditional expression
    assert raised and raised <= set(wording.REFUSAL_LINES), raised - set(wording.REFUSAL_LINES)


def test_a_governance_refusal_reaches_the_user_worded() -> None:
    from co_tui.governance.evict import EvictRefused

    with pytest.raises(EvictRefused, match="^no message 7 in the context$") as info, wording.worded_refusals():
        raise EvictRefused(why="evict.no_message", index=7)
    assert info.value.why == "evict.no_message" and info.value.facts == {"index": 7}
    with pytest.raises(EvictRefused, match="^its own line$"), wording.worded_refusals():
        raise EvictRefused("its own line")
