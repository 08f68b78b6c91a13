"""`compact_mode` through a real pydantic-ai `Agent`: `off` never cuts automatically, and no mode
sends a context over the model's window without going through overflow recovery."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai import Agent
from support.builders import chat_turn
from support.examples import examples

from co_tui.governance import ContextGovernance, GovernancePolicy, estimate_tokens
from co_tui.governance.compact_mode import COMPACT_MODES, cuts_automatically, over_budget_notice, parse_mode

from .models import ScriptedModel
from .synthetic import make_text
from .test_capability import overflow_model, run_events

AUTOMATIC = ("token_budget", "message_count")


def test_modes_parse_and_say_what_they_do():
    assert parse_mode(" OFF ") == "off" and parse_mode("auto") == "auto" and parse_mode("sometimes") is None
    assert [cuts_automatically(m) for m in COMPACT_MODES] == [True, False]
    line = over_budget_notice(12_900, 10_000)
    assert "12.9k of 10k tokens" in line and "compact_mode is off" in line and "\n" not in line


def _run(mode: str, history, budget: int, window: int):
    calls: list[int] = []
    cap = ContextGovernance(
        GovernancePolicy(budget_tokens=budget, max_history_messages=8, strategy="trim"),
        automatic=lambda: cuts_automatically(mode),  # type: ignore[arg-type]
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
)
def test_no_mode_sends_past_the_window_without_the_overflow_path(answers, mode, budget_share, window_share):
    history = _history(answers)
    size = max(1, estimate_tokens(history))
    budget, window = max(1, int(size * budget_share)), max(1, int(size * window_share))
    calls, events, error = _run(mode, history, budget, window)
    over = [tokens for tokens in calls if tokens > window]
    overflow_cuts = [e for e in events if e.reason == "context_overflow"]
    # Every request past the window was refused by the provider and answered by exactly one overflow
    # cut, or it ended the run with the error (nothing left to cut): never a silent send.
    assert len(over) == len(overflow_cuts) + (1 if error is not None else 0)
    if mode == "off":
        assert not [e for e in events if e.reason in AUTOMATIC], "off cut automatically"


def test_off_sends_over_the_budget_and_auto_cuts():
    history = [m for t in range(10) for m in chat_turn(f"q{t}", make_text("prose", 2000, t))]
    budget = estimate_tokens(history) // 2
    for mode, cut in (("auto", True), ("off", False)):
        model = ScriptedModel(reply="ok")
        cap = ContextGovernance(
            GovernancePolicy(budget_tokens=budget, strategy="trim"),
            automatic=lambda mode=mode: cuts_automatically(mode),  # type: ignore[misc]
        )
        agent = Agent(model.model(), capabilities=[cap])
        cap.begin_run(len(history))
        events, _messages, error = asyncio.run(run_events(agent, "next", history))
        assert error is None
        assert bool(events) is cut, mode
        sent = estimate_tokens(model.chat_calls[-1])
        assert (sent <= budget) is cut, (mode, sent, budget)
