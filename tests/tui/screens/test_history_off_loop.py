"""The history inspector reads its rows off the UI loop (a resumed transcript decodes from SQLite):
keys work while it reads, and a resize only re-fits the preview column (docs/architecture.md,
"Nothing blocks the UI loop")."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from screen_host import TERMINAL, inspector_loaded, make_host, screen_env, until  # (fixtures)
from support.builders import module_turn
from test_history_screen import CutSession
from textual.widgets import DataTable, Static, TabbedContent
from textual.widgets.data_table import ColumnKey

from co_tui.tui.screens.history import HistoryScreen, MessageTable

__all__ = ["make_host", "screen_env", "until"]

GATE_S = 20.0  # a read held on the loop (the bug) gives up after this, so the test fails, not hangs


class GatedTranscript(Sequence[Any]):
    """A transcript whose every read of messages waits for `gate` (as a lazy transcript waits on the
    store), saying when a read started and when one returned."""

    def __init__(self, messages: list[Any]) -> None:
        self.messages = messages
        self.gate = threading.Event()
        self.reading = threading.Event()
        self.returned = threading.Event()

    def _wait(self) -> None:
        self.reading.set()
        self.gate.wait(GATE_S)
        self.returned.set()

    def __len__(self) -> int:
        return len(self.messages)

    def __getitem__(self, index: Any) -> Any:
        self._wait()
        return self.messages[index]

    def __iter__(self) -> Iterator[Any]:
        self._wait()
        return iter(self.messages)


def _gated() -> tuple[CutSession, GatedTranscript]:
    messages = [m for i in range(2) for m in module_turn(i)]
    transcript = GatedTranscript(messages)
    return CutSession(transcript, list(messages)), transcript  # type: ignore[arg-type]


@asynccontextmanager
async def read_held(pilot: Any, until: Any, transcript: GatedTranscript, what: str) -> AsyncIterator[None]:
    """The inspector's read of `transcript` under way and held for the body, which must finish
    without it (`what` waited for it otherwise); then the read goes on."""
    try:
        await until(pilot, transcript.reading.is_set, what="the read under way")
        yield
        assert not transcript.returned.is_set(), f"{what} waited for the read"
    finally:
        transcript.gate.set()


async def test_keys_work_while_the_rows_are_read(make_host, until):
    session, transcript = _gated()
    app = make_host(lambda: HistoryScreen(session))
    async with app.run_test(size=TERMINAL) as pilot:
        async with read_held(pilot, until, transcript, what="the key"):
            screen = app.screen
            assert isinstance(screen, HistoryScreen) and not screen.loaded
            assert str(screen.query_one("#history-totals", Static).render()) == "Reading 8 messages…"
            await pilot.press("3")
            tabs = screen.query_one("#history-tabs", TabbedContent)
            await until(pilot, lambda: tabs.active == "ledger", what="the Trims tab")
        await inspector_loaded(pilot)
        assert screen.query_one("#transcript-table", DataTable).row_count == 8


async def test_escape_closes_the_inspector_while_it_reads(make_host, until):
    session, transcript = _gated()
    app = make_host(lambda: HistoryScreen(session))
    async with app.run_test(size=TERMINAL) as pilot:
        async with read_held(pilot, until, transcript, what="Esc"):
            await pilot.press("escape")
            await until(pilot, lambda: app.results == [None], what="the inspector closed")
        assert not isinstance(app.screen, HistoryScreen)


async def test_a_resize_refits_the_preview_without_refilling(make_host, until, monkeypatch):
    session = CutSession([m for i in range(3) for m in module_turn(i)], [])
    session.context = list(session.transcript)
    fills: list[str] = []
    clear = MessageTable.clear

    def counting_clear(self: MessageTable, columns: bool = False) -> MessageTable:
        fills.append(self.id or "")
        return clear(self, columns)

    monkeypatch.setattr(MessageTable, "clear", counting_clear)
    app = make_host(lambda: HistoryScreen(session))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        table = app.screen.query_one("#context-table", DataTable)
        before, wide_before, drawn = table.columns[ColumnKey("preview")].width, table.virtual_size.width, list(fills)
        assert sorted(drawn) == ["context-table", "transcript-table"]
        await pilot.resize_terminal(TERMINAL[0] + 30, TERMINAL[1])
        await until(
            pilot, lambda: table.columns[ColumnKey("preview")].width == before + 30, what="the wider preview column"
        )
        assert fills == drawn, "the resize refilled the tables"
        assert table.row_count == len(session.transcript)
        # The table re-measured itself: its rows are drawn 30 cells wider, the columns before alike.
        await until(pilot, lambda: table.virtual_size.width == wide_before + 30, what="the table re-measured")


async def test_a_resize_across_the_narrow_line_lays_the_tables_out_again(make_host, until):
    """Narrowed to 60 columns the full columns would leave the preview 8 cells: the turn column goes
    (the tables are laid out again, every row kept); widened back, it returns."""
    session = CutSession([m for i in range(3) for m in module_turn(i)], [])
    session.context = list(session.transcript)
    app = make_host(lambda: HistoryScreen(session))

    def labels(table: DataTable) -> list[str]:
        return [str(column.label) for column in table.ordered_columns]

    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        tables = [app.screen.query_one(f"#{name}-table", DataTable) for name in ("context", "transcript")]
        assert all(labels(table)[1] == "turn" for table in tables)
        await pilot.resize_terminal(60, TERMINAL[1])
        for table in tables:
            await until(
                pilot,
                lambda t=table: "turn" not in labels(t) and t.row_count == len(session.transcript),
                what=f"{table.id} laid out without the turn column",
            )
            assert table.ordered_columns[-1].width >= 19, "the preview keeps its room"
        # The tab on screen fits its width (measured again a refresh after its columns changed).
        await until(pilot, lambda: tables[0].max_scroll_x == 0, what="the tab on screen to fit its width")
        await pilot.resize_terminal(*TERMINAL)
        for table in tables:
            await until(
                pilot,
                lambda t=table: labels(t)[1] == "turn" and t.row_count == len(session.transcript),
                what=f"{table.id} with its turn column again",
            )
