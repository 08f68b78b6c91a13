"""`--no-compact` as a user runs it: print mode over the budget sends the context whole, with one
line on stderr; without the flag the same turn is cut; the flag refuses the modes without a chat."""

from __future__ import annotations

import json

import pytest
from cli_process import call_co_tui as co_tui  # in-process: what it says and cuts is the point


def _events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.mark.parametrize("flag", ["--list-sessions", "--export"])
def test_no_compact_needs_a_chat(flag: str) -> None:
    args = [flag, "x"] if flag == "--export" else [flag]
    proc = co_tui(*args, "--no-compact")
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert "--no-compact applies to a chat" in line


def test_no_compact_sends_over_the_budget_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CO_TUI_CONTEXT_BUDGET_TOKENS", "2000")  # README.md alone is well past it
    first = co_tui("-p", "read README.md", "--output-format", "jsonl")
    assert first.returncode == 0, first.stderr
    off = co_tui("-p", "thanks", "--continue", "--no-compact", "--output-format", "jsonl")
    assert off.returncode == 0, off.stderr
    assert not [e for e in _events(off.stdout) if e["type"] == "history_trimmed"]
    [line] = [x for x in off.stderr.splitlines() if "compact_mode is off" in x]
    assert line.startswith("co-tui: context past its limits (") and "of 2k tokens" in line
    auto = co_tui("-p", "and again", "--continue", "--output-format", "jsonl")
    assert auto.returncode == 0, auto.stderr
    cuts = [e for e in _events(auto.stdout) if e["type"] == "history_trimmed"]
    assert cuts and cuts[0]["reason"] == "token_budget"
    assert "compact_mode is off" not in auto.stderr


def test_ask_runs_as_auto_in_print_mode_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CO_TUI_CONTEXT_BUDGET_TOKENS", "2000")
    first = co_tui("-p", "read README.md", "--output-format", "jsonl")
    assert first.returncode == 0, first.stderr
    monkeypatch.setenv("CO_TUI_COMPACT_MODE", "ask")
    asked = co_tui("-p", "thanks", "--continue", "--output-format", "jsonl")
    assert asked.returncode == 0, asked.stderr
    [line] = [x for x in asked.stderr.splitlines() if "compact_mode ask" in x]
    assert line == "co-tui: compact_mode ask: print mode cannot ask — cutting automatically (auto) for this run"
    cuts = [e for e in _events(asked.stdout) if e["type"] == "history_trimmed"]
    assert cuts and cuts[0]["reason"] == "token_budget"


def test_a_bad_at_turn_in_ask_mode_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bad usage is one line before anything runs: `--at` past the last turn was preceded by the
    "cutting automatically for this run" line of a run that never started."""
    first = co_tui("-p", "hello", "--output-format", "jsonl")
    assert first.returncode == 0, first.stderr
    sid = _events(first.stdout)[-1]["session_id"]
    monkeypatch.setenv("CO_TUI_COMPACT_MODE", "ask")
    bad = co_tui("--resume", sid, "--at", "9", "-p", "x")
    assert bad.returncode == 2
    assert bad.stderr.splitlines() == ["co-tui: --at 9: the session has no turn 9"]
    good = co_tui("--resume", sid, "--at", "1", "-p", "again")
    assert good.returncode == 0, good.stderr
    assert "compact_mode ask: print mode cannot ask" in good.stderr, "a run that starts still says it"
