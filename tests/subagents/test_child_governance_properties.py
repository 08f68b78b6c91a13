"""A child's context obeys the governance invariants the main one does (docs/subagents.md): over
generated histories, the governor a real subagent binding runs with — the main settings' policy
with the child's own budget — never mutates its input, says every change with an honest event
against the child's budget, keeps tool calls paired and comes back to rest."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import pytest
from governance.strategies import histories
from governance.test_properties import (
    assert_event_invariants,
    assert_ledger_adds_up,
    fingerprint,
    pairing_problems,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.loop import run

from co_tui.agent.agent_defs import EXPLORE
from co_tui.config import Settings
from co_tui.governance import estimate_tokens
from co_tui.session.child_agent import ChildRun
from co_tui.session.resources import Resources

pytestmark = pytest.mark.filterwarnings("ignore:`RetryPromptPart` is deprecated")


@functools.cache
def resources(workspace: Path, strategy: str, max_messages: int) -> Resources:
    configured = Settings(model="offline", context_strategy=strategy, max_history_messages=max_messages)
    return Resources(configured, workspace)


def child_for(workspace: Path, parent_budget: int, strategy: str, max_messages: int) -> ChildRun:
    return ChildRun(resources(workspace, strategy, max_messages), "offline", EXPLORE, parent_budget=parent_budget)


# Fewer cases than the main properties (tests/governance/test_properties.py): each builds a real
# subagent binding, and the rules it runs are those the main properties already cover at length.
@settings(max_examples=examples(40))
@given(
    histories(),
    st.floats(0.05, 1.3),
    st.sampled_from(["summarize", "trim"]),
    st.sampled_from([0, 8, 40]),
)
def test_a_childs_context_obeys_the_main_invariants(
    tmp_path_factory: pytest.TempPathFactory, history, fraction, strategy, max_messages
) -> None:
    workspace = tmp_path_factory.getbasetemp()
    child = child_for(workspace, max(1, int(estimate_tokens(history) * fraction)), strategy, max_messages)
    binding = child.binding
    # The child's policy is the main one's but for its budget (its own, capped by the parent's).
    main = child_for(workspace, 10**9, strategy, max_messages).binding.policy
    assert binding.policy.budget_tokens == min(max(1, int(estimate_tokens(history) * fraction)), 40_000)
    assert dataclasses.replace(binding.policy, budget_tokens=main.budget_tokens) == main
    frozen, problems = fingerprint(history), pairing_problems(history)
    out = run(binding.governor.apply(history, overhead_tokens=binding.overhead))
    assert fingerprint(history) == frozen, "input mutated"
    assert bool(out.events) == (out.messages != history), "a change without an event, or an event without one"
    assert_ledger_adds_up(out.events, history, out.messages, binding.overhead)
    for event in out.events:
        assert event.budget_tokens == binding.policy.budget_tokens
        assert_event_invariants(event)
    assert not (pairing_problems(out.messages) - problems), "a cut broke a call's pairing"
    child.close()
