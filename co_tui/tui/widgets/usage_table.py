"""The history inspector's Usage table: one row per model request (its response's usage and cost)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from co_tui.session import cached_share, format_usd
from co_tui.text import format_tokens, plural
from co_tui.tui.widgets.paged_table import PagedTable

if TYPE_CHECKING:
    from co_tui.session import RequestCost

__all__ = ["Numbered", "UsageTable", "usage_summary"]


class Numbered(Sequence[tuple[int, Any]]):
    """`items` as (1-based number, item) pairs, numbered as they are read (a `PagedTable` source)."""

    def __init__(self, items: Sequence[Any]) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [(i + 1, self._items[i]) for i in range(*index.indices(len(self._items)))]
        return (index + 1, self._items[index])


def usage_summary(requests: Sequence[RequestCost]) -> str:
    """The Usage tab's closing line: requests, cost at list prices, and the share of all input the
    provider's prompt cache served."""
    if not requests:
        return "No model requests yet."
    from co_tui.session import session_cost_of

    cost = session_cost_of(requests)
    read = sum(r.cache_read_tokens for r in requests)
    written = sum(r.cache_write_tokens for r in requests)
    share = cached_share(sum(r.input_tokens for r in requests), read)
    text = f"{plural(len(requests), 'request')} · {format_usd(cost, unknown='cost unknown (unpriced model)')}"
    if read or written:
        text += f" · {round(100 * (share or 0))}% of input read from cache · {format_tokens(written)} written to it"
    return text


def _cells(request: RequestCost, number: int, turn: int) -> tuple[Text, ...]:
    share = cached_share(request.input_tokens, request.cache_read_tokens)
    cached = (
        f"{format_tokens(request.cache_read_tokens)} ({round(100 * share)}%)"
        if request.cache_read_tokens and share is not None
        else "–"
    )
    return (
        Text(str(number), justify="right"),
        Text(str(turn) if turn > 0 else "–", justify="right"),
        Text(format_tokens(request.input_tokens), justify="right"),
        Text(cached, justify="right"),
        Text(format_tokens(request.cache_write_tokens) if request.cache_write_tokens else "–", justify="right"),
        Text(format_tokens(request.output_tokens), justify="right"),
        Text(format_usd(request.cost, unknown="unpriced", digits=4), justify="right"),
    )


class UsageTable(PagedTable):
    """The Usage tab's table (rows added a page at a time: `PagedTable`)."""

    def show_requests(self, requests: Sequence[RequestCost], turn_of: Mapping[int, int]) -> None:
        """One row per request, numbered, with the user turn of the transcript message it answered
        (`turn_of`: transcript index → turn)."""
        self.clear(columns=True)
        for label in ("#", "turn", "input", "cached", "written", "output", "cost"):
            self.add_column(label)

        def cells(numbered: tuple[int, RequestCost]) -> tuple[Text, ...]:
            number, request = numbered
            return _cells(request, number, turn_of.get(request.index, 0))

        self.show(Numbered(requests), cells)
