"""What a summariser call used and cost: the part of a session's spend outside its transcript.

A summary (the `summarize` strategy) and `/compact` are model calls of their own; their responses
are not part of the conversation, so the session cannot price them from its transcript. Their
usage travels on the `history_trimmed` event of the cut they made (saved in the ledger), and the
session adds it to its cost (docs/context-governance.md, "Cache and cost").

Prices are pydantic-ai's: it fills `usage.cost` on every response from genai-prices and leaves it
None when the model or provider is not priced. No pydantic-ai import here (duck-typed): the session's
cost module uses `usage_cost` too and stays cheap to import.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = ["SummarizerUsage", "usage_cost", "summarizer_usage"]


def usage_cost(usage: Any) -> Decimal | None:
    """The USD cost of one response's `usage`: its priced `cost`; 0 when it reports no tokens at
    all (nothing billed that we know of); None when it reported tokens genai-prices cannot price."""
    if usage is None:
        return Decimal(0)
    if usage.cost is not None:
        return Decimal(usage.cost)
    if not (usage.input_tokens or usage.output_tokens):
        return Decimal(0)
    return None


@dataclass(frozen=True)
class SummarizerUsage:
    """Tokens and cost of one summariser call (all its responses). `cost_usd` None: unpriced."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0


def summarizer_usage(responses: Iterable[Any]) -> SummarizerUsage:
    """Sum the usage of a summariser run's `responses` (`ModelResponse`s): None as the cost as soon
    as one is unpriced (a partial sum would understate it). The offline model prices its own
    responses at 0."""
    input_tokens = output_tokens = 0
    cost: Decimal | None = Decimal(0)
    for response in responses:
        usage = getattr(response, "usage", None)
        if usage is None:
            continue
        input_tokens += usage.input_tokens
        output_tokens += usage.output_tokens
        one = usage_cost(usage)
        cost = None if cost is None or one is None else cost + one
    return SummarizerUsage(input_tokens, output_tokens, None if cost is None else float(cost))
