"""Real transcripts (../shared/corpus) through the zero-LLM pipeline and the whole policy at several budgets."""

from __future__ import annotations

import pytest

from co_tui.governance import (
    GovernancePolicy,
    Governor,
    check_pairing,
    estimate_tokens,
    fit_to_budget,
    split_turns,
    trim_to_recent_turns,
)
from co_tui.governance.turns import pair_calls, segment

from .corpus import load_transcript, transcript_files
from .models import ScriptedModel
from .test_properties import assert_event_invariants, assert_ledger_adds_up, pairing_problems

FILES = transcript_files()
pytestmark = pytest.mark.skipif(not FILES, reason="shared corpus not present")


def test_loader_keeps_quirks():
    """Reused ids, dangling Finish calls and non-JSON arguments survive conversion."""
    names = {p.name: p for p in FILES}
    toolbench = load_transcript(next(p for n, p in names.items() if n.startswith("toolbench__")))
    problems = check_pairing(toolbench)
    assert problems and all("Finish" in p and "has no result" in p for p in problems)
    reused = load_transcript(names["tau_bench__airline_idx052.json"])
    ids = [p.tool_call_id for m in reused for p in m.parts if p.part_kind == "tool-call"]
    assert len(ids) > len(set(ids))  # ids really are reused
    assert check_pairing(reused) == []  # and positional pairing still pairs every call


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem[:40])
@pytest.mark.parametrize("fraction", [0.9, 0.5, 0.2, 0.05])
def test_corpus_fit_to_budget(path, fraction):
    history = load_transcript(path)
    budget = max(1, int(estimate_tokens(history) * fraction))
    res = fit_to_budget(history, budget, tool_output_trim_chars=300)
    turns_before, turns_after = split_turns(history), split_turns(res.messages)
    assert turns_after, "never cut down to the breadcrumb"
    assert not (pairing_problems(res.messages) - pairing_problems(history))
    assert res.fits == (res.tokens_after <= budget)
    if len(turns_after) > 1:
        assert res.fits
    if res.events:
        assert len(segment(res.messages).markers) <= 1
    # Every result in the output still pairs with a call in its own turn, by position.
    for turn in turns_after:
        assert not pair_calls(turn.messages).orphans
    # The newest turn is never split.
    assert len(turns_after[-1]) == len(turns_before[-1])
    assert fit_to_budget(res.messages, budget, tool_output_trim_chars=300).events == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem[:40])
def test_corpus_trim_counts_add_up(path):
    history = load_transcript(path)
    total = estimate_tokens(history)
    first = trim_to_recent_turns(history, int(total * 0.6))
    second = trim_to_recent_turns(first.messages, int(total * 0.3))
    if second.trimmed:
        info = segment(second.messages).markers[0][1]
        assert info.messages == first.dropped_messages + second.dropped_messages
        turn_msgs = sum(len(t) for t in split_turns(history))
        assert info.messages + sum(len(t) for t in split_turns(second.messages)) == turn_msgs


async def _replay(history, policy: GovernancePolicy, summariser) -> list[tuple]:
    """Feed a transcript to the policy turn by turn, as a session does; returns every pass."""
    governor = Governor(policy, summarizer_model=summariser)
    passes = []
    layout = segment(history)
    context = [history[i] for i in layout.system]
    for turn in layout.turns:
        before = context + turn.messages
        outcome = await governor.apply(before)
        passes.append((before, outcome))
        context = outcome.messages
    return passes


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem[:40])
@pytest.mark.parametrize("strategy", ["summarize", "trim"])
@pytest.mark.parametrize("fraction", [0.5, 0.2, 0.05])
async def test_corpus_policy_replay_events_are_honest(path, strategy, fraction):
    """Every event of every pass, over real transcripts replayed turn by turn through `Governor.apply`
    (markers of earlier passes meet new cuts here): a cut removes a turn, nothing grows the context
    beyond what the message limit allows, and the ledger of a pass adds up."""
    history = load_transcript(path)
    budget = max(1, int(estimate_tokens(history) * fraction))
    policy = GovernancePolicy(
        budget_tokens=budget, max_history_messages=16, strategy=strategy, tool_output_trim_chars=300
    )
    for before, outcome in await _replay(history, policy, ScriptedModel().model()):
        assert bool(outcome.events) == (outcome.messages != before)
        assert_ledger_adds_up(outcome.events, before, outcome.messages)
        for event in outcome.events:
            assert_event_invariants(event)
        assert len(segment(outcome.messages).markers) <= 1
