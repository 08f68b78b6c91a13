"""Property tests for undoing a cut and for pinned turns (docs/context-governance.md, "Undo a cut", "Pins")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.function import FunctionModel
from support.builders import chat_turn, tool_turn
from support.examples import examples
from support.loop import run

from co_tui.governance import GovernancePolicy, Governor, estimate_tokens
from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.markers import separate_markers
from co_tui.governance.pins import compact_around_pins, pin_room, reinsert, split_pinned, turn_key
from co_tui.governance.summarize import SummaryRejected
from co_tui.governance.tokens import part_text
from co_tui.governance.turns import check_pairing, segment
from co_tui.governance.undo import CutRecord, UndoRefused, undo_event, undo_target, undone_context
from co_tui.session.wording import refusal_line

from .strategies import _text, histories
from .test_properties import fingerprint

pytestmark = pytest.mark.filterwarnings("ignore:`RetryPromptPart` is deprecated")


def _summariser(fail: bool) -> FunctionModel:
    def answer(messages, info):
        if fail:
            raise ConnectionError("summariser unreachable")
        return ModelResponse(parts=[TextPart(_text("prose", 30, 0))])

    return FunctionModel(answer)


def _policy(history, fraction: float, max_messages: int, strategy: str) -> GovernancePolicy:
    budget = max(1, int(estimate_tokens(history) * fraction))
    return GovernancePolicy(budget_tokens=budget, max_history_messages=max_messages, strategy=strategy)  # type: ignore[arg-type]


# 3-4× the default: each case draws pins, a budget and a strategy on top of its history.
@settings(max_examples=examples(300))
@given(
    histories(),
    st.floats(0.05, 1.2),
    st.sampled_from([0, 4, 16]),
    st.sampled_from(["summarize", "trim"]),
)
def test_restore_then_cut_is_consistent(history, fraction, max_messages, strategy):
    """Cut, go on, undo: the context is the original plus everything since, and cutting it again
    gives what cutting that whole conversation gives. Nothing is mutated."""
    policy = _policy(history, fraction, max_messages, strategy)
    frozen = fingerprint(history)
    cut = run(Governor(policy, summarizer_model=_summariser(False)).apply(history))
    later = chat_turn("and then?", "then this")
    transcript = [*history, *later]
    after_cut = [*cut.messages, *later]
    restored = undone_context(tuple(history), transcript, len(history))
    assert restored == transcript and all(a is b for a, b in zip(restored, transcript, strict=True))
    assert fingerprint(history) == frozen, "input mutated"
    again = run(Governor(policy, summarizer_model=_summariser(False)).apply(restored))
    direct = run(Governor(policy, summarizer_model=_summariser(False)).apply(transcript))
    assert _shape(again.messages) == _shape(direct.messages) and again.events == direct.events
    if cut.events:
        event = undo_event(
            cut.events[0],
            current=after_cut,
            restored=restored,
            tokens_before=estimate_tokens(after_cut),
            tokens_after=estimate_tokens(restored),
            budget_tokens=policy.budget_tokens,
            cut_number=1,
        )
        assert event.reason == "restore" and event.strategy == cut.events[0].strategy
        assert event.dropped_messages == 0 and event.restored_messages >= 0
        if estimate_tokens(cut.messages) < estimate_tokens(separate_markers(history)):
            assert event.restored_messages > 0


def _shape(messages) -> list:
    """What the model reads (markers are rebuilt with a fresh timestamp on every cut)."""
    return [(type(m).__name__, [(getattr(p, "part_kind", ""), part_text(p)) for p in m.parts]) for m in messages]


def _event(reason="token_budget", strategy="turn_trim") -> HistoryTrimmed:
    return HistoryTrimmed(reason=reason, strategy=strategy)  # type: ignore[arg-type]


@settings(max_examples=examples(300))
@given(st.lists(st.sampled_from(["cut", "pass", "clear", "old"]), min_size=0, max_size=12), st.data())
def test_repeated_undo_walks_back_through_the_ledger(kinds, data):
    """Each undo goes to a cut strictly older than the one before, never to a clear, an undo, or
    a cut whose context was not kept; the events of one pass are undone together."""
    ledger: list[HistoryTrimmed] = []
    records: list[CutRecord] = []
    for kind in kinds:
        if kind == "clear":
            ledger.append(_event("clear"))
            records.append(CutRecord())
        elif kind == "old":
            ledger.append(_event())
            records.append(CutRecord())
        elif kind == "pass" and records and records[-1].before is not None:
            ledger.append(_event(strategy="tool_output_trim"))
            records.append(CutRecord(before=records[-1].before))  # same pass: same object
        else:
            ledger.append(_event())
            records.append(CutRecord(before=()))
    frozen = (list(ledger), list(records))
    previous = len(ledger)
    while True:
        try:
            target = undo_target(ledger, records)
        except UndoRefused as refused:
            assert refusal_line(refused).startswith("nothing")
            break
        assert target < previous
        assert records[target].before is not None and ledger[target].reason not in ("clear", "restore")
        assert target == 0 or records[target - 1].before is not records[target].before
        ledger.append(_event("restore"))
        records.append(CutRecord(undoes=target))
        previous = target
    assert (ledger[: len(frozen[0])], records[: len(frozen[1])]) == frozen
    with pytest.raises(UndoRefused):
        undo_target(ledger, records, data.draw(st.integers(0, len(ledger))))


def _pins_of(history, choice: list[bool]) -> frozenset[str]:
    turns = segment(separate_markers(history)).turns
    keys = [turn_key(t.messages[0]) for t in turns if t.has_prompt]
    return frozenset(k for k, pick in zip(keys, choice, strict=False) if pick and k is not None)


def _pinned_turns(history, pins):
    return [
        t.messages for t in segment(separate_markers(history)).turns if t.has_prompt and turn_key(t.messages[0]) in pins
    ]


def _governor(
    history, fraction: float, max_messages: int, strategy: str, pins, failing: bool, *, trim_chars: int = 2000
) -> Governor:
    """A governor over `pins` with a budget of `fraction` of `history`'s tokens (at least 1)."""
    budget = max(1, int(estimate_tokens(history) * fraction))
    policy = GovernancePolicy(
        budget_tokens=budget, max_history_messages=max_messages, strategy=strategy, tool_output_trim_chars=trim_chars
    )
    return Governor(policy, summarizer_model=_summariser(failing), pins=pins)


