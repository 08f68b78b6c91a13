"""`compact_mode` through a real pydantic-ai `Agent`: `off` never cuts automatically, `ask` cuts
only what the user chose (or a request past the known window), and no mode sends a context over the
model's window without going through overflow recovery."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai import Agent
from support.builders import chat_turn
from support.examples import examples

from co_tui.governance import ContextGovernance, GovernancePolicy, estimate_tokens
from co_tui.governance.capability import CutPastWindowEvent
from co_tui.governance.compact_mode import COMPACT_MODES, cut_permission, cuts_automatically, parse_mode
from co_tui.session.wording import over_budget_notice, past_window_line

from .models import ScriptedModel
from .synthetic import make_text
from .test_capability import overflow_model, run_events

AUTOMATIC = ("token_budget", "message_count")


def test_modes_parse_and_say_what_they_do():
    assert parse_mode(" OFF ") == "off" and parse_mode("auto") == "auto" and parse_mode("sometimes") is None
    assert parse_mode("Ask") == "ask"
    assert [cuts_automatically(m) for m in COMPACT_MODES] == [True, False, False]
    line = over_budget_notice(12_900, 10_000)
    assert "12.9k of 10k tokens" in line and "compact_mode is off" in line and "\n" not in line
    assert "would pass the model's 8k window" in past_window_line(9_000, 8_000)


def test_ask_lets_the_users_choice_hold_for_the_send_only():
    table = {
        (mode, first, choice): cut_permission(mode, first_request=first, choice=choice)  # type: ignore[arg-type]
        for mode in COMPACT_MODES
        for first in (True, False)
        for choice in (None, "cut", "over_budget")
    }
    assert {v for (mode, _, _), v in table.items() if mode == "auto"} == {"cut"}
    assert {v for (mode, _, _), v in table.items() if mode == "off"} == {"never"}
    asked = {key: v for key, v in table.items() if key[0] == "ask"}
    assert [key for key, v in asked.items() if v == "cut"] == [("ask", True, "cut")]
    assert set(asked.values()) == {"cut", "to_window"}


def _run(mode: str, history, budget: int, window: int, choice=None, window_known: bool = False):
    calls: list[int] = []
    cap = ContextGovernance(
        GovernancePolicy(budget_tokens=budget, max_history_messages=8, strategy="trim"),
        permission=lambda first: cut_permission(mode, first_request=first, choice=choice),  # type: ignore[arg-type]
        window_tokens=window if window_known else None,
    )
    agent = Agent(overflow_model(window, calls), capabilities=[cap])
    cap.begin_run(len(history))
    events, _messages, error = asyncio.run(run_events(agent, "next", history))
    return calls, [e.trimmed for e in events], error


def _history(answers: list[int]):
    return [m for t, chars in enumerate(answers) for m in chat_turn(f"q{t}", make_text("prose", chars, t))]


# Fewer than the default: each case runs a whole compaction over generated turns.
@settings(max_examples=examples(40))
@given(
    st.lists(st.integers(20, 4000), min_size=1, max_size=9),
    st.sampled_from(COMPACT_MODES),
    st.floats(0.1, 1.2),
    st.floats(0.2, 1.5),
    st.sampled_from([None, "cut", "over_budget"]),
    st.booleans(),
)
def test_no_mode_sends_past_the_window_without_the_overflow_path(
    answers, mode, budget_share, window_share, choice, window_known
):
    history = _history(answers)
    size = max(1, estimate_tokens(history))
    budget, window = max(1, int(size * budget_share)), max(1, int(size * window_share))
    calls, events, error = _run(mode, history, budget, window, choice, window_known)
    over = [tokens for tokens in calls if tokens > window]
    overflow_cuts = [e for e in events if e.reason == "context_overflow"]
    # Every request past the window was refused by the provider and answered by exactly one overflow
    # cut, or it ended the run with the error (nothing left to cut): never a silent send.
    assert len(over) == len(overflow_cuts) + (1 if error is not None else 0)
    if mode == "off":
        assert not [e for e in events if e.reason in AUTOMATIC], "off cut automatically"
    if mode == "ask" and choice != "cut":
        # Not chosen: an automatic cut only for a request past the known window (said in one line).
        first_request = estimate_tokens(history) + estimate_tokens(chat_turn("next", "")[:1])
        if [e for e in events if e.reason in AUTOMATIC]:
            assert window_known and first_request > window, "ask cut what the user did not choose"


def test_off_sends_over_the_budget_and_auto_cuts():
    history = [m for t in range(10) for m in chat_turn(f"q{t}", make_text("prose", 2000, t))]
    budget = estimate_tokens(history) // 2
    for mode, cut in (("auto", True), ("off", False)):
        model = ScriptedModel(reply="ok")
        cap = ContextGovernance(
            GovernancePolicy(budget_tokens=budget, strategy="trim"),
            permission=lambda first, mode=mode: cut_permission(mode, first_request=first, choice=None),  # type: ignore[misc]
        )
        agent = Agent(model.model(), capabilities=[cap])
        cap.begin_run(len(history))
        events, _messages, error = asyncio.run(run_events(agent, "next", history))
        assert error is None
        assert bool(events) is cut, mode
        sent = estimate_tokens(model.chat_calls[-1])
        assert (sent <= budget) is cut, (mode, sent, budget)


def _tool_agent(cap: ContextGovernance, output: str) -> tuple[Agent, list[int]]:
    """An agent whose turn reads one big file, then answers: two requests in one run."""
    from pydantic_ai.models.function import DeltaToolCall, FunctionModel

    sent: list[int] = []

    def read_file(path: str) -> str:
        """Read a file."""
        return output

    async def stream(messages, info):
        sent.append(estimate_tokens(messages))
        if len(sent) == 1:
            yield {0: DeltaToolCall(name="read_file", json_args='{"path": "big.txt"}', tool_call_id="call_1")}
        else:
            yield "read it"

    def chat(messages, info):  # never called: the run streams
        raise AssertionError("streamed only")

    return Agent(FunctionModel(chat, stream_function=stream), tools=[read_file], capabilities=[cap]), sent


async def _run_with_notices(agent: Agent, prompt: str, history):
    cuts, notices = [], []
    async with agent.run_stream_events(prompt, message_history=history) as stream:
        async for ev in stream:
            if isinstance(ev, CutPastWindowEvent):  # a fact: the session words it
                notices.append(past_window_line(ev.tokens, ev.window_tokens))
            elif type(ev).__name__ == "HistoryTrimmedEvent":
                cuts.append(ev.trimmed)
    return cuts, notices


async def test_ask_cuts_at_the_send_only_and_mid_turn_only_past_the_window():
    """In ask the user's "cut" holds for the send: the turn's later request (after a big tool
    output, over the budget again) goes out uncut — unless it would pass the model's known window,
    then it is cut with one line. auto cuts both."""
    history = [m for t in range(10) for m in chat_turn(f"q{t}", make_text("prose", 2000, t))]
    budget = estimate_tokens(history) // 2
    output = make_text("prose", 8000, 99)
    results = {}
    for mode, window in (("auto", None), ("ask", 10 * budget), ("ask", budget + budget // 4)):
        cap = ContextGovernance(
            GovernancePolicy(budget_tokens=budget, strategy="trim", max_history_messages=0),
            permission=lambda first, mode=mode: cut_permission(mode, first_request=first, choice="cut"),  # type: ignore[misc]
            window_tokens=window,
        )
        agent, sent = _tool_agent(cap, output)
        cap.begin_run(len(history))
        cuts, notices = await _run_with_notices(agent, "read big.txt", history)
        results[(mode, window)] = (len(sent), [c.reason for c in cuts], notices, sent)
    auto = results[("auto", None)]
    assert auto[0] == 2 and auto[1].count("token_budget") >= 2, auto  # cut before both requests
    roomy = results[("ask", 10 * budget)]
    assert roomy[1] and roomy[2] == [], roomy  # the chosen cut, before the send only
    assert roomy[3][1] > budget, "the second request went over the budget, uncut"
    tight = results[("ask", budget + budget // 4)]
    assert len(tight[1]) > len(roomy[1]), "past the window, the later request was cut"
    [line] = tight[2]
    assert "would pass the model's" in line and "cutting without asking" in line
