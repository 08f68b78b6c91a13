"""The history inspector (`/history`, `f2`): what the model sees now versus the whole transcript.

Read-only. Four tabs — the context (what goes to the model next, markers included), the
transcript (every message, with its status), the ledger of trims, and the usage of every request
(input, the part read from / written to the provider's prompt cache, output, cost) — under the
totals and a tokens-per-turn chart. The per-message facts and the chart's bars are read in a thread by
`co_tui.session.read_history_rows` (a resumed transcript decodes from the store); this screen only
lays them out, a slice of rows at a time, so keys work while it fills.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Static, TabbedContent, TabPane
from textual.widgets.data_table import ColumnKey

from co_tui.session import (
    HistoryRows,
    RequestCost,
    banner_details,
    status_label,
)
from co_tui.text import escape_controls, format_tokens, one_line, plural
from co_tui.tui.format import budget_percent
from co_tui.tui.widgets.key_footer import KeyFooter
from co_tui.tui.widgets.ledger_table import LedgerTable
from co_tui.tui.widgets.message_table import MessageTable
from co_tui.tui.widgets.paged_table import PagedTable
from co_tui.tui.widgets.subagents_table import SubagentsTable
from co_tui.tui.widgets.turn_token_chart import STATE_COLOURS, TurnTokenChart, legend_markup
from co_tui.tui.widgets.usage_table import UsageTable, usage_summary

if TYPE_CHECKING:
    from co_tui.session import HistoryTrimmed, HistoryView


class Steering(Protocol):
    """The controller's intents the inspector may call (co_tui/tui/controller.py): each returns
    the line to show (a refusal says why, with its figures)."""

    def undo(self, cut: int | None = None) -> Awaitable[str]:
        """`u`: undo the newest cut still in effect, or ledger entry `cut` and every cut after it."""
        ...

    def toggle_pin(self, index: int | None = None) -> Awaitable[str]:
        """`p`: pin (again: unpin) the turn of transcript message `index` (None: the newest turn)."""
        ...

    def evict(self, index: int) -> Awaitable[str]:
        """`d`: remove context message `index`'s tool output, or its older turn, from the context."""
        ...


class MessageRow(Protocol):
    """One annotated message (`HistoryRows.transcript`'s and `.context`'s), read-only."""

    @property
    def index(self) -> int:
        """Position in the transcript."""
        ...

    @property
    def turn(self) -> int:
        """The user turn, 1-based (0: the system prefix)."""
        ...

    @property
    def kind(self) -> str:
        """The role: system, user, assistant, tool or marker (a note governance inserted)."""
        ...

    @property
    def tokens(self) -> int:
        """Estimated tokens."""
        ...

    @property
    def status(self) -> str:
        """Where the message stands (in_context, truncated, …: its words are `status_label`'s)."""
        ...

    @property
    def preview(self) -> str:
        """One line, at most 80 characters."""
        ...

    @property
    def context_index(self) -> int | None:
        """Its index in the context, where the model sees it (None: no part of it is there)."""
        ...


# Each status wears the colour of the chart state it belongs to (truncated: shortened, like "partly").
_STATUS_STATE = {
    "in context": "in_context",
    "output truncated": "partial",
    "summarised": "summarised",
    "dropped": "dropped",
    "evicted": "dropped",
    "next to go": "partial",
    "pinned": "in_context",
}
_PREVIEW_CHARS = 80
_ROWS_PER_SLICE = 50  # rows added to a table between two turns of the UI loop
_MIN_PREVIEW_WIDTH = 20
# Fixed widths of the message tables' columns before the preview, which takes the rest.
_MESSAGE_COLUMNS = (
    ("index", "#", 4),
    ("turn", "turn", 4),
    ("kind", "kind", 9),
    ("tokens", "tokens", 6),
    ("status", "status", 16),
)
# Where those leave the preview less than _MIN_PREVIEW_WIDTH (e.g. 60 columns: it was cut to 8
# characters), the turn column goes (rows stay in order, turn by turn) and the status words shorten.
_NARROW_COLUMNS = (
    ("index", "#", 4),
    ("kind", "kind", 9),
    ("tokens", "tokens", 6),
    ("status", "status", 10),
)
_SHORT_STATUS = {"output truncated": "truncated"}