def _assert_pinned_kept(pinned_turns, messages):
    """Every pinned turn is in `messages`: the same objects, contiguous, in order."""
    ids = [id(m) for m in messages]
    last = -1
    for turn in pinned_turns:
        start = ids.index(id(turn[0]))
        assert ids[start : start + len(turn)] == [id(m) for m in turn], "a pinned turn was cut or reordered"
        assert start > last, "pinned turns out of order"
        last = start


@settings(max_examples=examples(400))
@given(
    histories(),
    st.lists(st.booleans(), min_size=6, max_size=6),
    st.floats(0.0, 1.2),
    st.sampled_from([0, 2, 4, 16]),
    st.sampled_from(["summarize", "trim"]),
    st.booleans(),
    st.sampled_from([0, 200]),
)
def test_pins_survive_every_rule(history, choice, fraction, max_messages, strategy, failing, trim_chars):
    """Tool-output trim, turn trim, step shrink, summary (or its static marker), overflow recovery
    and /compact: a pinned turn comes out verbatim, and calls stay paired. Nothing is mutated."""
    pins = _pins_of(history, choice)
    pinned = _pinned_turns(history, pins)
    frozen = fingerprint(history)
    governor = _governor(history, fraction, max_messages, strategy, pins, failing, trim_chars=trim_chars)
    budget = governor.policy.budget_tokens
    out = run(governor.apply(history))
    _assert_pinned_kept(pinned, out.messages)
    assert len(check_pairing(out.messages)) <= len(check_pairing(history))
    overflow, _ = governor.recover_overflow(history, shrink_done=False)
    _assert_pinned_kept(pinned, overflow.messages)
    shrunk, _ = governor.recover_overflow(history, shrink_done=True)
    _assert_pinned_kept(pinned, shrunk.messages)
    if not failing:
        try:
            compacted = run(compact_around_pins(history, pins, _summariser(False), budget_tokens=budget))
            _assert_pinned_kept(pinned, compacted.messages)
        except SummaryRejected:  # the inflation guard: a summary no smaller than a tiny history
            pass
    assert fingerprint(history) == frozen, "input mutated"


@settings(max_examples=examples(300))
@given(histories(), st.lists(st.booleans(), min_size=6, max_size=6))
def test_split_then_reinsert_is_the_identity(history, choice):
    """With nothing cut, taking the pinned turns out and putting them back gives the context back."""
    pins = _pins_of(history, choice)
    split = split_pinned(history, pins)
    assert reinsert(split.rest, split) == separate_markers(history)
    assert split.tokens == sum(estimate_tokens(t) for t in _pinned_turns(history, pins))


def test_pins_leave_no_room_is_reported_with_the_figures():
    history = [*tool_turn("read it", [_text("prose", 6000, 0)]), *chat_turn("newest", "ok")]
    pins = frozenset({turn_key(history[0])})
    tokens, newest, fits = pin_room(history, pins, target_tokens=100)
    assert tokens > 900 and newest > 0 and not fits
    assert pin_room(history, pins, target_tokens=tokens + newest)[2]
