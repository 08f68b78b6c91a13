"""`compact_mode = "off"` in the TUI, on the real session (offline model): no automatic cut will
come, so the history inspector marks nothing `next to go` and says why, and `auto` brings the
marks back (docs/context-governance.md, "Compact mode")."""

from __future__ import annotations

from pathlib import Path

from pilot_helpers import inspector_loaded, paste, wait_idle, wait_ready, wait_until
from quiet_app import QuietApp
from textual.widgets import DataTable, Static

from co_tui.config import load_settings

SIZE = (80, 24)  # the line fits one row of the smallest terminal
OFF_LINE = "Next cut    none automatic (compact_mode off) · /compact and /clear still cut"


async def _inspect(pilot) -> tuple[list[str], str]:
    """Open the inspector (F2): the In context tab's statuses and the totals above the tabs."""
    from co_tui.tui.screens.history import HistoryScreen

    await pilot.press("f2")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, HistoryScreen), what="the inspector")
    await inspector_loaded(pilot)
    table = pilot.app.screen.query_one("#context-table", DataTable)
    statuses = [str(table.get_row_at(i)[4]) for i in range(table.row_count)]
    totals = str(pilot.app.screen.query_one("#history-totals", Static).render())
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(pilot.app.screen, HistoryScreen), what="the chat")
    return statuses, totals


async def test_off_marks_nothing_next_to_go_and_says_nothing_is_cut_automatically(workspace: Path):
    app = QuietApp(load_settings(compact_mode="off", max_history_messages=8), workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        for i in range(5):  # 10 messages: past the limit of 8, uncut
            await paste(pilot, f"note {i}")
            await pilot.press("enter")
            await wait_idle(pilot)
        statuses, totals = await _inspect(pilot)
        assert "next to go" not in statuses, statuses
        assert OFF_LINE in totals.splitlines()
        app.session.set_compact_mode("auto")
        statuses, totals = await _inspect(pilot)
        assert "next to go" in statuses and "Next cut" not in totals
