"""What a session's model requests cost, from the prices pydantic-ai puts on each response.

pydantic-ai prices every response it receives with genai-prices (`ModelResponse.usage.cost`, a
`Decimal` in USD, cache reads and writes at their own rates) and leaves it `None` when the model or
provider is not in genai-prices' data. The session's cost is the sum over the transcript's
responses: exact to the price list when every response is priced, unknown (None) as soon as one is
not — a partial sum shown as the total would understate it. The built-in offline model is free.
See docs/context-governance.md ("Cache and cost").
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from co_tui.agent.models import OFFLINE  # the offline model's name (also its responses' model_name)
from co_tui.governance.summarizer_usage import usage_cost


def response_cost(response: Any) -> Decimal | None:
    """The USD cost of one `ModelResponse`: its priced `usage.cost`; 0 for the offline model and for
    a response that reports no tokens at all (nothing billed that we know of: a marker, a cut-off
    answer); None when the provider reported tokens that genai-prices cannot price."""
    if getattr(response, "model_name", None) == OFFLINE:  # saved before the offline model priced itself at 0
        return Decimal(0)
    return usage_cost(getattr(response, "usage", None))


def session_cost(messages: Iterable[Any], ledger: Iterable[Any] = ()) -> float | None:
    """The summed cost in USD of every response in `messages` (a transcript), of the subagents it
    records (`children_cost`) and of the summariser calls behind the cuts of `ledger`
    (`ledger_cost`), or None when any of them is unpriced. An empty transcript costs 0."""
    messages = list(messages)
    total = session_cost_of(request_costs(messages))
    extra = ledger_cost(ledger)
    children = RunningCost(children_cost, Decimal(0)).total(
        [m for m in messages if getattr(m, "kind", None) == "request"]
    )
    if total is None or extra is None or children is None:
        return None
    return total + extra + float(children)


def ledger_cost(ledger: Iterable[Any]) -> float | None:
    """The summed cost in USD of the summariser calls behind the cuts of `ledger`
    (`HistoryTrimmed.summarizer_cost_usd`: summaries, /compact), None when any is unpriced."""
    total = RunningCost(ledger_item_cost, 0.0).total(list(ledger))
    return None if total is None else float(total)


class RunningCost:
    """The summed cost of an append-only sequence (a transcript's responses, a ledger's summariser
    calls), kept as it grows: `total(items)` prices only the items added since its last call, so a
    long session's cost figure costs the same at turn 5,000 as at turn 1 (summing the whole
    transcript on every usage event and save grew each turn: issue 33). `cost_of(item)` is an item's
    cost (None: unpriced, which makes the total None for good); `restart` when the sequence is
    replaced (a resume, `/clear`)."""

    def __init__(self, cost_of: Callable[[Any], Any], zero: Any) -> None:
        self._cost_of, self._zero = cost_of, zero
        self._counted, self._total = 0, zero
        # A save reads the figure in a thread while the loop may read it for the meter: one folds at a time.
        self._lock = threading.Lock()

    def restart(self, counted: int = 0) -> None:
        """Start over at a new sequence whose first `counted` items are priced elsewhere (a saved figure)."""
        with self._lock:
            self._counted, self._total = counted, self._zero

    def total(self, items: Sequence[Any]) -> Any:
        """The summed cost of `items` from the start point on (None: one is unpriced); the items
        before the ones counted so far must be the same ones (append-only). Thread-safe."""
        with self._lock:
            length = len(items)
            if length > self._counted:
                for item in items[self._counted : length]:
                    cost = self._cost_of(item) if self._total is not None else None
                    self._total = None if cost is None or self._total is None else self._total + cost
                self._counted = length
            return self._total


def transcript_item_cost(message: Any) -> Decimal | None:
    """A transcript message's share of the session's cost: a response's (`response_cost`); for a
    request, what the subagents whose results it carries cost (docs/subagents.md), else 0."""
    if getattr(message, "kind", None) == "response":
        return response_cost(message)
    return children_cost(message)


def children_cost(request: Any) -> Decimal | None:
    """The summed cost of the subagents recorded on `request`'s `delegate` results (their
    `SubagentFinished.cost_usd`: every request the child made, its summaries included); 0 when it
    carries none, None when one is unpriced."""
    total = Decimal(0)
    for part in getattr(request, "parts", ()):
        meta = getattr(part, "metadata", None)
        if not isinstance(meta, dict) or "co_tui_subagent" not in meta:  # child_record.SUBAGENT_KEY
            continue
        record = meta["co_tui_subagent"]
        finished = record.get("finished") if isinstance(record, dict) else None
        cost = finished.get("cost_usd") if isinstance(finished, dict) else None
        if cost is None:
            return None
        total += Decimal(str(cost))
    return total


def ledger_item_cost(event: Any) -> float | None:
    """A ledger event's summariser call's cost in USD (`HistoryTrimmed.summarizer_cost_usd`; None: unpriced)."""
    cost: float | None = getattr(event, "summarizer_cost_usd", 0.0)
    return cost


def cached_share(input_tokens: int, cache_read_tokens: int) -> float | None:
    """The share of a request's input the provider read from its prompt cache (0–1), or None when
    the request reported no input. `input_tokens` includes the cached part (pydantic-ai's convention)."""
    if input_tokens <= 0:
        return None
    return min(1.0, max(0.0, cache_read_tokens / input_tokens))


@dataclass(frozen=True)
class RequestCost:
    """One model request of a transcript as the provider billed it (cache counts are part of `input_tokens`)."""

    index: int  # the response's index in the transcript
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost: Decimal | None  # USD; None: unpriced


def request_costs(messages: Iterable[Any]) -> list[RequestCost]:
    """Every response of `messages` with what its request used and cost, in order."""
    rows = []
    for index, message in enumerate(messages):
        if getattr(message, "kind", None) != "response":
            continue
        usage = getattr(message, "usage", None)
        counts: tuple[int, int, int, int] = (
            (0, 0, 0, 0)
            if usage is None
            else (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens)
        )
        rows.append(RequestCost(index, *counts, cost=response_cost(message)))
    return rows


def session_cost_of(requests: Iterable[RequestCost]) -> float | None:
    """The summed cost of `requests` in USD, None when any is unpriced."""
    total = Decimal(0)
    for request in requests:
        if request.cost is None:
            return None
        total += request.cost
    return float(total)


def format_usd(value: float | Decimal | None, *, unknown: str = "–", digits: int = 2) -> str:
    """`$0.42`, `<$0.01`, `$0.00`, `$1,234` (`digits` after the point: 4 for one request's
    `$0.0042`); `unknown` for None."""
    if value is None:
        return unknown
    if 0 < value < 10**-digits:
        return f"<${10**-digits:.{digits}f}"
    if value >= 1000:
        return f"${value:,.0f}"
    return f"${value:.{digits}f}"


def preload_pricing() -> None:
    """Load genai-prices' table, deferred while a session was built (co_tui/agent/pricing_data.py).
    Blocking (it reads and parses the table): a front end calls it off its UI thread, before a
    first answer needs it."""
    from co_tui.agent.pricing_data import preload

    preload()


__all__ = [
    "RequestCost",
    "RunningCost",
    "cached_share",
    "format_usd",
    "preload_pricing",
    "request_costs",
    "response_cost",
    "session_cost",
    "session_cost_of",
]
