"""The history inspector's Trims table: one row per cut of the ledger; `u` undoes the selected one."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message

from co_tui.tui.widgets.paged_table import PagedTable

__all__ = ["LedgerTable"]


class LedgerTable(PagedTable):
    """The Trims tab's table (rows added a page at a time: `PagedTable`): `u` undoes the selected cut (docs/context-governance.md, "Undo a cut")."""

    BINDINGS = [Binding("u", "undo_cut", "Undo cut")]

    class UndoCut(Message):
        """Undo the cut on row `row` (its ledger index)."""

        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`u` only where the screen can steer: a read-only inspector has nothing to undo with."""
        # Without a controller (a read-only inspector) there is nothing to undo with.
        if action == "undo_cut":
            return getattr(self.screen, "steer", None) is not None
        return super().check_action(action, parameters)

    def action_undo_cut(self) -> None:
        """`u`: ask the screen to undo the highlighted cut (`UndoCut`)."""
        if self.row_count:
            self.post_message(self.UndoCut(self.cursor_row))
