"""Pinned turns heavier than the budget (docs/context-governance.md, "Pins"; issue 33).

When the pinned turns, the request's overhead and the newest turn weigh more than the budget, no
cut can get the request under it. Before, every turn cut anyway (39 of 40 turns here: a banner, a
summary or a turn trim, and a lost prompt cache each time); now no token cut is made and the outcome
says the pins are over the budget, so the front end says it once. Pure: inputs are never mutated.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.function import FunctionModel
from support.builders import chat_turn, tool_turn
from support.examples import examples
from support.loop import run

from co_tui.governance import GovernancePolicy, Governor, estimate_tokens
from co_tui.governance.markers import separate_markers
from co_tui.governance.pins import split_pinned, turn_key
from co_tui.governance.turns import segment

from .strategies import histories
from .test_properties import fingerprint

pytestmark = pytest.mark.filterwarnings("ignore:`RetryPromptPart` is deprecated")


def _summariser() -> FunctionModel:
    def answer(messages, info):
        return ModelResponse(parts=[TextPart("A short summary of the earlier turns.")])

    return FunctionModel(answer)


def test_a_pinned_turn_over_the_budget_makes_no_cut_turn_after_turn() -> None:
    pinned = tool_turn("the spec", ["spec line " * 800])
    budget = estimate_tokens(pinned) * 2 // 3  # the pinned turn alone is over the budget
    governor = Governor(
        GovernancePolicy(budget_tokens=budget, max_history_messages=0),
        summarizer_model=_summariser(),
        pins=frozenset({turn_key(pinned[0])}),
    )
    context, cut_on, said = list(pinned), [], []
    for i in range(40):
        context = [*context, *chat_turn(f"question {i} " * 60, f"answer {i} " * 60)]
        frozen = fingerprint(context)
        outcome = run(governor.apply(context, overhead_tokens=300))
        assert fingerprint(context) == frozen, "input mutated"
        if outcome.events:  # a cut that cannot get under the budget
            cut_on.append(i + 1)
        said.append(getattr(outcome, "pins_over_budget", None))
        context = outcome.messages
    assert cut_on == [], f"cuts on {len(cut_on)} of 40 turns"
    assert said == [estimate_tokens(pinned)] * 40
    assert governor.over_limits(context, overhead_tokens=300) is False, "the meter agrees: nothing will be cut"


def test_the_message_limit_still_applies() -> None:
    pinned = tool_turn("the spec", ["spec line " * 800])
    governor = Governor(
        GovernancePolicy(budget_tokens=500, max_history_messages=6, strategy="trim"),
        pins=frozenset({turn_key(pinned[0])}),
    )
    context = [*pinned, *(m for i in range(8) for m in chat_turn(f"q{i}", f"a{i}"))]
    outcome = run(governor.apply(context))
    assert outcome.events and {e.reason for e in outcome.events} == {"message_count"}
    assert outcome.pins_over_budget and all(m in outcome.messages for m in pinned)


def test_pins_that_leave_room_cut_as_before() -> None:
    pinned = chat_turn("remember: tabs, not spaces", "noted")
    governor = Governor(
        GovernancePolicy(budget_tokens=2_000, max_history_messages=0, strategy="trim"),
        pins=frozenset({turn_key(pinned[0])}),
    )
    context = [*pinned, *(m for i in range(30) for m in chat_turn(f"question {i} " * 30, f"answer {i} " * 30))]
    outcome = run(governor.apply(context))
    assert outcome.events and outcome.pins_over_budget == 0


@settings(max_examples=examples(200))
@given(histories(), st.data())
def test_no_token_cut_when_the_pins_make_the_budget_unreachable(history, data):
    layout = segment(separate_markers(history))
    keys = [turn_key(t.messages[0]) for t in layout.turns if t.has_prompt]
    keys = [k for k in keys if k is not None]
    if not keys:
        return
    pins = frozenset(data.draw(st.lists(st.sampled_from(keys), min_size=1, unique=True)))
    split = split_pinned(history, pins)
    overhead = data.draw(st.sampled_from([0, 200]))
    # A budget under what the pinned turns and the overhead hold: no cut can get under it.
    assume(split.tokens + overhead >= 2)
    budget = max(1, split.tokens + overhead - data.draw(st.integers(1, max(1, split.tokens))))
    strategy = data.draw(st.sampled_from(["summarize", "trim"]))
    governor = Governor(
        GovernancePolicy(budget_tokens=budget, max_history_messages=0, strategy=strategy),
        summarizer_model=_summariser(),
        pins=pins,
    )
    frozen = fingerprint(history)
    outcome = run(governor.apply(history, overhead_tokens=overhead))
    assert fingerprint(history) == frozen, "input mutated"
    assert outcome.events == [] and outcome.pins_over_budget == split.tokens
