"""Pinned turns: turns no rule may drop, summarise or truncate (docs/context-governance.md, "Pins").

A pin names a turn by a key of its user prompt (the prompt part's timestamp and text), which
survives every copy governance or pydantic-ai makes of the request. Every rule runs on the context
with its pinned turns taken out (`split_pinned`); their tokens count as fixed overhead, like the
instructions; then `reinsert` puts each pinned turn back where it stood, splitting a breadcrumb
whose cut messages lie on both sides of it, so the model reads the history in order. So the
head/tail rules work around a pinned turn without knowing about it, and a pinned turn comes back
verbatim: the very same message objects.
Pure: nothing here mutates its inputs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from co_tui.governance.markers import (
    make_breadcrumb,
    make_static_marker,
    marker_info,
    separate_markers,
    with_pinned_note,
)
from co_tui.governance.tokens import estimate_tokens
from co_tui.governance.turns import segment, starts_turn

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from co_tui.governance.events import HistoryTrimmed
    from co_tui.governance.summarize import CompactResult

__all__ = [
    "turn_key",
    "PinSplit",
    "split_pinned",
    "reinsert",
    "pinned_tokens",
    "pin_room",
    "compact_around_pins",
    "with_pinned_kept",
]


def turn_key(message: ModelMessage) -> str | None:
    """The pin key of the turn `message` starts (its first user prompt part), else None."""
    if not isinstance(message, ModelRequest) or not starts_turn(message):
        return None
    for part in message.parts:
        if isinstance(part, UserPromptPart):
            content = part.content
            text = content if isinstance(content, str) else repr(content)
            digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]
            return f"{part.timestamp.isoformat()}|{digest}"
    return None


@dataclass(frozen=True)
class _Pinned:
    messages: tuple[ModelMessage, ...]
    at: int  # where it stood in `PinSplit.rest`: right before rest[at] (at == len(rest): at the end)


@dataclass(frozen=True)
class PinSplit:
    """A context taken apart: `rest` (what the rules may cut) and the pinned turns with their tokens."""

    rest: list[ModelMessage]
    pinned: tuple[_Pinned, ...] = ()
    tokens: int = 0
    keys: frozenset[str] = field(default_factory=frozenset)


def split_pinned(messages: Sequence[ModelMessage], pins: frozenset[str]) -> PinSplit:
    """Take the turns whose key is in `pins` out of `messages` (markers separated first)."""
    current = separate_markers(messages)
    if not pins:
        return PinSplit(current)
    turns = segment(current).turns
    keys = [turn_key(t.messages[0]) if t.has_prompt else None for t in turns]
    pinned_at = [i for i, key in enumerate(keys) if key is not None and key in pins]
    if not pinned_at:
        return PinSplit(current)
    out_indices = {j for i in pinned_at for j in turns[i].indices}
    rest = [m for j, m in enumerate(current) if j not in out_indices]
    pinned = tuple(
        _Pinned(tuple(turns[i].messages), sum(1 for j in range(turns[i].indices[-1] + 1) if j not in out_indices))
        for i in pinned_at
    )
    tokens = sum(estimate_tokens(p.messages) for p in pinned)
    return PinSplit(rest, pinned, tokens, frozenset(k for i in pinned_at if (k := keys[i]) is not None))


def reinsert(messages: Sequence[ModelMessage], split: PinSplit) -> list[ModelMessage]:
    """`messages` (what the rules made of `split.rest`) with the pinned turns back where they stood,
    so the model reads history in order (docs/context-governance.md, "Pins").

    Each pinned turn goes before the first message of `messages` that stands for rest messages
    after it: a kept message (the same object, or a turn with the same key), or a marker this cut
    made, which stands for the rest messages between its kept neighbours. A breadcrumb or static
    marker whose cut messages lie on both sides of a pinned turn is split there into one marker per
    side, each with its side's counts (the total unchanged). A summary cannot be split: the pinned
    turns from among its messages follow it, and its first line says how many. At the end when
    nothing later is left; pinned turns keep their original order.
    """
    if not split.pinned:
        return list(messages)
    rest = split.rest
    spans = _spans(messages, rest)
    waiting = list(split.pinned)  # in their original order, so `at` never decreases
    out: list[ModelMessage] = []
    for message, (low, high) in zip(messages, spans, strict=True):
        while waiting and waiting[0].at <= low:
            out.extend(waiting.pop(0).messages)
        inside = [p for p in waiting if p.at <= high]
        info = marker_info(message) if inside and high >= low else None
        if info is not None and info.kind in ("breadcrumb", "static"):
            start, left_messages, left_turns = low, info.messages, info.turns
            for pinned in inside:
                messages_before, turns_before = _counts(rest[start : pinned.at])
                if messages_before or turns_before:
                    out.append(_crumb(info.kind, messages_before, turns_before))
                    left_messages, left_turns = left_messages - messages_before, left_turns - turns_before
                out.extend(pinned.messages)
                start = pinned.at
            waiting = waiting[len(inside) :]
            message = _crumb(info.kind, left_messages, left_turns)
        elif info is not None and info.kind in ("summary", "compact"):
            message = with_pinned_note(message, len(inside))
        out.append(message)
    for pinned in waiting:
        out.extend(pinned.messages)
    return out


def _spans(messages: Sequence[ModelMessage], rest: Sequence[ModelMessage]) -> list[tuple[int, int]]:
    """For each of `messages`, the positions in `rest` it stands for, (low, high) inclusive: a kept
    message its own (p, p); a marker the cut made, the rest messages between its kept neighbours; a
    changed copy (a truncated tool output, a lifted system prompt) goes with the kept message before
    it, (p, p) (-1 at the start)."""
    by_id = {id(m): i for i, m in enumerate(rest)}
    by_key: dict[str, int] = {}
    for i, message in enumerate(rest):
        if (key := turn_key(message)) is not None:
            by_key.setdefault(key, i)
    kept: list[int | None] = []
    for message in messages:
        found = by_id.get(id(message))
        if found is None and (key := turn_key(message)) is not None:
            found = by_key.get(key)
        kept.append(found)
    after: list[int] = [len(rest)] * len(messages)  # the next kept position after each message
    upcoming = len(rest)
    for i in range(len(messages) - 1, -1, -1):
        after[i] = upcoming
        if (found := kept[i]) is not None:
            upcoming = found
    spans: list[tuple[int, int]] = []
    previous = -1
    for i, message in enumerate(messages):
        if (found := kept[i]) is not None:
            spans.append((found, found))
            previous = found
        elif marker_info(message) is not None:
            spans.append((previous + 1, after[i] - 1))
        else:
            spans.append((previous, previous))
    return spans


def _counts(messages: Sequence[ModelMessage]) -> tuple[int, int]:
    """(messages, turns) that `messages` stand for once cut: a marker its own counts, every other
    message one, every turn it opens one — as the rules count a cut's breadcrumb."""
    layout = segment(messages)
    return sum(len(t) for t in layout.turns) + layout.prior_messages, len(layout.turns) + layout.prior_turns


