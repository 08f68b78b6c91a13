"""The user steers the context: undo a cut (`/undo`, `u`) and pin a turn (`/pin`, `p`).

`ChatSession.restore`, `toggle_pin` and `pin_newest` call these; the pure parts are in
`governance/restore.py` and `governance/pins.py`, the rows in `store_steering.py`
(docs/context-governance.md, "Undo a cut" and "Pins").
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.session.chat import ChatSession


class PinRefused(Exception):
    """A pin that cannot be set; `str()` is the one line the user sees."""


@dataclass(frozen=True)
class PinChange:
    """What a pin toggle did: `turn` (1-based) is now `pinned` or not; `pinned_tokens` are all the
    pinned turns' tokens now."""

    turn: int
    pinned: bool
    pinned_tokens: int

    def describe(self) -> str:
        """The one line shown to the user."""
        from co_tui.text import format_tokens

        if self.pinned:
            return (
                f"pinned turn {self.turn}: no cut will drop, summarise or shorten it "
                f"(pinned: ~{format_tokens(self.pinned_tokens)} tokens)"
            )
        return f"unpinned turn {self.turn} (pinned: ~{format_tokens(self.pinned_tokens)} tokens)"


# --- undo ----------------------------------------------------------------------------------------


def _refusal(session: ChatSession, target: int, cut: int | None, restored: list[Any], tokens: int) -> str:
    """The one line of a refused undo: which cuts it would have undone (a pass is undone whole:
    `u` on trim #4 of a pass that began at #3 said `cannot undo trim #3`) and the limit it would
    break: the message limit, the token budget, or both (it blamed the budget for the message limit)."""
    from co_tui.governance.restore import undoable_cuts
    from co_tui.session.chat import _shown_count

    chosen = cut if cut is not None else undoable_cuts(session.ledger, session.ledger_records)[-1]
    what = f"trim #{target + 1}" if chosen <= target else f"trims #{target + 1}–#{chosen + 1} (one pass, undone whole)"
    budget, limit, count = session.policy.budget_tokens, session.policy.max_history_messages, _shown_count(restored)
    reasons = []
    if limit and count > limit:
        reasons.append(f"{count} messages, over the limit of {limit}")
    if tokens > budget:
        reasons.append(f"~{tokens:,} tokens, over the {budget:,}-token budget")
    if not reasons:  # the meter's count is under, governance's is over: say so in its terms
        reasons.append(f"~{tokens:,} tokens, at the {budget:,}-token budget as governance counts it")
    return f"cannot undo {what}: the restored context would hold {' and '.join(reasons)} — the next request would cut it again"


async def restore(session: ChatSession, cut: int | None = None) -> HistoryTrimmed:
    """Undo the newest cut still in effect, or ledger entry `cut` (0-based) and every cut after it.

    The context becomes the one before that cut plus every transcript message since (repaired so
    calls stay paired); the `restore` event is recorded in the ledger and saved (in a thread).
    Raises `UndoRefused` (one line) when busy, when nothing is left to undo, or when the restored
    context would not fit the budget or the message limit.
    """
    from pydantic_ai.messages import repair_messages

    from co_tui.governance.markers import tag_fused_markers
    from co_tui.governance.restore import (
        CutRecord,
        UndoRefused,
        cut_position,
        restore_event,
        restored_context,
        undo_target,
    )

    if session.busy:
        raise UndoRefused("wait for the running turn to finish (or press Esc) before undoing a cut")
    target = undo_target(session.ledger, session.ledger_records, cut)
    before = session.ledger_records[target].before
    assert before is not None  # undo_target only returns cuts with their context kept
    position = cut_position(before, session.transcript, session.ledger_positions[target])
    restored = tag_fused_markers(repair_messages(restored_context(before, session.transcript, position)))
    reading_before = session.meter.reading(session.context)
    reading_after = session.meter.reading(restored)
    budget = session.policy.budget_tokens
    governor = session.governance.governor
    if reading_after.tokens > budget or governor.over_limits(restored, overhead_tokens=session.overhead_tokens):
        raise UndoRefused(_refusal(session, target, cut, restored, reading_after.tokens))
    event = restore_event(
        session.ledger[target],
        current=session.context,
        restored=restored,
        tokens_before=reading_before.tokens,
        tokens_after=reading_after.tokens,
        budget_tokens=budget,
        cut_number=target + 1,
    )
    if event.salvaged_item is None and session.ledger[target].salvaged_item is None:
        from co_tui.session.banner import restore_note

        event = replace(event, note=restore_note(target + 1, session.ledger[target]))
    session.context = restored
    trim = session._apply_trim(event, CutRecord(undoes=target))
    save_error = await asyncio.to_thread(session._save, None)
    if save_error is not None:  # done in memory; the banner says it is not saved (nothing is lost)
        trim = replace(trim, note=f"{trim.note}; {save_error.message}")
        session.ledger[-1] = trim
    return trim


