"""The event contract of subagents (docs/subagents.md): origin fields optional and omitted when unset."""

from __future__ import annotations

import json

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.events import (
    Done,
    ErrorEvent,
    SubagentFinished,
    SubagentStarted,
    TextDelta,
    ToolCall,
    UsageUpdate,
)


def test_main_agent_lines_carry_no_origin_fields() -> None:
    # The jsonl lines of the main agent are byte-identical to what they were before subagents.
    assert json.dumps(TextDelta(text="hi").to_dict()) == '{"type": "text_delta", "text": "hi"}'
    assert json.dumps(Done(output="x").to_dict()) == (
        '{"type": "done", "output": "x", "interrupted": false, "failed": false}'
    )
    trimmed = HistoryTrimmed(reason="clear", strategy="compact").to_dict()
    assert "agent" not in trimmed and "delegation" not in trimmed
    assert list(trimmed)[-1] == "type"


def test_a_childs_events_name_their_agent_and_delegation() -> None:
    call = ToolCall(tool_name="read_file", tool_call_id="t1", args="{}", agent="explore-1", delegation="d1")
    data = call.to_dict()
    assert data["type"] == "tool_call"
    assert (data["agent"], data["delegation"]) == ("explore-1", "d1")
    usage = UsageUpdate(
        input_tokens=1, output_tokens=1, context_tokens=1, budget_tokens=9, messages=1, max_messages=0, agent="a"
    )
    assert usage.to_dict()["agent"] == "a" and "delegation" not in usage.to_dict()
    trimmed = HistoryTrimmed(reason="token_budget", strategy="turn_trim", agent="explore-1", delegation="d1")
    assert HistoryTrimmed.from_dict(trimmed.to_dict()) == trimmed
    assert ErrorEvent(message="m", agent="explore-1").to_dict()["agent"] == "explore-1"


def test_subagent_events_have_their_jsonl_types() -> None:
    started = SubagentStarted(delegation="d1", agent="explore-1", agent_name="explore", task="t", budget_tokens=100)
    finished = SubagentFinished(delegation="d1", agent="explore-1", agent_name="explore", outcome="timed_out")
    assert started.to_dict()["type"] == "subagent_started"
    assert finished.to_dict()["type"] == "subagent_finished"
    assert finished.to_dict()["outcome"] == "timed_out"
    assert json.loads(json.dumps(started.to_dict()))["delegation"] == "d1"
