"""Property tests over generated histories: the invariants of DESIGN §2 (≥10,000 cases in total)."""

from __future__ import annotations

import copy
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from co_tui.governance import estimate_tokens, fit_to_budget, split_turns, trim_to_recent_turns, trim_tool_returns
from co_tui.governance.trim import shrink_steps, trim_to_message_count
from co_tui.governance.turns import pair_calls, segment

from .strategies import histories

# The legacy `RetryPromptPart` is generated on purpose: stored histories still hold it.
pytestmark = pytest.mark.filterwarnings("ignore:`RetryPromptPart` is deprecated")

FAST = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
fractions = st.floats(0.0, 1.3)


def fingerprint(messages) -> list:
    """Identity of every message, part and field value (plus container sizes): cheap mutation check.

    Catches reassigned fields and grown/shrunk lists/dicts; `test_no_deep_mutation` below backs it
    with a full deepcopy comparison on fewer examples.
    """

    def value_key(v):
        return (id(v), len(v)) if isinstance(v, (list, dict, str)) else id(v)

    return [
        (id(m), tuple(value_key(v) for v in vars(m).values()), tuple((id(p), tuple(value_key(v) for v in vars(p).values())) for p in m.parts))
        for m in messages
    ]


def pairing_problems(messages) -> Counter:
    """Unanswered calls and orphan results, keyed without turn numbers (which shift after a cut)."""
    problems: Counter = Counter()
    for turn in split_turns(messages):
        pairing = pair_calls(turn.messages)
        for pos, k in pairing.unanswered:
            part = turn.messages[pos].parts[k]
            problems[("unanswered", part.tool_name, part.tool_call_id)] += 1
        for pos, k in pairing.orphans:
            part = turn.messages[pos].parts[k]
            problems[("orphan", part.tool_name, part.tool_call_id)] += 1
    return problems


def without_system(messages) -> list:
    """A turn's messages with the system prompt lifted out of its opening request (what a cut may do)."""
    if not messages:
        return []
    first = messages[0]
    rest = [p for p in first.parts if p.part_kind != "system-prompt"]
    return [rest, *messages[1:]]


def same_turn(after, before) -> bool:
    return after.messages == before.messages or without_system(after.messages) == without_system(before.messages)


def turn_messages(messages) -> int:
    return sum(len(t) for t in split_turns(messages))


def assert_one_marker_after_system(messages) -> None:
    layout = segment(messages)
    assert len(layout.markers) == 1, layout.markers
    assert layout.markers[0][0] == len(layout.system)
    assert layout.markers[0][1].kind == "breadcrumb"


def assert_cut_invariants(history, res, budget) -> None:
    before_turns = split_turns(history)
    after_turns = split_turns(res.messages)
    if before_turns:
        assert res.kept_turns >= 1
        assert len(after_turns) == res.kept_turns
    assert not (pairing_problems(res.messages) - pairing_problems(history)), "cut created an unpaired call"
    if res.trimmed:
        assert_one_marker_after_system(res.messages)
        assert turn_messages(history) - turn_messages(res.messages) == res.dropped_messages
        assert len(before_turns) - len(after_turns) == res.dropped_turns
        prior = segment(history)
        info = segment(res.messages).markers[0][1]
        assert info.messages == prior.prior_messages + res.dropped_messages
        assert info.turns == prior.prior_turns + res.dropped_turns
    else:
        assert res.messages == history
    assert res.tokens_after == estimate_tokens(res.messages)


@settings(max_examples=3500, **FAST)
@given(histories(), fractions)
def test_trim_to_recent_turns_invariants(history, fraction):
    frozen = fingerprint(history)
    budget = int(estimate_tokens(history) * fraction)
    res = trim_to_recent_turns(history, budget)
    assert fingerprint(history) == frozen, "input mutated"
    assert_cut_invariants(history, res, budget)
    if split_turns(history):
        assert same_turn(split_turns(res.messages)[-1], split_turns(history)[-1]), "newest turn not whole"
    if res.kept_turns > 1:
        assert res.tokens_after <= budget
    again = trim_to_recent_turns(res.messages, budget)
    assert not again.trimmed and again.messages == res.messages


