"""The history inspector's Subagents table: one row per child the conversation recorded; Enter
opens the child's transcript (the screen its chat block opens)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding
from textual.message import Message

from co_tui.text import format_tokens, one_line
from co_tui.tui.widgets.paged_table import PagedTable
from co_tui.tui.widgets.usage_table import Numbered

if TYPE_CHECKING:
    from co_tui.session import SavedChild

__all__ = ["SubagentsTable"]

TASK_CHARS = 60


class SubagentsTable(PagedTable):
    """The Subagents tab's table: agent, how it ended, requests, tokens, cost, task."""

    BINDINGS = [Binding("enter", "open_child", "Open transcript")]

    @dataclass
    class OpenChild(Message):
        """Enter on row `row`: show that child's transcript."""

        row: int

    def show_children(self, children: Sequence[SavedChild]) -> None:
        """One row per child, oldest first."""
        from co_tui.session import subagent_cost_text, subagent_state_text

        self.clear(columns=True)
        for label in ("#", "agent", "ended", "requests", "in / out", "cost", "task"):
            self.add_column(label)

        def cells(numbered: tuple[int, SavedChild]) -> tuple[Text | str, ...]:
            number, child = numbered
            view, end = child.view, child.view.finished
            assert end is not None  # a recorded child has ended
            ended = subagent_state_text(view)
            return (
                Text(str(number), justify="right"),
                view.agent,
                Text(ended, style="" if ended == "done" else "bold red"),
                Text(str(end.requests), justify="right"),
                Text(f"{format_tokens(end.input_tokens)} / {format_tokens(end.output_tokens)}", justify="right"),
                Text(subagent_cost_text(end.cost_usd), justify="right"),
                Text(one_line(view.task, TASK_CHARS), no_wrap=True, overflow="ellipsis"),
            )

        self.show(Numbered(children), cells)

    def action_open_child(self) -> None:
        """Enter: ask the screen to open the highlighted child's transcript."""
        if self.row_count:
            self.post_message(self.OpenChild(self.cursor_row))
