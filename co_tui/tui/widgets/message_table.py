"""The history inspector's message tables (In context, Transcript); `p` pins the selected message's
turn, `d` evicts the selected message (the inspector's `evict`)."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message

from co_tui.tui.widgets.paged_table import PagedTable

__all__ = ["MessageTable"]


class MessageTable(PagedTable):
    """The context and transcript tables (rows added a page at a time: `PagedTable`): `p` pins (again: unpins) the selected message's turn, `d`
    evicts it. Both are the tables' own keys, so the footer offers them only on these two tabs."""

    BINDINGS = [Binding("p", "pin_turn", "Pin turn"), Binding("d", "screen.evict", "Evict")]

    class PinTurn(Message):
        """Pin or unpin the turn of the message on row `row` of `table`."""

        def __init__(self, table: str, row: int) -> None:
            super().__init__()
            self.table = table
            self.row = row

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`p` only where the screen can steer: a read-only inspector has nothing to pin with."""
        if action == "pin_turn":  # only with a controller to pin through
            return getattr(self.screen, "steer", None) is not None
        return super().check_action(action, parameters)

    def action_pin_turn(self) -> None:
        """`p`: ask the screen to pin (again: unpin) the highlighted row's turn (`PinTurn`)."""
        if self.row_count:
            self.post_message(self.PinTurn(self.id or "", self.cursor_row))