def _crumb(kind: str, messages: int, turns: int) -> ModelMessage:
    return make_static_marker(messages, turns) if kind == "static" else make_breadcrumb(messages, turns)


def pinned_tokens(messages: Sequence[ModelMessage], pins: frozenset[str]) -> int:
    """Estimated tokens of the pinned turns of `messages`."""
    return split_pinned(messages, pins).tokens if pins else 0


def pin_room(messages: Sequence[ModelMessage], pins: frozenset[str], target_tokens: int) -> tuple[int, int, bool]:
    """Whether `pins` leave room: (pinned tokens, newest turn's tokens when not pinned, fits).

    Fits when the pinned turns plus the newest turn stay within `target_tokens` (the low-water mark
    a cut aims at): otherwise no cut could ever bring the context back under it.
    """
    split = split_pinned(messages, pins)
    turns = segment(split.rest).turns
    newest = estimate_tokens(turns[-1].messages) if turns else 0
    return split.tokens, newest, split.tokens + newest <= target_tokens


async def compact_around_pins(
    messages: Sequence[ModelMessage],
    pins: frozenset[str],
    model: Model | str,
    focus: str | None = None,
    *,
    budget_tokens: int = 0,
    overhead_tokens: int = 0,
    instructions: str | None = None,
    instructions_from: Sequence[str] = ("co-tui",),
) -> CompactResult:
    """`/compact` that leaves the pinned turns out of the summary and keeps them verbatim where they
    stood: after it (its first line says how many) unless nothing before them was compacted.

    Same contract as `summarize.compact` otherwise; the event's token figures include the pinned turns.
    """
    from co_tui.governance.summarize import COMPACT_INSTRUCTIONS, compact

    split = split_pinned(messages, pins)
    result = await compact(
        split.rest,
        model,
        focus,
        budget_tokens=budget_tokens,
        overhead_tokens=overhead_tokens + split.tokens,
        instructions=instructions or COMPACT_INSTRUCTIONS,
        instructions_from=instructions_from,
    )
    if not split.pinned:
        return result
    event = None if result.event is None else with_pinned_kept([result.event], split)[0]
    return replace(result, messages=reinsert(result.messages, split), event=event)


def with_pinned_kept(events: Sequence[HistoryTrimmed], split: PinSplit) -> list[HistoryTrimmed]:
    """`events` of a cut made around `split`'s pinned turns, their `kept_turns` counting the pinned
    turns too: the rules saw only the rest, and a banner said "kept 0 turns" after a /compact that
    kept a pinned turn. Never mutates its inputs."""
    if not split.pinned:
        return list(events)
    return [replace(e, kept_turns=e.kept_turns + len(split.pinned)) for e in events]
