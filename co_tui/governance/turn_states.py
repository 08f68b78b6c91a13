"""What the history inspector says of each message's status, and of each user turn as a whole.

`annotate_history` (governance/inspect.py) gives every transcript message a `Status`; this module
holds the words shown for each (`STATUS_LABELS`, derived from `Status`, so a status governance
never emits has no label) and how a turn's statuses add up to one `TurnState` — fully in the
context, partly, summarised or dropped — with its tokens (`turn_bars`, the chart's bars). Pure, no
pydantic-ai: the inspector's widgets import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, Protocol, get_args

__all__ = ["STATUS_LABELS", "Status", "TurnBar", "TurnState", "status_label", "turn_bars", "turn_state"]

Status = Literal["in_context", "truncated", "summarised", "dropped", "evicted", "next_to_go"]
TurnState = Literal["in_context", "partial", "summarised", "dropped"]

# Status → what the inspector's tables say ("truncated": a tool output the model sees shortened).
STATUS_LABELS: dict[str, str] = {
    status: {"truncated": "output truncated"}.get(status, status.replace("_", " ")) for status in get_args(Status)
}
# The statuses of a message the model still sees, whole or in part.
_SEEN: frozenset[str] = frozenset({"in_context", "truncated", "next_to_go"})


@dataclass(frozen=True)
class TurnBar:
    """One user turn: its estimated tokens and whether it is in the model's context."""

    turn: int
    tokens: int
    state: TurnState


class _Row(Protocol):
    @property
    def turn(self) -> int: ...
    @property
    def tokens(self) -> int: ...
    @property
    def status(self) -> str: ...


def status_label(status: str) -> str:
    """The words shown for a status value (unknown values are shown as they come, de-underscored)."""
    return STATUS_LABELS.get(status, status.replace("_", " "))


def turn_state(statuses: Iterable[str]) -> TurnState:
    """A turn's state from its messages' statuses: all seen by the model → `in_context`; some →
    `partial`; none → `summarised` when a summary covers any of them, else `dropped`."""
    statuses = set(statuses)
    seen = {status in _SEEN for status in statuses}
    if seen == {True}:
        return "in_context"
    if True in seen:
        return "partial"
    return "summarised" if "summarised" in statuses else "dropped"


def turn_bars(rows: Iterable[_Row]) -> tuple[TurnBar, ...]:
    """Tokens and context state per user turn of annotated `rows` (turn 0, the preamble, is left out)."""
    tokens: dict[int, int] = {}
    statuses: dict[int, set[str]] = {}
    for row in rows:
        if row.turn <= 0:
            continue
        tokens[row.turn] = tokens.get(row.turn, 0) + row.tokens
        statuses.setdefault(row.turn, set()).add(row.status)
    return tuple(TurnBar(turn, tokens[turn], turn_state(statuses[turn])) for turn in sorted(tokens))
