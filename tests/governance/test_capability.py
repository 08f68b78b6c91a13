"""`ContextGovernance` driving a real pydantic-ai `Agent` with `FunctionModel`."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelContextWindowExceededError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from support.builders import chat_turn, tool_turn

from co_tui.governance import (
    ContextGovernance,
    GovernancePolicy,
    HistoryTrimmedEvent,
    check_pairing,
    estimate_tokens,
    split_turns,
)
from co_tui.governance.markers import marker_info
from co_tui.governance.summarize import is_summarization_request
from co_tui.governance.turns import segment

from .models import ScriptedModel
from .synthetic import make_text


async def run_events(agent: Agent, prompt: str, history: list[ModelMessage]):
    """Drive `run_stream_events`; returns (trim events, all messages or None, error or None)."""
    events: list[HistoryTrimmedEvent] = []
    result = None
    try:
        async with agent.run_stream_events(prompt, message_history=history) as stream:
            async for ev in stream:
                if isinstance(ev, HistoryTrimmedEvent):
                    events.append(ev)
                elif type(ev).__name__ == "AgentRunResultEvent":
                    result = ev.result
    except ModelContextWindowExceededError as exc:
        return events, None, exc
    return events, result.all_messages(), None


def history_of(n: int, size: int = 3000) -> list[ModelMessage]:
    msgs: list[ModelMessage] = []
    for t in range(n):
        msgs += chat_turn(f"q{t}", make_text("prose", size, t))
    return msgs


async def test_policy_runs_before_each_request_and_sink_sees_originals():
    model = ScriptedModel(reply="fine")
    transcript: list[ModelMessage] = []
    history = history_of(6)
    budget = estimate_tokens(history) // 2
    cap = ContextGovernance(GovernancePolicy(budget_tokens=budget, strategy="trim"), transcript_sink=transcript.extend)
    agent = Agent(model.model(), capabilities=[cap])
    cap.begin_run(len(history))
    events, messages, error = await run_events(agent, "hello", history)
    assert error is None
    assert [e.trimmed.strategy for e in events] == ["turn_trim"]
    domain = events[0].to_domain(session_id="s1")
    assert domain.type == "history_trimmed" and domain.session_id == "s1" and domain.reason == "token_budget"
    # The model saw the trimmed context: breadcrumb + recent turns, and it fits.
    seen = model.chat_calls[-1]
    # (pydantic-ai merges the breadcrumb request with the next request on the wire)
    assert seen[0].parts[0].content.startswith("[Earlier conversation trimmed — ")
    assert marker_info(messages[0]).kind == "breadcrumb"
    assert estimate_tokens(seen) <= budget
    # The transcript sink received the run's new prompt as the original object.
    assert len(transcript) == 1 and transcript[0] is messages[cap.seen_len - 1]
    assert cap.seen_len == len(messages) - 1  # the final response is the session's to take
    assert messages[-1].parts[0].content == "fine"
    assert history[0] in history  # caller's history list untouched
    assert len(history) == 12


async def test_no_change_no_event():
    model = ScriptedModel()
    cap = ContextGovernance(GovernancePolicy(budget_tokens=1_000_000))
    agent = Agent(model.model(), capabilities=[cap])
    history = history_of(2, 100)
    cap.begin_run(len(history))
    events, messages, _ = await run_events(agent, "hi", history)
    assert events == [] and messages[: len(history)] == history


async def test_in_run_step_shrink_keeps_pairs_and_transcript_has_full_outputs():
    """An agent that reads big files in a loop: the newest turn alone outgrows the budget."""
    outputs = [make_text("code", 20_000, i) for i in range(6)]
    state = {"n": 0}

    def read_file(path: str) -> str:
        """Read a file."""
        i = int(path)
        return outputs[i]

    def chat(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if state["n"] < len(outputs):
            state["n"] += 1
            return ModelResponse(parts=[ToolCallPart("read_file", {"path": str(state["n"] - 1)}, f"call_{state['n']}")])
        return ModelResponse(parts=[TextPart("read them all")])

    async def stream(messages, info):
        response = chat(messages, info)
        part = response.parts[0]
        if isinstance(part, ToolCallPart):
            yield {
                0: DeltaToolCall(
                    name=part.tool_name,
                    json_args='{"path": "' + part.args["path"] + '"}',
                    tool_call_id=part.tool_call_id,
                )
            }
        else:
            yield part.content

    seen: list[list[ModelMessage]] = []

    def recording_chat(messages, info):
        seen.append(messages)
        return chat(messages, info)

    async def recording_stream(messages, info):
        seen.append(messages)
        async for chunk in stream(messages, info):
            yield chunk

    transcript: list[ModelMessage] = []
    budget = 15_000
    cap = ContextGovernance(GovernancePolicy(budget_tokens=budget, strategy="trim"), transcript_sink=transcript.extend)
    agent = Agent(
        FunctionModel(recording_chat, stream_function=recording_stream), tools=[read_file], capabilities=[cap]
    )
    history = history_of(2, 500)
    cap.begin_run(len(history))
    events, messages, error = await run_events(agent, "read all files", history)
    assert error is None
    assert "step_shrink" in [e.trimmed.strategy for e in events]
    assert all(estimate_tokens(m) <= budget * 1.05 for m in seen[-2:])
    assert check_pairing(messages) == []
    transcript += messages[cap.seen_len :]
    full = [p.content for m in transcript for p in m.parts if p.part_kind == "tool-return"]
    assert full == outputs  # the append-only transcript never saw a trimmed copy


def overflow_model(limit: int, calls: list[int]) -> FunctionModel:
    def check(messages):
        calls.append(estimate_tokens(messages))
        if calls[-1] > limit:
            raise ModelContextWindowExceededError("fake", "prompt is too long")

    def fn(messages, info):
        check(messages)
        return ModelResponse(parts=[TextPart("ok")])

    async def sfn(messages, info):
        check(messages)
        yield "ok"

    return FunctionModel(fn, stream_function=sfn)


async def test_overflow_recovery_cuts_turns_and_retries_in_run():
    calls: list[int] = []
    history = history_of(8)
    # Our budget believes everything fits; the provider disagrees below ~40% of it.
    limit = estimate_tokens(history) * 2 // 5
    cap = ContextGovernance(GovernancePolicy(budget_tokens=10_000_000))
    agent = Agent(overflow_model(limit, calls), capabilities=[cap])
    cap.begin_run(len(history))
    events, messages, error = await run_events(agent, "go on", history)
    assert error is None
    assert events and all(e.trimmed.reason == "context_overflow" and e.trimmed.strategy == "turn_trim" for e in events)
    assert calls[-1] <= limit < calls[0]
    assert len(calls) == len(events) + 1  # one retry per cut, no extra calls
    assert marker_info(messages[0]).messages == sum(e.trimmed.dropped_messages for e in events)
    assert len(segment(messages).markers) == 1


async def test_overflow_unrecoverable_surfaces_error_without_loop():
    calls: list[int] = []
    history = history_of(3, 200)
    cap = ContextGovernance(GovernancePolicy(budget_tokens=10_000_000))
    agent = Agent(overflow_model(0, calls), capabilities=[cap])  # nothing ever fits
    cap.begin_run(len(history))
    events, messages, error = await run_events(agent, "x", history)
    assert isinstance(error, ModelContextWindowExceededError)
    # first attempt, then one retry per dropped batch of turns; no step shrink possible (no tool steps)
    assert 2 <= len(calls) <= 4
    assert [e.trimmed.reason for e in events] == ["context_overflow"] * (len(calls) - 1)


async def test_overflow_newest_turn_gets_one_step_shrink_then_error():
    calls: list[int] = []
    # One unfinished turn with many steps (it ends with tool results): the run continues it.
    history = tool_turn("big", [make_text("logs", 20_000, i) for i in range(6)])[:-1]
    cap = ContextGovernance(GovernancePolicy(budget_tokens=10_000_000))
    agent = Agent(overflow_model(0, calls), capabilities=[cap])
    cap.begin_run(len(history))
    events, _, error = await run_events(agent, None, history)
    assert isinstance(error, ModelContextWindowExceededError)
    assert [e.trimmed.strategy for e in events] == ["step_shrink"]
    assert len(calls) == 2


async def test_summarize_strategy_in_a_run_uses_run_model_and_emits_summary():
    model = ScriptedModel(summary="they talked about many things")
    cap = ContextGovernance(GovernancePolicy(budget_tokens=1_000_000, max_history_messages=20))
    agent = Agent(model.model(), capabilities=[cap])
    history = history_of(15, 100)
    cap.begin_run(len(history))
    events, messages, _ = await run_events(agent, "next", history)
    assert [e.trimmed.strategy for e in events] == ["summary"]
    assert events[0].trimmed.summary.startswith("they talked about many things\n\n## User prompts, verbatim")
    assert len(model.summary_calls) == 1
    infos = [marker_info(m) for m in messages]
    assert [i.kind for i in infos if i] == ["summary"]
    assert all(not is_summarization_request(m) for m in model.chat_calls[-1])
    assert len(split_turns(messages)) < 16


async def test_non_overflow_errors_pass_through():
    def fn(messages, info):
        raise RuntimeError("boom")

    cap = ContextGovernance(GovernancePolicy(budget_tokens=1000))
    agent = Agent(FunctionModel(fn), capabilities=[cap])
    with pytest.raises(RuntimeError, match="boom"):
        await agent.run("x")


async def test_overflow_recovery_without_streaming():
    calls: list[int] = []
    history = history_of(6)
    cap = ContextGovernance(GovernancePolicy(budget_tokens=10_000_000))
    agent = Agent(overflow_model(estimate_tokens(history) // 2, calls), capabilities=[cap])
    cap.begin_run(len(history))
    result = await agent.run("more", message_history=history)
    assert result.output == "ok" and calls[-1] <= estimate_tokens(history) // 2 < calls[0]
    assert marker_info(result.all_messages()[0]).kind == "breadcrumb"


@pytest.mark.slow
def test_events_module_does_not_load_pydantic_ai():
    """The TUI imports `co_tui.governance.events` at start-up: it must stay free of pydantic-ai."""
    from cli_process import run_python

    code = (
        "import sys, co_tui.governance, co_tui.governance.events; "
        "assert 'pydantic_ai' not in sys.modules, 'pydantic_ai loaded'; "
        "co_tui.governance.split_turns; assert 'pydantic_ai' in sys.modules"
    )
    done = run_python(code)
    assert done.returncode == 0, done.stderr