def _tokens_of_budget(tokens: int, budget: int, estimated: bool) -> str:
    approx = "~" if estimated else ""
    if budget <= 0:
        return f"{approx}{format_tokens(tokens)} tokens"
    return f"{approx}{format_tokens(tokens)} / {format_tokens(budget)} tokens ({budget_percent(tokens, budget)}%)"


TABS = Binding.Group("Tabs", compact=True)


class HistoryScreen(Screen[None]):
    """The inspector of a session's context, transcript and trim ledger; with `steer` (the chat
    controller) `u` undoes a cut and `p` pins a turn, otherwise it is read-only."""

    CSS_PATH = "history.tcss"
    # Under 30 lines the chart gives way and the ledger's details shorten (history.tcss): at 60×20
    # they took every line and the Trims tab showed no row (docs/keys-and-commands.md, "The history
    # inspector").
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    BINDINGS = [
        Binding("escape,q", "close", "Close"),
        # The tabs by position (the footer shows `1234 Tabs`), and the first three by letter too;
        # `u` is the Trims table's Undo cut only (docs/keys-and-commands.md).
        Binding("1,c", "show_tab('context')", "In context", group=TABS),
        Binding("2,t", "show_tab('transcript')", "Transcript", group=TABS),
        Binding("3,l", "show_tab('ledger')", "Trims", group=TABS),
        Binding("4", "show_tab('usage')", "Usage", group=TABS),
        Binding("5", "show_tab('subagents')", "Subagents", group=TABS),
        Binding("r", "reload", "Refresh"),
    ]

    def __init__(
        self, session: HistoryView, steer: Steering | None = None, *, next_cut: Callable[[], Any] | None = None
    ) -> None:
        super().__init__()
        self.session = session
        # The controller's intents (undo, pin, evict); None: a read-only inspector (layout tests).
        self.steer = steer
        # What the next automatic cut would remove (`SessionPort.next_cut`): rows marked `next to go`.
        self._next_cut = next_cut
        # What the tables show: read in a thread by `reload`, then drawn by `_draw`.
        self._rows = HistoryRows()
        # False while a read runs (from the mount, `r`, or after a steering intent); True once its
        # rows are drawn. Keys work meanwhile: Esc closes, the tabs switch.
        self.loaded = False

    @property
    def transcript_rows(self) -> tuple[MessageRow, ...]:
        """The transcript tab's rows, as annotated (read-only)."""
        return self._rows.transcript

    @property
    def _transcript_rows(self) -> Sequence[MessageRow]:
        return self._rows.transcript

    @property
    def _context_rows(self) -> Sequence[MessageRow]:
        return self._rows.context

    @property
    def _ledger(self) -> Sequence[HistoryTrimmed]:
        return self._rows.ledger

    @property
    def _pinned_turns(self) -> frozenset[int]:
        return self._rows.pinned_turns

    def compose(self) -> ComposeResult:
        """Totals and the tokens-per-turn chart above the tabs (In context, Transcript, Trims, Usage); keys."""
        yield Static("History · what the model sees now, and everything that happened", id="history-title")
        with Vertical(id="history-summary"):
            yield Static(id="history-totals")
            with Horizontal(id="history-chart-row"):
                yield Static("tokens\nper turn", id="history-chart-label")
                yield TurnTokenChart(id="history-chart")
            yield Static(legend_markup(), id="history-legend")
        with TabbedContent(id="history-tabs"):
            with TabPane("In context", id="context"):
                yield MessageTable(id="context-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Transcript", id="transcript"):
                yield MessageTable(id="transcript-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Trims", id="ledger"):
                yield LedgerTable(id="ledger-table", cursor_type="row", zebra_stripes=True)
                yield Static(id="ledger-detail")
            with TabPane("Usage", id="usage"):
                yield UsageTable(id="usage-table", cursor_type="row", zebra_stripes=True)
                yield Static(id="usage-totals")
            with TabPane("Subagents", id="subagents"):
                yield SubagentsTable(id="subagents-table", cursor_type="row", zebra_stripes=True)
                yield Static(id="subagents-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Read the session (in a thread: `reload`); the In context table takes the keys."""
        self.reload()
        self.query_one("#context-table", DataTable).focus()

    def on_resize(self) -> None:
        """Refit the preview column once the new layout is known (`_fit_previews`)."""
        # The preview column's width follows the screen's (it takes the room the others leave): the
        # rows stay as they are, once the new layout is known — unless the width crosses the line
        # where the turn column goes or comes back (`_columns_for`), which lays a table out anew.
        self.call_after_refresh(self._fit_previews)

    # --- filling -----------------------------------------------------------------------------------

    def reload(self) -> None:
        """Re-read the session (it may have moved on since the screen opened) in a thread, then
        redraw everything; until then the totals say what is being read."""
        from co_tui.session import read_history_rows

        self.loaded = False
        count = len(self.session.transcript)
        self.query_one("#history-totals", Static).update(f"Reading {plural(count, 'message')}…")

        async def read_then_draw() -> None:
            self._rows = await asyncio.to_thread(
                read_history_rows, self.session, next_cut=self._next_cut, undo=self.steer is not None
            )
            await self._draw()
            self.loaded = True

        # A newer read replaces one still running (`exclusive`): the newest rows win. The worker is
        # given the function, not a coroutine: one replaced before it starts leaves none unawaited.
        self.run_worker(read_then_draw, group="reload", exclusive=True)  # type: ignore[arg-type]  # mypy infers Never for WorkType

    async def _draw(self) -> None:
        rows = self._rows
        transcript_rows, context_rows, ledger = rows.transcript, rows.context, rows.ledger
        await self._fill_messages("#context-table", context_rows)
        await self._fill_messages("#transcript-table", transcript_rows)
        await self._fill_ledger(ledger)
        await self._fill_usage(rows.requests, transcript_rows)
        self._fill_totals(transcript_rows, context_rows, ledger)
        self.query_one("#history-chart", TurnTokenChart).bars = rows.turn_bars
        tabs = self.query_one("#history-tabs", TabbedContent)
        tabs.get_tab("context").label = f"In context ({len(context_rows)})"
        tabs.get_tab("transcript").label = f"Transcript ({len(transcript_rows)})"
        tabs.get_tab("ledger").label = f"Trims ({len(ledger)})"
        tabs.get_tab("usage").label = f"Usage ({len(rows.requests)})"
        tabs.get_tab("subagents").label = f"Subagents ({len(rows.children)})"
        await self._fill_subagents()

    def _fit_previews(self) -> None:
        """Give the message tables' preview column the width the screen leaves it now."""
        for table in self.query(MessageTable):
            column = table.columns.get(ColumnKey("preview"))
            if column is None:
                continue
            columns = self._columns_for(table)
            if (ColumnKey("turn") in table.columns) != (columns is _MESSAGE_COLUMNS):
                # Other columns: the tables are laid out anew, through `reload` so that no other
                # fill of the same table runs beside it (its worker replaces any still running).
                self.reload()
                return
            width = max(1, self._preview_width(table, columns))
            if column.width == width:
                continue
            column.width = width
            if table.row_count:
                # Re-setting one cell is the public way to have the table re-measure its columns
                # and drop the lines it rendered at the old width (the rows stay).
                at = Coordinate(0, table.get_column_index("preview"))
                table.update_cell_at(at, table.get_cell_at(at), update_width=True)
            else:
                table.refresh()

    def _status_style(self, label: str) -> str:
        """The Rich style of a status word: its chart state's colour, resolved in the current theme."""
        colour = STATE_COLOURS.get(_STATUS_STATE.get(label, ""), "")
        if colour.startswith("$"):
            colour = self.app.theme_variables.get(colour[1:], "")
        return colour if colour.startswith("#") else "dim"

    def _preview_width(self, table: DataTable, columns: Sequence[tuple[str, str, int]]) -> int:
        """Room for the preview: the tabs' width less the fixed `columns`, padding and a scrollbar."""
        width = self.query_one("#history-tabs", TabbedContent).size.width
        fixed = sum(w + 2 * table.cell_padding for _key, _label, w in columns)
        return width - fixed - 2 * table.cell_padding - table.styles.scrollbar_size_vertical

    def _columns_for(self, table: DataTable) -> Sequence[tuple[str, str, int]]:
        """The full columns, or the narrow ones where the full ones leave the preview too little."""
        if self._preview_width(table, _MESSAGE_COLUMNS) < _MIN_PREVIEW_WIDTH:
            return _NARROW_COLUMNS
        return _MESSAGE_COLUMNS

    async def _fill_messages(self, selector: str, rows: Sequence[MessageRow]) -> None:
        table = self.query_one(selector, MessageTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        columns = self._columns_for(table)
        for key, label, width in columns:
            table.add_column(label, key=key, width=width)
        # The rest, however little: a wider column would run off the right edge.
        table.add_column("preview", key="preview", width=max(1, self._preview_width(table, columns)))
        # A page at a time, each row's cells built as it is added (`PagedTable`): a 5,000-turn
        # session's 20,000 rows were seconds and 100 MB before the first one showed.
        table.show(rows, lambda row: self._message_cells(row, columns))
        await self._keep_cursor(table, cursor)

    def _message_cells(self, row: MessageRow, columns: Sequence[tuple[str, str, int]]) -> tuple[Text, ...]:
        label = status_label(row.status)
        if label == "in context" and row.turn in self._pinned_turns:
            label = "pinned"
        dim = "dim" if label in ("dropped", "summarised", "evicted") else ""
        shown = _SHORT_STATUS.get(label, label) if columns is _NARROW_COLUMNS else label
        cells = {
            "index": Text(str(row.index), justify="right"),
            "turn": Text(str(row.turn) if row.turn > 0 else "–", justify="right"),
            "kind": Text(row.kind, style=dim),
            "tokens": Text(format_tokens(row.tokens), justify="right", style=dim),
            "status": Text(shown, style=self._status_style(label)),
        }
        return (
            *(cells[key] for key, _label, _width in columns),
            Text(one_line(escape_controls(row.preview), _PREVIEW_CHARS), style=dim, no_wrap=True, overflow="ellipsis"),
        )

    @staticmethod
    async def _keep_cursor(table: PagedTable, row: int) -> None:
        """Put the cursor back on `row` after a refill (the last row when there are fewer now)."""
        if table.total:
            row = min(max(row, 0), table.total - 1)
            await table.reach(row)
            table.move_cursor(row=row)

    async def _fill_ledger(self, ledger: Sequence[HistoryTrimmed]) -> None:
        table = self.query_one("#ledger-table", LedgerTable)
        cursor = table.cursor_row
        table.show_ledger(ledger, self._rows.passes)
        await self._keep_cursor(table, cursor)
        self._show_ledger_detail(ledger[table.cursor_row] if ledger else None)

    async def _fill_usage(self, requests: Sequence[RequestCost], transcript_rows: Sequence[MessageRow]) -> None:
        """One row per model request (its response's usage), then the session's totals below."""
        table = self.query_one("#usage-table", UsageTable)
        cursor = table.cursor_row
        table.show_requests(requests, {row.index: row.turn for row in transcript_rows})
        await self._keep_cursor(table, cursor)
        self.query_one("#usage-totals", Static).update(usage_summary(requests))

    async def _fill_subagents(self) -> None:
        """One row per child the transcript records; its figures and cuts below."""
        table = self.query_one("#subagents-table", SubagentsTable)
        cursor = table.cursor_row
        table.show_children(self._rows.children)
        await self._keep_cursor(table, cursor)
        self._show_child_detail(table.cursor_row)

    def _show_child_detail(self, row: int) -> None:
        """The highlighted child's lines (as its chat block has them: all its cuts), and how to open it."""
        detail = self.query_one("#subagents-detail", Static)
        children = self._rows.children
        if not 0 <= row < len(children):
            detail.update("No subagents yet: a delegate call's child shows here once it has ended.")
            return
        from co_tui.tui.widgets.subagent_block import block_lines

        view = children[row].view
        lines = block_lines(view, view.finished.elapsed_s if view.finished else None, shown_trims=len(view.trims))
        detail.update(Content("\n").join([*lines, Content.assemble(("enter opens its transcript", "dim italic"))]))

    def on_subagents_table_open_child(self, message: SubagentsTable.OpenChild) -> None:
        """Enter on a Subagents row: the child's saved transcript, as its chat block opens it."""
        if 0 <= message.row < len(self._rows.children):
            from co_tui.session import saved_subagent_events
            from co_tui.tui.screens.subagent import SubagentScreen
            from co_tui.tui.widgets.subagent_block import SubagentBlock

            child = self._rows.children[message.row]
            delegation = child.view.delegation
            block = SubagentBlock(child.view, saved=lambda: saved_subagent_events(child.record, delegation))
            self.app.push_screen(SubagentScreen(block))

    def _show_ledger_detail(self, event: HistoryTrimmed | None) -> None:
        detail = self.query_one("#ledger-detail", Static)
        if event is None:
            detail.update("No trims yet: the model sees the whole conversation.")
            return
        text = Text()
        rows = banner_details(event)
        undo = self._undo_line(event)
        if undo:
            rows = [*rows, ("undo", undo)]
        for label, value in rows:
            text.append(f"{label:>9}  ", style="bold")
            text.append(f"{escape_controls(value, keep_lines=True)}\n")  # a note may quote the model
        detail.update(text)

    def _fill_totals(
        self,
        transcript_rows: Sequence[MessageRow],
        context_rows: Sequence[MessageRow],
        ledger: Sequence[HistoryTrimmed],
    ) -> None:
        reading = self.session.meter_reading()
        user_turns = {row.turn for row in transcript_rows if row.turn > 0}
        turns_in_context = sum(bar.state in ("in_context", "partial") for bar in self._rows.turn_bars)
        transcript_tokens = sum(row.tokens for row in transcript_rows)
        labels = [status_label(row.status) for row in transcript_rows]
        text = Text()
        text.append("In context  ", style="bold")
        limit = f"/{reading.max_messages}" if reading.max_messages else ""
        # Short: the line must stay one line at 100 columns.
        pinned = f" · ~{format_tokens(reading.pinned_tokens)} pinned" if self._pinned_turns else ""
        # A request pydantic-ai fused from two messages (a `!command`'s output and the next prompt) is
        # one message sent but two rows, as in the transcript: the rows are counted, the sent figure
        # (what max_history_messages counts) beside them when it differs.
        shown = len(context_rows)
        count = (
            f"{reading.messages}{limit} messages"
            if shown == reading.messages
            else f"{shown} messages ({reading.messages}{limit} as sent)"
        )
        text.append(
            f"{count} · "
            f"{_tokens_of_budget(reading.context_tokens, reading.budget_tokens, reading.exactness != 'exact')}"
            f" · {turns_in_context} of {plural(len(user_turns), 'user turn')}{pinned}\n"
        )
        text.append("Transcript  ", style="bold")
        text.append(
            f"{plural(len(transcript_rows), 'message')} · {plural(len(user_turns), 'user turn')} · "
            f"~{format_tokens(transcript_tokens)} tokens (messages only)\n"
        )
        text.append("Trims       ", style="bold")
        text.append(
            f"{len(ledger)} · {labels.count('dropped')} dropped · {labels.count('summarised')} summarised · "
            f"{plural(labels.count('output truncated'), 'output')} truncated"
            + (f" · {labels.count('evicted')} evicted" if "evicted" in labels else "")
        )
        if reading.cuts_off:  # no row reads `next to go`: say why (one line at 80 columns)
            text.append("\nNext cut    ", style="bold")
            text.append("none automatic (compact_mode off) · /compact and /clear still cut")
        self.query_one("#history-totals", Static).update(text)

    # --- steering: undo a cut, pin a turn (docs/context-governance.md) ---------------------------

    def _undo_line(self, event: HistoryTrimmed) -> str:
        """The detail pane's `undo` row for the selected cut (empty when there is nothing to say):
        what `u` takes back — this cut, or the whole pass it belongs to, and the cuts after it."""
        if self.steer is None or event.reason in ("clear", "restore"):
            return ""
        index = next((i for i, e in enumerate(self._ledger) if e is event), None)
        if index is None or index not in self._rows.undoable:
            return "undone, or made before co-tui kept what it removed"
        first, last = self._rows.passes[index] if index < len(self._rows.passes) else (index, index)
        later = sum(1 for i in self._rows.undoable if i > last)
        also = f" and the {plural(later, 'cut')} after it" if later else ""
        if first == last:
            return f"press u to undo this cut{also}: the model sees what it removed again"
        return (
            f"press u to undo trims #{first + 1}–{last + 1} together (one pass){also}: "
            "the model sees what they removed again"
        )

    def on_ledger_table_undo_cut(self, message: LedgerTable.UndoCut) -> None:
        """`u` on a Trims row: undo that cut and every cut after it (`Steering.undo`), then read again."""
        if self.steer is not None and 0 <= message.row < len(self._ledger):
            self.run_worker(self._steer(self.steer.undo(message.row)), group="steer", exclusive=True)

    def on_message_table_pin_turn(self, message: MessageTable.PinTurn) -> None:
        """`p` on a row: pin (again: unpin) its turn. A context row stands for the transcript message it
        shows; a marker has none and gets a warning."""
        if self.steer is None:
            return
        rows = self._transcript_rows if message.table == "transcript-table" else self._context_rows
        if not 0 <= message.row < len(rows):
            return
        row = rows[message.row]
        if message.table != "transcript-table":  # a context row: find the transcript message it shows
            # The same turn too: a request fused from two messages is two rows with one context index.
            shown = [r for r in self._transcript_rows if r.context_index == row.index]
            source = next((r for r in shown if r.turn == row.turn), shown[0] if shown else None)
            if source is None:
                self.notify("a marker is not a turn: pin a message of the turn you want kept", severity="warning")
                return
            row = source
        self.run_worker(self._steer(self.steer.toggle_pin(row.index)), group="steer", exclusive=True)

    async def _steer(self, work: Awaitable[str]) -> None:
        line = await work
        self.reload()
        if line:
            self.notify(line)

    # --- actions -----------------------------------------------------------------------------------

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The Trims tab's detail shows the highlighted cut."""
        if event.data_table.id == "ledger-table" and 0 <= event.cursor_row < len(self._ledger):
            self._show_ledger_detail(self._ledger[event.cursor_row])
        elif event.data_table.id == "subagents-table":
            self._show_child_detail(event.cursor_row)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """The shown tab's table takes the keys."""
        # The visible tab's table takes the keys, so ↑/↓ move through it at once.
        event.pane.query_one(DataTable).focus()

    def action_show_tab(self, tab: str) -> None:
        """Switch to the `context`, `transcript` or `ledger` tab."""
        self.query_one("#history-tabs", TabbedContent).active = tab

    def action_reload(self) -> None:
        """Re-read the session."""
        self.reload()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`d` (the message tables' `screen.evict`) only where the screen can steer."""
        if action == "evict":
            return self.steer is not None
        return super().check_action(action, parameters)

    async def action_evict(self) -> None:
        """`d` on a message table: remove the highlighted row's tool output, or its whole older turn,
        from the context (never from the transcript); the chat gets a banner, this screen the
        outcome and a refresh."""
        target = self._evict_target()
        if isinstance(target, str):
            self.notify(target, severity="warning")
            return
        if self.steer is None:
            self.notify("evicting is not available here", severity="warning")
            return
        line = await self.steer.evict(target)
        self.reload()
        self.notify(line, timeout=8)

    def _evict_target(self) -> int | str:
        """The context index the highlighted row stands for, or why there is none."""
        tabs = self.query_one("#history-tabs", TabbedContent)
        rows = {"context": self._context_rows, "transcript": self._transcript_rows}.get(tabs.active)
        if rows is None:
            return "select a message on the In context or Transcript tab to evict it"
        table = self.query_one(f"#{tabs.active}-table", DataTable)
        if not rows or not 0 <= table.cursor_row < len(rows):
            return "nothing to evict"
        row = rows[table.cursor_row]
        index = row.index if tabs.active == "context" else row.context_index
        if index is None:
            return "that message is no longer in the context"
        return index

    def action_close(self) -> None:
        """Back to the chat."""
        self.dismiss(None)
