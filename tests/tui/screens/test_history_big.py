"""The history inspector on a big resumed session (issue 33: 5,000 turns took 6 s and 265 MB to
open): it shows its first rows and the whole session's totals, adds rows a page at a time, reaches
the last row on ctrl+end, and leaves the session's transcript undecoded. The real app, a real
SQLite store; benchmarks/long_session.py has the time and memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pilot_helpers import wait_ready, wait_until
from support.long_sessions import save_long_session
from textual.widgets import Static, TabbedContent

from co_tui.config import load_settings
from co_tui.session.lazy_transcript import LazyTranscript
from co_tui.tui.app import CoTuiApp
from co_tui.tui.screens.history import HistoryScreen
from co_tui.tui.widgets.message_table import MessageTable
from co_tui.tui.widgets.paged_table import PAGE_ROWS, PagedTable

TURNS = 400  # 1,600 messages and 800 requests: several pages of each


def _preview(table: PagedTable, row: int) -> str:
    return str(table.get_row_at(row)[-1])


async def test_the_inspector_on_a_big_session_shows_its_first_rows_and_the_whole_sessions_totals(
    workspace: Path,
) -> None:
    sid = save_long_session(TURNS, workspace)
    app = CoTuiApp(load_settings(), workspace, resume_id=sid)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("f2")
        await wait_until(
            pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.loaded, what="the inspector"
        )
        screen = app.screen
        await pilot.press("t")
        table = screen.query_one("#transcript-table", MessageTable)
        # The first page is there, the rest is not yet; the totals and the tab count the whole session.
        assert table.row_count == PAGE_ROWS and table.total == 4 * TURNS
        assert _preview(table, 0) == "read file_0.py" and _preview(table, 3) == "file_0.py defines handler 0."
        totals = str(screen.query_one("#history-totals", Static).render())
        assert f"{4 * TURNS:,} messages · {TURNS} user turns" in totals
        assert screen.query_one("#history-tabs", TabbedContent).get_tab("transcript").label.plain == (
            f"Transcript ({4 * TURNS})"
        )
        usage = screen.query_one("#usage-table", PagedTable)
        assert usage.row_count == PAGE_ROWS and usage.total == 2 * TURNS
        # Going down adds the next page before the cursor reaches the end of what is there.
        table.move_cursor(row=PAGE_ROWS - 1)
        await pilot.pause()
        assert PAGE_ROWS < table.row_count < table.total
        # ctrl+end: every row, the cursor on the last one.
        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: table.cursor_row == 4 * TURNS - 1, what="the last row")
        assert table.row_count == 4 * TURNS
        assert _preview(table, table.cursor_row) == f"file_{TURNS - 1}.py defines handler {TURNS - 1}."
        transcript = app.session.transcript
        assert isinstance(transcript, LazyTranscript) and transcript.decoded < TURNS  # read, not kept
