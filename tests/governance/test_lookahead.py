"""The meter's look-ahead: turns left before the next cut, from the mean growth of recent turns."""

from __future__ import annotations

import copy

import pytest
from support.builders import chat_turn, system, tool_turn

from co_tui.governance import estimate_tokens, turn_growth, turns_until_cut
from co_tui.governance.lookahead import RECENT_TURNS
from co_tui.governance.markers import make_breadcrumb


def test_no_forecast_below_half_of_both_limits() -> None:
    assert (
        turns_until_cut(
            tokens=4_999, budget_tokens=10_000, tokens_per_turn=1_000, messages=10, max_messages=40, messages_per_turn=2
        )
        is None
    )


def test_forecast_counts_the_turns_that_fit_and_the_one_that_is_cut() -> None:
    # 4,000 tokens of room at 1,500 a turn: two more turns fit, the third is cut.
    assert turns_until_cut(tokens=6_000, budget_tokens=10_000, tokens_per_turn=1_500) == 3
    # Exactly at the budget is not over it: 2 turns fill it, the 3rd is cut.
    assert turns_until_cut(tokens=6_000, budget_tokens=10_000, tokens_per_turn=2_000) == 3
    # Less room than one turn: the next turn is the one cut.
    assert turns_until_cut(tokens=9_500, budget_tokens=10_000, tokens_per_turn=2_000) == 1


def test_the_sooner_trigger_wins() -> None:
    # Tokens would allow 10 more turns, the message limit only 2 (4 messages a turn, 8 left).
    args = dict(tokens=5_500, budget_tokens=10_000, tokens_per_turn=400)
    assert turns_until_cut(**args) == 12
    assert turns_until_cut(**args, messages=32, max_messages=40, messages_per_turn=4) == 3
    # Past half of the message limit alone is enough to forecast.
    assert (
        turns_until_cut(
            tokens=100, budget_tokens=10_000, tokens_per_turn=100, messages=30, max_messages=40, messages_per_turn=4
        )
        == 3
    )


def test_a_limit_of_zero_is_off() -> None:
    assert (
        turns_until_cut(
            tokens=100, budget_tokens=10_000, tokens_per_turn=100, messages=300, max_messages=0, messages_per_turn=4
        )
        is None
    )


@pytest.mark.parametrize("per_turn", [0, -50])
def test_no_forecast_when_turns_do_not_grow_the_context(per_turn: float) -> None:
    assert turns_until_cut(tokens=6_000, budget_tokens=10_000, tokens_per_turn=per_turn) is None


def test_no_forecast_when_already_over_a_limit() -> None:
    """Over the budget the cut comes with the next request: the meter says that instead."""
    assert turns_until_cut(tokens=10_001, budget_tokens=10_000, tokens_per_turn=500) is None
    assert (
        turns_until_cut(
            tokens=100, budget_tokens=10_000, tokens_per_turn=500, messages=41, max_messages=40, messages_per_turn=2
        )
        is None
    )


def test_turn_growth_is_the_largest_of_the_newest_turns() -> None:
    small = [chat_turn(f"q{i}", "short answer") for i in range(4)]
    big = [tool_turn(f"read {i}", ["x" * 4000, "y" * 4000]) for i in range(RECENT_TURNS)]
    history = [system(), *[m for t in small + big for m in t]]
    before = copy.deepcopy(history)
    growth = turn_growth(history)
    assert growth is not None
    # Only the newest RECENT_TURNS (the big ones) count.
    assert growth.tokens == max(estimate_tokens(t) for t in big)
    assert growth.messages == len(big[0])
    assert growth.turn_messages == sum(len(t) for t in small + big)  # the system prompt is not a turn
    assert history == before, "never mutates its input"


def test_markers_are_not_turns() -> None:
    marker = make_breadcrumb(6, 3)  # governance's own marker: a prompt with its text would be a turn
    turns = [chat_turn("q1", "a1"), chat_turn("q2", "a2")]
    growth = turn_growth([marker, *[m for t in turns for m in t]])
    assert growth is not None and growth.turn_messages == 4 and growth.messages == 2


def test_no_growth_without_a_turn() -> None:
    assert turn_growth([]) is None
    assert turn_growth([system()]) is None


def test_a_read_between_chats_sets_the_growth_not_the_mean() -> None:
    """At 6.8k/10k the meter said `≈3 turns to trim` and the next read cut (issue 32, item 6): the
    mean of small chats and one large read hid what a read adds. The largest recent turn counts."""
    read = tool_turn("read big.md", [" ".join(f"line{i} of big.md" for i in range(600))])
    chats = [chat_turn(f"q{i}", "short answer") for i in range(3)]
    history = [system(), *[m for t in [chats[0], read, *chats[1:]] for m in t]]
    growth = turn_growth(history)
    assert growth is not None and growth.tokens == estimate_tokens(read)
    budget = 10_000
    used = budget - int(growth.tokens * 0.8)  # less room left than one more such read
    assert turns_until_cut(tokens=used, budget_tokens=budget, tokens_per_turn=growth.tokens) == 1
