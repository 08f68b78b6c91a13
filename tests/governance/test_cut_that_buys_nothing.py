"""A cut that can neither reach the budget nor free a meaningful share is not made (issue 43 item
6): with a 6,000-token budget, `list` then `read docs/architecture.md` dropped the `list` turn to go
from 9,014 to 9,004 tokens, and the newest turn alone was still over the budget. As with pinned
turns over the budget, no cut is made; a cut that frees a meaningful share still is. The meter's
forecast (`preview_next_cut`) runs the same steps (`finish_cut`), so it agrees. Pure: inputs are never mutated."""

from __future__ import annotations

from support.builders import chat_turn, tool_turn
from support.loop import run

from co_tui.governance import GovernancePolicy, Governor, estimate_tokens

from .test_properties import fingerprint


def _governor(budget: int) -> Governor:
    return Governor(GovernancePolicy(budget_tokens=budget, max_history_messages=0, strategy="trim"))


def test_no_cut_when_the_newest_turn_alone_is_over_and_little_else_is_there() -> None:
    small = tool_turn("list", ["README.md\ndocs/\n" * 20])
    newest = tool_turn("read docs/architecture.md", ["architecture line " * 3200])
    context = [*small, *newest]
    budget = 6000
    assert estimate_tokens(newest) > budget and estimate_tokens(small) < budget // 10
    frozen = fingerprint(context)
    outcome = run(_governor(budget).apply(context, overhead_tokens=2500))  # instructions, tool schemas
    assert fingerprint(context) == frozen, "input mutated"
    assert outcome.events == [], [e.note for e in outcome.events]
    assert outcome.messages == context


def test_a_cut_that_frees_a_meaningful_share_is_still_made() -> None:
    older = [m for i in range(6) for m in chat_turn(f"question {i} " * 80, f"answer {i} " * 120)]
    newest = tool_turn("read docs/architecture.md", ["architecture line " * 3200])
    context = [*older, *newest]
    budget = 6000
    assert estimate_tokens(older) > budget // 10
    outcome = run(_governor(budget).apply(context))
    assert outcome.events, "the older turns go: a meaningful share, though the budget is not reached"
    assert estimate_tokens(outcome.messages) < estimate_tokens(context) - budget // 10


def test_the_meter_forecasts_the_cut_the_next_send_makes_with_a_pinned_turn() -> None:
    """Issue 43 item 7: pinned turn, then a big read over the budget with it: the next send (a new
    newest turn) cuts, so `over_limits(next_prompt=True)` (the meter's "… on next send") says so."""
    from co_tui.governance.next_cut import preview_next_cut
    from co_tui.governance.pins import turn_key

    pinned = tool_turn("search context in README.md", ["a match line\n" * 120])
    newest = tool_turn("read README.md", ["readme line " * 2500])
    context = [*chat_turn("hello", "hi"), *pinned, *newest]
    budget = 6000
    governor = Governor(
        GovernancePolicy(budget_tokens=budget, max_history_messages=0, strategy="trim"),
        pins=frozenset({turn_key(pinned[0])}),
    )
    assert estimate_tokens(context) + 1200 > budget
    forecast = governor.over_limits(context, overhead_tokens=1200, next_prompt=True)
    cut = preview_next_cut(governor, context, overhead_tokens=1200, summarizer_available=False)
    assert cut is not None, "the next send cuts (the read is no longer the newest turn)"
    assert forecast is True, "and the meter says so"
