"""A `pre_compact` veto as a user meets it in print mode: the turn goes over the budget, one line on
stderr says so, jsonl's stdout has no cut; the hook is set from the environment (`CO_TUI_HOOKS`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_process import call_co_tui as co_tui  # in-process; the hook it runs is a Python process

pytestmark = pytest.mark.slow  # the pre_compact hook is a Python process


def test_a_veto_in_print_mode_is_one_line_on_stderr(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    hook = tmp_path / "veto.py"
    hook.write_text("import sys\nsys.stdin.read()\nsys.exit(2)\n")
    monkeypatch.setenv("CO_TUI_CONTEXT_BUDGET_TOKENS", "2000")  # README.md alone is well past it
    first = co_tui("-p", "read README.md", "--output-format", "jsonl")
    assert first.returncode == 0, first.stderr
    monkeypatch.setenv("CO_TUI_HOOKS", json.dumps({"pre_compact": [sys.executable, str(hook)]}))
    vetoed = co_tui("-p", "thanks", "--continue", "--output-format", "jsonl")
    assert vetoed.returncode == 0, vetoed.stderr
    events = [json.loads(line) for line in vetoed.stdout.splitlines()]
    assert not [e for e in events if e["type"] == "history_trimmed"]
    assert [x for x in vetoed.stderr.splitlines() if "vetoed the automatic cut" in x] == [
        "co-tui: pre_compact hook vetoed the automatic cut: this request goes over the budget"
    ]
