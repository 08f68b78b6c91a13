"""Planning how the user steers the context: undo a cut (`/undo`, `u`) and pin a turn (`/pin`, `p`).

Pure over a `HistoryReader` (a read-only `History`) and a `Gauge`: each planner returns the `Edit` that `ChatSession` applies, or
raises a `Refused` with one line. The rules are in `governance/undo.py` and
`governance/pins.py`, the rows in `co_tui/store/steering_rows.py` (docs/context-governance.md, "Undo a cut"
and "Pins").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from pydantic_ai.messages import ModelMessage, repair_messages

from co_tui.governance.markers import separate_markers, tag_fused_markers
from co_tui.governance.pins import pin_room, pinned_tokens, split_pinned, turn_key
from co_tui.governance.refused import PinRefused
from co_tui.governance.turns import segment
from co_tui.governance.undo import (
    CutRecord,
    UndoRefused,
    cut_position,
    pass_span,
    span_label,
    undo_event,
    undo_target,
    undone_context,
)
from co_tui.session.banner import undo_note
from co_tui.session.history import Edit
from co_tui.session.pin_change import PinChange
from co_tui.session.wording import worded_refusals

if TYPE_CHECKING:
    from co_tui.session.gauge import Gauge
    from co_tui.session.history_reader import HistoryReader

__all__ = ["PinChange", "PinRefused", "pin_keys", "plan_pin_newest", "plan_toggle_pin", "plan_undo"]


# --- undo ----------------------------------------------------------------------------------------


def plan_undo(history: HistoryReader, gauge: Gauge, cut: int | None = None) -> Edit:
    """Undo the newest cut still in effect, or ledger entry `cut` (0-based) and every cut after it —
    with the other events of its pass, which share its context (`undo.pass_span`): the note and a
    refusal name them all (`trims #3–4 (one pass)`), never only the pass's first.

    The context becomes the one before that cut plus every transcript message since (repaired so
    calls stay paired), with one `restore` event. Raises `UndoRefused` (one line) when nothing is
    left to undo, or when the restored context would not fit: the line names what it would not fit
    — the token budget, the message limit, or both — with the figures.
    """
    ledger, records, positions = history.ledger, history.ledger_records, history.ledger_positions
    with worded_refusals():
        target = undo_target(ledger, records, cut)
    first, last = pass_span(records, target if cut is None else cut)
    before = records[target].before
    assert before is not None  # undo_target only returns cuts with their context kept
    position = cut_position(before, history.transcript, positions[target])
    restored = tag_fused_markers(repair_messages(undone_context(before, history.transcript, position)))
    tokens_before = gauge.meter.reading(history.context).tokens
    tokens_after = gauge.meter.reading(restored).tokens
    too_many, too_large = gauge.governor.limits_crossed(restored, overhead_tokens=gauge.overhead_tokens)
    if too_many or too_large or tokens_after > gauge.budget_tokens:
        why = _would_not_fit(gauge, tokens_after, len(separate_markers(restored)), too_many=too_many)
        raise UndoRefused(
            f"cannot undo {span_label(first, last)}: the restored context would {why} — the next request "
            "would cut it again"
        )
    event = undo_event(
        ledger[target],
        current=history.context,
        restored=restored,
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        budget_tokens=gauge.budget_tokens,
        cut_number=target + 1,
    )
    if event.salvaged_item is None and ledger[target].salvaged_item is None:
        event = replace(event, note=undo_note(first + 1, ledger[first : last + 1]))
    return Edit(event=event, context=restored, record=CutRecord(undoes=target))


def _would_not_fit(gauge: Gauge, tokens: int, messages: int, *, too_many: bool) -> str:
    """What a restored context of `tokens` (the meter's figure) and `messages` (as the meter counts)
    would not fit: the message limit when that is the trigger it crosses, the token budget otherwise
    (the governor counts the request's overhead too, so it may fire below the budget's figure)."""
    budget, limit = gauge.budget_tokens, gauge.max_messages
    over_limit = f"{messages} messages, over the {limit}-message limit"
    over_budget = f"~{tokens:,} tokens, over the {budget:,}-token budget"
    if too_many and tokens > budget:
        return f"hold {over_limit}, and need {over_budget}"
    if too_many:
        return f"hold {over_limit} (its ~{tokens:,} tokens are within the {budget:,}-token budget)"
    if tokens > budget:
        return f"need {over_budget}"
    return (
        f"need ~{tokens:,} tokens, which with the instructions and tool schemas is over what the "
        f"{budget:,}-token budget leaves for messages"
    )


# --- pins ----------------------------------------------------------------------------------------


def pin_keys(transcript: Sequence[ModelMessage], pins: Sequence[int]) -> frozenset[str]:
    """The governance keys (`pins.turn_key`) of the turns whose prompts are transcript `pins`."""
    keys = (turn_key(transcript[i]) for i in pins if 0 <= i < len(transcript))
    return frozenset(k for k in keys if k is not None)


def _turn_of(transcript: Sequence[ModelMessage], index: int) -> tuple[int, int]:
    """(1-based turn number, transcript index of its prompt) of the turn holding message `index`."""
    for number, turn in enumerate((t for t in segment(transcript).turns if t.has_prompt), 1):
        if index in turn.indices:
            return number, turn.indices[0]
    raise PinRefused("that message belongs to no user turn (the system prompt is always sent)")


def plan_toggle_pin(history: HistoryReader, gauge: Gauge, index: int) -> Edit:
    """Pin the turn holding transcript message `index`, or unpin it when pinned. The edit's
    `result` is the `PinChange`. Raises `PinRefused` (one line) for a turn the context no longer
    holds, or when the pinned turns plus the newest turn would exceed the low-water mark a cut aims at.
    """
    turn, prompt = _turn_of(history.transcript, index)
    if prompt in history.pins:
        return _pins_edit(history, [p for p in history.pins if p != prompt], turn, pinned=False)
    return _plan_pin(history, gauge, prompt, turn)


def plan_pin_newest(history: HistoryReader, gauge: Gauge) -> Edit:
    """`/pin`: pin the newest user turn (already pinned: nothing changes). Raises `PinRefused`."""
    turns = [t for t in segment(history.transcript).turns if t.has_prompt]
    if not turns:
        raise PinRefused("nothing to pin yet: send a message first")
    prompt = turns[-1].indices[0]
    if prompt in history.pins:
        tokens = pinned_tokens(history.context, pin_keys(history.transcript, history.pins))
        return Edit(result=PinChange(len(turns), True, tokens))
    return _plan_pin(history, gauge, prompt, len(turns))


def _plan_pin(history: HistoryReader, gauge: Gauge, prompt: int, turn: int) -> Edit:
    key = turn_key(history.transcript[prompt])
    in_context = key is not None and key in {turn_key(m) for m in split_pinned(history.context, frozenset()).rest}
    if not in_context:
        raise PinRefused(
            f"turn {turn} is not in the context any more (dropped or summarised): /undo brings it back, then pin it"
        )
    pins = [*history.pins, prompt]
    target = gauge.governor.target_tokens(gauge.overhead_tokens)
    tokens, newest, fits = pin_room(history.context, pin_keys(history.transcript, pins), target)
    if not fits:
        raise PinRefused(
            f"cannot pin turn {turn}: pinned turns would hold ~{tokens:,} tokens and the newest turn ~{newest:,}, "
            f"over the {target:,}-token mark a cut aims at — nothing else could ever be cut"
        )
    return _pins_edit(history, pins, turn, pinned=True)


def _pins_edit(history: HistoryReader, pins: list[int], turn: int, *, pinned: bool) -> Edit:
    tokens = pinned_tokens(history.context, pin_keys(history.transcript, pins))
    return Edit(pins=sorted(pins), result=PinChange(turn, pinned, tokens))
