"""A newest turn that alone is over the budget is said where it happens (an
`oversized_turn` event, sent whole), and a prompt over the model's window is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

from cli_process import call_co_tui

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession
from co_tui.session.events import OversizedTurn


def todo_workspace(tmp_path: Path) -> Path:
    for i in range(40):
        (tmp_path / f"f{i}.py").write_text(f"# TODO: fix thing number {i}\n" * 5)
    return tmp_path


async def test_a_tool_result_that_makes_the_newest_turn_oversized_is_said_once(tmp_path: Path) -> None:
    session = ChatSession(
        load_settings(context_budget_tokens=1500), workspace=todo_workspace(tmp_path), model="offline"
    )
    events = [e async for e in session.run_turn("search TODO")]
    said = [e for e in events if isinstance(e, OversizedTurn)]
    assert len(said) == 1 and not said[0].refused
    assert said[0].turn_tokens > said[0].budget_tokens == 1500
    assert "sent whole" in said[0].message and "1.5k" in said[0].message
    # The meter's reading in the turn explains its figure over 100%.
    over = [e for e in events if e.type == "usage" and e.context_tokens > e.budget_tokens]
    assert over and over[0].oversized_turn
    assert events[-1].type == "done" and not events[-1].failed


async def test_a_turn_within_the_budget_says_nothing(tmp_path: Path) -> None:
    session = ChatSession(load_settings(), workspace=todo_workspace(tmp_path), model="offline")
    events = [e async for e in session.run_turn("search TODO")]
    assert not [e for e in events if isinstance(e, OversizedTurn)]
    assert not any(e.type == "usage" and e.oversized_turn for e in events)


async def test_a_prompt_over_the_models_window_is_refused_and_nothing_is_kept(tmp_path: Path) -> None:
    session = ChatSession(load_settings(), workspace=tmp_path, model="offline")
    huge = "word " * 200_000  # ~1 MB: far over the offline model's 32k window
    events = [e async for e in session.run_turn(huge)]
    assert [e.type for e in events] == ["oversized_turn", "done"]
    refusal = events[0]
    assert refusal.refused and refusal.context_window == session.binding.context_window
    assert refusal.turn_tokens > refusal.context_window
    assert refusal.message.startswith("not sent:") and "\n" not in refusal.message
    assert events[-1].failed
    assert session.transcript == [] and session.context == []
    # The session is usable right after.
    events = [e async for e in session.run_turn("hello")]
    assert events[-1].type == "done" and not events[-1].failed


def test_print_mode_jsonl_carries_the_event(tmp_path: Path) -> None:
    proc = call_co_tui(
        "-p",
        "search TODO",
        "--output-format",
        "jsonl",
        cwd=todo_workspace(tmp_path),
        env={"CO_TUI_CONTEXT_BUDGET_TOKENS": "1500"},
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    said = [e for e in events if e["type"] == "oversized_turn"]
    assert len(said) == 1 and said[0]["refused"] is False and said[0]["budget_tokens"] == 1500
