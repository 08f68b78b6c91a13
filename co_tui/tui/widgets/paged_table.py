"""A DataTable for a long list of rows, added a page at a time as they come into view.

The history inspector's tables of a 5,000-turn session held 20,000 transcript rows, 10,000 usage
rows and 3,700 cuts: adding and measuring them all took seconds and over 100 MB before the first
one could be read (issue 33). A `PagedTable` holds the rows' source and adds its first
`PAGE_ROWS`; the next page is added when the cursor or the scroll comes near the end of what is
there, and moving to the last row (`ctrl+end`, `move_cursor` past the end through `reach`) adds the
rest first, a slice per turn of the loop. The rows added are always the first `row_count` of the
source, in order: a table row's index is its index in the source.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from textual.binding import Binding
from textual.coordinate import Coordinate
from textual.widgets import DataTable

__all__ = ["PAGE_ROWS", "PagedTable"]

PAGE_ROWS = 200
"""Rows added at a time: a few screens' worth."""
_SLICE = 1000  # rows added per turn of the loop when the rest is wanted at once


class PagedTable(DataTable[Any]):
    """A DataTable whose rows are added a page at a time (module docstring): `show(rows, cells)`
    after `clear`; `total` is how many rows there are in all."""

    BINDINGS = [Binding("ctrl+end", "last_row", "Bottom", show=False)]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._source: Sequence[Any] = ()
        self._cells: Callable[[Any], Sequence[Any]] = lambda row: ()
        self._adding = False

    @property
    def total(self) -> int:
        """How many rows the table shows in all (`row_count` is how many are added so far)."""
        return max(len(self._source), self.row_count)

    def show(self, rows: Sequence[Any], cells: Callable[[Any], Sequence[Any]]) -> None:
        """Hold `rows` (each made into its cells by `cells` when added) and add the first page."""
        self._source, self._cells = rows, cells
        self.add_up_to(PAGE_ROWS)

    def clear(self, columns: bool = False) -> PagedTable:
        """Remove the rows (and `columns`) and the source they came from."""
        self._source = ()
        super().clear(columns)
        return self

    def add_up_to(self, count: int) -> None:
        """Add the source's next rows until `count` (at most all of them) are in the table."""
        if self._adding:  # `add_row` sets the cursor again, whose watcher asks for more: once is enough
            return
        self._adding = True
        try:
            stop = min(count, len(self._source))
            while self.row_count < stop:
                self.add_row(*self._cells(self._source[self.row_count]))
        finally:
            self._adding = False

    async def reach(self, row: int) -> None:
        """Add rows until row `row` is in the table, a slice per turn of the loop (keys go on)."""
        while self.row_count <= row and self.row_count < len(self._source):
            self.add_up_to(self.row_count + _SLICE)
            await asyncio.sleep(0)

    def watch_cursor_coordinate(self, old_coordinate: Coordinate, new_coordinate: Coordinate) -> None:
        """Add the next page when the cursor comes within a quarter page of the last row added."""
        if new_coordinate.row >= self.row_count - PAGE_ROWS // 4:
            self.add_up_to(self.row_count + PAGE_ROWS)
        super().watch_cursor_coordinate(old_coordinate, new_coordinate)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Add the next page when the scroll comes within a screen of the end (the mouse wheel)."""
        super().watch_scroll_y(old_value, new_value)
        if self.row_count < len(self._source) and new_value >= self.max_scroll_y - self.size.height:
            self.add_up_to(self.row_count + PAGE_ROWS)

    async def action_last_row(self) -> None:
        """The last row (`ctrl+end`, DataTable's `scroll_bottom`): every row is added first."""
        await self.reach(len(self._source) - 1)
        self.action_scroll_bottom()