@settings(max_examples=3000, **FAST)
@given(histories(), fractions, st.sampled_from([0, 50, 500, 2000]))
def test_fit_to_budget_invariants(history, fraction, trim_chars):
    frozen = fingerprint(history)
    budget = int(estimate_tokens(history) * fraction)
    res = fit_to_budget(history, budget, tool_output_trim_chars=trim_chars)
    assert fingerprint(history) == frozen, "input mutated"
    assert res.fits == (res.tokens_after <= budget)
    assert res.tokens_after == estimate_tokens(res.messages)
    assert not (pairing_problems(res.messages) - pairing_problems(history))
    before, after = split_turns(history), split_turns(res.messages)
    if before:
        assert after, "history nuked down to the breadcrumb"
        newest_before, newest_after = before[-1], after[-1]
        assert [type(m) for m in newest_before] == [type(m) for m in newest_after], "newest turn split"
        assert newest_after.messages[0] is newest_before.messages[0] or newest_before.messages[0].parts[0].part_kind == "system-prompt"
    if len(after) > 1:
        assert res.tokens_after <= budget
    strategies = [e.strategy for e in res.events]
    assert strategies == sorted(strategies, key=["tool_output_trim", "turn_trim", "step_shrink"].index)
    for event in res.events:
        assert (event.kept_turns >= 1 or not before) and event.budget_tokens == budget
        # Dropping turns may add a few tokens net (the breadcrumb) when only the newest turn is left.
        assert event.tokens_after <= event.tokens_before or event.strategy == "turn_trim"
    if not res.events:
        assert res.messages == history
    assert fit_to_budget(res.messages, budget, tool_output_trim_chars=trim_chars).events == []


@settings(max_examples=1500, **FAST)
@given(histories(), st.sampled_from([0, 10, 200, 2000]))
def test_trim_tool_returns_invariants(history, max_chars):
    frozen = fingerprint(history)
    res = trim_tool_returns(history, max_chars)
    assert fingerprint(history) == frozen
    assert len(res.messages) == len(history)
    assert not (pairing_problems(res.messages) - pairing_problems(history))
    if split_turns(history):
        assert split_turns(res.messages)[-1].messages == split_turns(history)[-1].messages
    for old, new in zip(history, res.messages):
        assert [getattr(p, "tool_call_id", None) for p in old.parts] == [getattr(p, "tool_call_id", None) for p in new.parts]
    assert trim_tool_returns(res.messages, max_chars).trimmed_parts == 0
    assert res.chars_after <= res.chars_before


@settings(max_examples=1200, **FAST)
@given(histories(), st.integers(1, 30))
def test_trim_to_message_count_invariants(history, max_messages):
    frozen = fingerprint(history)
    res = trim_to_message_count(history, max_messages)
    assert fingerprint(history) == frozen
    assert_cut_invariants(history, res, 0)
    if res.kept_turns > 1:
        assert turn_messages(res.messages) <= max_messages
    assert not trim_to_message_count(res.messages, max_messages).trimmed


@settings(max_examples=1000, **FAST)
@given(histories(), fractions)
def test_split_turns_partitions_and_shrink_pairs(history, fraction):
    layout = segment(history)
    covered = sorted([*layout.system, *(i for i, _ in layout.markers), *(i for t in layout.turns for i in t.indices)])
    assert covered == list(range(len(history)))
    for turn in layout.turns[1:]:
        assert turn.has_prompt
    budget = int(estimate_tokens(history) * fraction)
    res = shrink_steps(history, budget)
    assert len(res.messages) == len(history)
    assert not (pairing_problems(res.messages) - pairing_problems(history))
    assert not shrink_steps(res.messages, budget).trimmed or res.tokens_after > budget


@settings(max_examples=700, **FAST)
@given(histories(), fractions, st.sampled_from([0, 200, 2000]))
def test_no_deep_mutation(history, fraction, trim_chars):
    frozen = copy.deepcopy(history)
    budget = int(estimate_tokens(history) * fraction)
    fit_to_budget(history, budget, tool_output_trim_chars=trim_chars)
    trim_to_message_count(history, 4)
    assert history == frozen
