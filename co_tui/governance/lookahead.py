"""The meter's look-ahead: roughly how many more user turns fit before governance's next cut.

Once the context is past half of a limit, the meter says `≈3 turns to trim`, so a cut is expected
rather than a surprise. The forecast is the room left under each trigger (the token budget, the
message limit) divided by what a recent turn added, on average. See docs/context-governance.md
("The meter looks ahead").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic_ai.messages import ModelMessage

from co_tui.governance.markers import separate_markers
from co_tui.governance.tokens import estimate_tokens
from co_tui.governance.turns import segment

__all__ = ["RECENT_TURNS", "SHOW_FROM", "TurnGrowth", "turn_growth", "turns_until_cut"]

RECENT_TURNS = 5  # how many of the newest turns the mean growth is taken over
SHOW_FROM = 0.5  # the forecast is given once the context is past this share of a limit


@dataclass(frozen=True)
class TurnGrowth:
    """What a recent user turn added to the context, on average, and the turns' message total."""

    tokens: float  # estimated tokens of the largest recent turn (what the next one may add)
    messages: float  # mean messages of the recent turns
    turn_messages: int  # messages in all the history's turns (what the message-count trigger counts)


def turn_growth(messages: Sequence[ModelMessage], *, recent: int = RECENT_TURNS) -> TurnGrowth | None:
    """The growth of a user turn, from the newest `recent` turns of `messages` (markers and the
    system prefix are not turns), or None when there is no turn yet. Never mutates `messages`.

    Tokens: the largest of those turns, tool outputs included, not their mean: a `read` between
    chats added far more than the mean, and the meter said `≈3 turns to trim` one read before the
    cut (issue 32). Messages: their mean (turns add messages evenly)."""
    layout = segment(separate_markers(messages))
    turns = layout.turns[-recent:] if recent > 0 else []
    if not turns:
        return None
    return TurnGrowth(
        tokens=max(estimate_tokens(t.messages) for t in turns),
        messages=sum(len(t) for t in turns) / len(turns),
        turn_messages=sum(len(t) for t in layout.turns),
    )


def _turns_left(used: float, limit: float, per_turn: float) -> int | None:
    """Turns until `used` passes `limit` growing by `per_turn` each: the turns that still fit, plus
    the one that crosses (its request is the one cut). None when unlimited or not growing."""
    if limit <= 0 or per_turn <= 0:
        return None
    return max(0, math.floor((limit - used) / per_turn)) + 1


def turns_until_cut(
    *,
    tokens: int,
    budget_tokens: int,
    tokens_per_turn: float,
    messages: int = 0,
    max_messages: int = 0,
    messages_per_turn: float = 0.0,
) -> int | None:
    """Roughly how many more user turns until the next cut (≥ 1), or None when no forecast is due.

    `tokens` / `budget_tokens` and `messages` / `max_messages` are the two triggers (a limit of 0 is
    off); `*_per_turn` the mean growth of a recent turn in the same units. The forecast is given
    only once the context is past `SHOW_FROM` of a limit, and is the sooner of the two triggers.
    None below that, when the context is already over a limit (the cut comes with the next
    request: the meter says so instead), or when turns do not grow the context.
    """
    past_half = (budget_tokens > 0 and tokens > SHOW_FROM * budget_tokens) or (
        max_messages > 0 and messages > SHOW_FROM * max_messages
    )
    if not past_half:
        return None
    if (budget_tokens > 0 and tokens > budget_tokens) or (max_messages > 0 and messages > max_messages):
        return None
    forecasts = [
        n
        for n in (
            _turns_left(tokens, budget_tokens, tokens_per_turn),
            _turns_left(messages, max_messages, messages_per_turn),
        )
        if n is not None
    ]
    return min(forecasts) if forecasts else None
