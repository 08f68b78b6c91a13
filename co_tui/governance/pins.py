"""Pinned turns: turns no rule may drop, summarise or truncate (docs/context-governance.md, "Pins").

A pin names a turn by a key of its user prompt (the prompt part's timestamp and text), which
survives every copy governance or pydantic-ai makes of the request. Every rule runs on the context
with its pinned turns taken out (`split_pinned`); their tokens count as fixed overhead, like the
instructions; then `reinsert` puts each pinned turn back before the first later turn that is still
there (at the end when none is). So the head/tail rules work around a pinned turn without
knowing about it, and a pinned turn comes back verbatim: the very same message objects.
Pure: nothing here mutates its inputs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from co_tui.governance.markers import separate_markers
from co_tui.governance.tokens import estimate_tokens
from co_tui.governance.turns import segment, starts_turn

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from co_tui.governance.summarize import CompactResult

__all__ = ["turn_key", "PinSplit", "split_pinned", "reinsert", "pinned_tokens", "pin_room", "compact_around_pins"]


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
    later: tuple[ModelMessage, ...]  # the unpinned messages after it, oldest first


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
        _Pinned(
            tuple(turns[i].messages),
            tuple(m for j, m in enumerate(current) if j > turns[i].indices[-1] and j not in out_indices),
        )
        for i in pinned_at
    )
    tokens = sum(estimate_tokens(p.messages) for p in pinned)
    return PinSplit(rest, pinned, tokens, frozenset(k for i in pinned_at if (k := keys[i]) is not None))


def reinsert(messages: Sequence[ModelMessage], split: PinSplit) -> list[ModelMessage]:
    """`messages` (what the rules made of `split.rest`) with the pinned turns back in place: each
    before the first later message still present (the same object, or a turn with the same key),
    else at the end, in their original order."""
    if not split.pinned:
        return list(messages)
    by_id: dict[int, int] = {}
    by_key: dict[str, int] = {}
    for i, message in enumerate(messages):
        by_id.setdefault(id(message), i)
        key = turn_key(message)
        if key is not None:
            by_key.setdefault(key, i)

    def where(message: ModelMessage) -> int | None:
        if id(message) in by_id:
            return by_id[id(message)]
        key = turn_key(message)
        return by_key.get(key) if key is not None else None

    anchored: dict[int, list[ModelMessage]] = {}
    for pinned in split.pinned:
        found = (where(m) for m in pinned.later)
        at = next((i for i in found if i is not None), len(messages))
        anchored.setdefault(at, []).extend(pinned.messages)
    out: list[ModelMessage] = []
    for i, message in enumerate(messages):
        out.extend(anchored.get(i, ()))
        out.append(message)
    out.extend(anchored.get(len(messages), ()))
    return out


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
) -> CompactResult:
    """`/compact` that leaves the pinned turns out of the summary and keeps them, verbatim, after it.

    Same contract as `summarize.compact` otherwise; the event's token figures include the pinned turns.
    """
    from co_tui.governance.summarize import compact

    split = split_pinned(messages, pins)
    result = await compact(
        split.rest, model, focus, budget_tokens=budget_tokens, overhead_tokens=overhead_tokens + split.tokens
    )
    if not split.pinned:
        return result
    return replace(result, messages=reinsert(result.messages, split))