# --- pins ----------------------------------------------------------------------------------------


def pin_keys(transcript: Sequence[ModelMessage], pins: list[int]) -> frozenset[str]:
    """The governance keys (`pins.turn_key`) of the turns whose prompts are transcript `pins`."""
    from co_tui.governance.pins import turn_key

    keys = (turn_key(transcript[i]) for i in pins if 0 <= i < len(transcript))
    return frozenset(k for k in keys if k is not None)


def _turn_of(transcript: Sequence[ModelMessage], index: int) -> tuple[int, int]:
    """(1-based turn number, transcript index of its prompt) of the turn holding message `index`."""
    from co_tui.governance.turns import segment

    for number, turn in enumerate((t for t in segment(transcript).turns if t.has_prompt), 1):
        if index in turn.indices:
            return number, turn.indices[0]
    raise PinRefused("that message belongs to no user turn (the system prompt is always sent)")


def toggle_pin(session: ChatSession, index: int) -> PinChange:
    """Pin the turn holding transcript message `index`, or unpin it when pinned; saved at once.

    Raises `PinRefused` (one line) when busy, for a turn the context no longer holds, or when the
    pinned turns plus the newest turn would exceed the low-water mark a cut aims at.
    """
    if session.busy:
        raise PinRefused("wait for the running turn to finish before pinning")
    turn, prompt = _turn_of(session.transcript, index)
    pins = list(session.pins)
    if prompt in pins:
        pins.remove(prompt)
        return _set_pins(session, pins, prompt, turn, pinned=False)
    return _pin(session, pins, prompt, turn)


def pin_newest(session: ChatSession) -> PinChange:
    """`/pin`: pin the newest user turn (already pinned: nothing changes). Raises `PinRefused`."""
    from co_tui.governance.turns import segment

    if session.busy:
        raise PinRefused("wait for the running turn to finish before pinning")
    turns = [t for t in segment(session.transcript).turns if t.has_prompt]
    if not turns:
        raise PinRefused("nothing to pin yet: send a message first")
    prompt = turns[-1].indices[0]
    if prompt in session.pins:
        from co_tui.governance.pins import pinned_tokens

        tokens = pinned_tokens(session.context, pin_keys(session.transcript, session.pins))
        return PinChange(len(turns), True, tokens)
    return _pin(session, list(session.pins), prompt, len(turns))


def _pin(session: ChatSession, pins: list[int], prompt: int, turn: int) -> PinChange:
    from co_tui.governance.pins import pin_room, split_pinned, turn_key

    key = turn_key(session.transcript[prompt])
    in_context = key is not None and key in {turn_key(m) for m in split_pinned(session.context, frozenset()).rest}
    if not in_context:
        raise PinRefused(
            f"turn {turn} is not in the context any more (dropped or summarised): /undo brings it back, then pin it"
        )
    keys = pin_keys(session.transcript, [*pins, prompt])
    target = session.governance.governor.target_tokens(session.overhead_tokens)
    tokens, newest, fits = pin_room(session.context, keys, target)
    if not fits:
        raise PinRefused(
            f"cannot pin turn {turn}: pinned turns would hold ~{tokens:,} tokens and the newest turn ~{newest:,}, "
            f"over the {target:,}-token mark a cut aims at — nothing else could ever be cut"
        )
    return _set_pins(session, sorted([*pins, prompt]), prompt, turn, pinned=True)


def _set_pins(session: ChatSession, pins: list[int], prompt: int, turn: int, *, pinned: bool) -> PinChange:
    from co_tui.governance.pins import pinned_tokens
    from co_tui.session.store import StoreError

    if session.store is not None and session._persisted:
        try:
            session.store.set_pin(session.id, prompt, pinned)
        except StoreError as exc:  # nothing changes: the pin would not survive a resume
            raise PinRefused(f"{exc} (the pin was not changed)") from None
    session.pins = pins
    keys = pin_keys(session.transcript, pins)
    session.governance.set_pins(keys)
    return PinChange(turn, pinned, pinned_tokens(session.context, keys))
