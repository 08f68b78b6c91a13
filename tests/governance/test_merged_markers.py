"""pydantic-ai merges adjacent requests when a run starts, so a marker arrives fused with the user
prompt that follows it. Governance must still see it as a marker: counts add up, nothing piles up,
and the user's prompt is never dropped as if it were a marker."""

from __future__ import annotations

import asyncio

from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart, repair_messages
from pydantic_ai.models.function import FunctionModel

from co_tui.governance import annotate_history, fit_to_budget, is_marker, split_turns, trim_to_recent_turns
from co_tui.governance.markers import separate_markers


def history(turns: int, start: int = 0) -> list:
    out: list = []
    for i in range(start, start + turns):
        out += [
            ModelRequest(parts=[UserPromptPart(f"question {i} " + "word " * 50)]),
            ModelResponse(parts=[TextPart(f"answer {i} " + "blah " * 50)]),
        ]
    return out


def through_a_run(messages: list) -> list:
    """What pydantic-ai stores after a run given `messages` as history (it merges on the way in)."""
    agent = Agent(FunctionModel(lambda m, info: ModelResponse(parts=[TextPart("ok")])))
    return asyncio.run(agent.run("next", message_history=messages)).all_messages()


def test_repair_fuses_marker_with_prompt_and_separate_undoes_it() -> None:
    cut = trim_to_recent_turns(history(5), 200)
    fused = repair_messages(cut.messages)
    assert len(fused) == len(cut.messages) - 1 and not is_marker(fused[0])
    separated = separate_markers(fused)
    assert is_marker(separated[0])
    assert [type(m) for m in separated] == [type(m) for m in cut.messages]
    assert separate_markers(cut.messages) == cut.messages  # nothing fused: same messages back


def test_counts_add_up_across_runs() -> None:
    first = trim_to_recent_turns(history(5), 200)
    stored = through_a_run(first.messages) + history(3, start=10)
    second = trim_to_recent_turns(stored, 200)
    total_dropped = first.dropped_messages + second.dropped_messages
    text = second.messages[0].parts[0].content
    assert f"— {total_dropped} messages" in text
    assert sum(1 for m in second.messages if is_marker(m)) == 1


def test_fused_prompt_is_a_user_turn_not_a_marker() -> None:
    first = trim_to_recent_turns(history(5), 200)
    fused = repair_messages(first.messages)
    turns = split_turns(fused)
    assert any("question 4" in str(t.messages[0].parts[-1].content) for t in turns)


def test_fit_to_budget_and_inspector_on_fused_history() -> None:
    first = trim_to_recent_turns(history(5), 200)
    fused = repair_messages(first.messages) + history(4, start=20)
    fitted = fit_to_budget(fused, 250)
    assert sum(1 for m in fitted.messages if is_marker(m)) == 1
    rows = annotate_history(history(5), fused)
    assert rows  # the inspector reads fused context without error
