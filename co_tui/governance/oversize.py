"""An oversized newest turn: the one thing governance can never cut (docs/context-governance.md).

Governance drops, shrinks and summarises older turns, never the newest one (the prompt being
answered and its tool results so far). When that turn alone weighs more than the budget, the request
goes out over budget; the user is told so in words, not only by a figure over 100%.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.messages import ModelMessage

from co_tui.governance.markers import separate_markers
from co_tui.governance.tokens import estimate_tokens
from co_tui.governance.turns import segment

__all__ = ["newest_turn_request_tokens", "oversized_turn_tokens"]


def newest_turn_request_tokens(messages: Sequence[ModelMessage], overhead_tokens: int = 0) -> int:
    """The tokens of a request holding only the newest turn of `messages` (plus `overhead_tokens`:
    instructions and tool schemas), in the meter's terms. 0 turn tokens when there is no turn."""
    layout = segment(separate_markers(messages))
    turn = estimate_tokens(layout.turns[-1].messages) if layout.turns else 0
    return turn + overhead_tokens


def oversized_turn_tokens(messages: Sequence[ModelMessage], budget_tokens: int, overhead_tokens: int = 0) -> int | None:
    """`newest_turn_request_tokens` when it alone exceeds `budget_tokens` (the configured budget,
    as the meter counts it), else None. Never mutates `messages`."""
    tokens = newest_turn_request_tokens(messages, overhead_tokens)
    return tokens if tokens > budget_tokens else None
