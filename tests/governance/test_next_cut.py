"""preview_next_cut: the inspector's `next to go` is what the next automatic cut really does."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import FunctionModel
from support.builders import chat_turn, system, tool_turn
from support.examples import examples
from support.loop import run

from co_tui.governance import GovernancePolicy, Governor, estimate_tokens
from co_tui.governance.markers import separate_markers
from co_tui.governance.next_cut import compact_estimate, preview_next_cut
from co_tui.governance.pins import turn_key
from co_tui.governance.turns import segment

from .strategies import histories
from .synthetic import make_text
from .test_properties import fingerprint
from .test_undo_pins import _pins_of

pytestmark = pytest.mark.filterwarnings("ignore:`RetryPromptPart` is deprecated")


def _really(governor: Governor, context, overhead: int = 0):
    """What `apply` does to the next request (the context plus an empty prompt): the context
    indices it removes, and its strategies."""
    current = separate_markers(context)
    prompt = ModelRequest(parts=[UserPromptPart("")])
    outcome = run(governor.apply([*current, prompt], overhead_tokens=overhead))
    kept = {id(m) for m in outcome.messages}
    removed = {i for i, m in enumerate(current) if id(m) not in kept}
    return removed, [e.strategy for e in outcome.events]


def _preview_matches_apply(history, fraction: float, limit: int, pins: frozenset[str] = frozenset()) -> None:
    """On the trim policy: the preview is what `apply` then does (same strategies, same messages
    removed or shortened), never marks a pinned turn, and mutates nothing."""
    policy = GovernancePolicy(
        budget_tokens=max(200, int(estimate_tokens(history) * fraction)),
        max_history_messages=limit,
        strategy="trim",
        tool_output_trim_chars=500,
    )
    governor = Governor(policy, pins=pins)
    before = fingerprint(history)
    preview = preview_next_cut(governor, history)
    assert fingerprint(history) == before
    removed, strategies = _really(governor, history)
    if preview is None:
        assert not strategies
        return
    assert not set(preview.fates) & _pinned_indices(history, pins)
    assert list(preview.strategies) == strategies
    # A truncated message is replaced too (a new object): removed = going + truncated.
    assert set(preview.fates) == removed


def _pinned_indices(context, pins: frozenset[str]) -> set[int]:
    """Context indices (as the inspector numbers them) of the turns whose key is in `pins`."""
    turns = segment(separate_markers(context)).turns
    return {i for t in turns if t.has_prompt and turn_key(t.messages[0]) in pins for i in t.indices}


# more than the default: each case draws a budget, a limit (and pins) on top of its history.
@settings(max_examples=examples(120))
@given(histories(), st.floats(0.2, 1.2), st.sampled_from([0, 8, 12]))
def test_the_preview_matches_what_the_trim_policy_does(history, fraction, limit):
    _preview_matches_apply(history, fraction, limit)


@settings(max_examples=examples(150))
@given(histories(), st.lists(st.booleans(), min_size=6, max_size=6), st.floats(0.2, 1.2), st.sampled_from([0, 4, 8]))
def test_the_preview_keeps_pinned_turns_out_as_apply_does(history, choice, fraction, limit):
    """A pinned turn is never `next to go`, and the preview still agrees with `apply`."""
    _preview_matches_apply(history, fraction, limit, _pins_of(history, choice))


@pytest.mark.parametrize("strategy", ["trim", "summarize"])
def test_a_pinned_oldest_turn_is_not_next_to_go(strategy):
    """The message limit is over by a few turns and the oldest turn is pinned: the cut (and its
    preview) takes the turns after it."""
    history = [system(), *[m for t in range(10) for m in chat_turn(f"question {t} " * 20, f"answer {t} " * 40)]]
    pins = frozenset({turn_key(history[1])})
    summariser = FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("short summary")]))
    governor = Governor(
        GovernancePolicy(budget_tokens=100_000, max_history_messages=12, strategy=strategy),
        summarizer_model=summariser,
        pins=pins,
    )
    preview = preview_next_cut(governor, history)
    assert preview is not None and preview.going
    assert 1 not in preview.going and 2 not in preview.going
    removed, _strategies = _really(governor, history)
    assert set(preview.going) == removed and {1, 2}.isdisjoint(removed)


def test_a_summary_is_previewed_as_summarised_and_matches_the_real_pass():
    history = [system(), *[m for t in range(12) for m in chat_turn(f"question {t} " * 20, f"answer {t} " * 40)]]
    policy = GovernancePolicy(budget_tokens=100_000, max_history_messages=16)
    summariser = FunctionModel(
        lambda messages, info: __import__("pydantic_ai").messages.ModelResponse(
            parts=[__import__("pydantic_ai").messages.TextPart("short summary")]
        )
    )
    governor = Governor(policy, summarizer_model=summariser)
    preview = preview_next_cut(governor, history)
    assert preview is not None and preview.reason == "message_count" and preview.kind == "summary"
    removed, strategies = _really(governor, history)
    assert strategies[0] == "summary"
    assert set(preview.going) == removed
    assert {preview.fates[i] for i in preview.going} == {"summarised"}
    assert preview_next_cut(governor, history, summarizer_available=False).kind == "turn_trim"


def test_nothing_pending_is_none_and_compact_estimate_says_what_it_would_summarise():
    history = [system(), *tool_turn("read", [make_text("logs", 4000, 1)], "ok")]
    governor = Governor(GovernancePolicy(budget_tokens=100_000))
    assert preview_next_cut(governor, history) is None
    estimate = compact_estimate(history, 100_000, overhead_tokens=50)
    assert estimate is not None and estimate.dropped_messages == 4 and estimate.dropped_turns == 1
    assert estimate.tokens_after < estimate.tokens_before and estimate.tokens_before == estimate_tokens(history) + 50
    assert compact_estimate([system()], 1000) is None
