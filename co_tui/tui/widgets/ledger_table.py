"""The history inspector's Trims table: one row per cut of the ledger; `u` undoes the selected one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message

from co_tui.session import REASON_TEXT, strategy_text
from co_tui.text import format_tokens, plural
from co_tui.tui.widgets.paged_table import PagedTable
from co_tui.tui.widgets.usage_table import Numbered

if TYPE_CHECKING:
    from co_tui.session import HistoryTrimmed

__all__ = ["LedgerTable", "pass_bracket"]


def pass_bracket(passes: Sequence[tuple[int, int]], index: int) -> str:
    """The `#` cell's mark of a Trims row that is one of several events of one pass (undone
    together): `┐` on its first row, `│` between, `┘` on its last; none for a pass of one event."""
    if index >= len(passes) or passes[index][0] == passes[index][1]:
        return ""
    first, last = passes[index]
    return "┐" if index == first else "┘" if index == last else "│"


class LedgerTable(PagedTable):
    """The Trims tab's table (rows added a page at a time: `PagedTable`): `u` undoes the selected cut (docs/context-governance.md, "Undo a cut")."""

    BINDINGS = [Binding("u", "undo_cut", "Undo cut")]

    class UndoCut(Message):
        """Undo the cut on row `row` (its ledger index)."""

        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def show_ledger(self, ledger: Sequence[HistoryTrimmed], passes: Sequence[tuple[int, int]]) -> None:
        """One row per cut, numbered, a pass of several marked (`pass_bracket`)."""
        self.clear(columns=True)
        # Budget, note and summary are in the detail pane below: the table stays one screen wide.
        # "removed", as in the details: a summary's messages are not "dropped" (the totals above
        # count dropped and summarised apart).
        for label in ("#", "reason", "strategy", "removed", "tokens"):
            self.add_column(label)

        def cells(numbered: tuple[int, HistoryTrimmed]) -> tuple[Any, ...]:
            number, event = numbered
            dropped = plural(event.dropped_messages, "msg") + (
                f" ({plural(event.dropped_turns, 'turn')})" if event.dropped_turns else ""
            )
            if event.reason == "restore":
                dropped = f"+{plural(event.restored_messages, 'msg')} back"
            return (
                Text(str(number) + pass_bracket(passes, number - 1), justify="right"),
                REASON_TEXT.get(event.reason, event.reason),
                strategy_text(event),
                dropped,
                f"{format_tokens(event.tokens_before)} → {format_tokens(event.tokens_after)}",
            )

        self.show(Numbered(ledger), cells)

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
