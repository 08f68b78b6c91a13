"""/undo, /pin and the inspector's `u` and `p` on the real session (offline model, SQLite store)."""

from __future__ import annotations

import pytest
from pilot_helpers import inspector_loaded, send_prompt, wait_idle, wait_ready, wait_until
from textual.widgets import DataTable, TabbedContent

SIZE = (100, 32)


@pytest.fixture
def app(real_app):
    return real_app


async def _compact(pilot) -> None:
    """/compact, confirmed in its preview dialog (Enter)."""
    await pilot.press(*"/compact", "enter")
    await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "ConfirmCompact", what="compact preview")
    await pilot.press("enter")
    await wait_until(pilot, lambda: _banners(pilot, "compact"), what="the compact banner")
    await wait_idle(pilot)


def _banners(pilot, kind: str) -> list:
    return list(pilot.app.chat.query(f"TrimBanner.-{kind}"))


def _hint(pilot) -> str:
    return str(pilot.app.chat.query_one("#hint").render())


async def test_undo_brings_back_what_compact_summarised(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "/undo")
        assert "nothing to undo" in _hint(pilot)
        await send_prompt(pilot, "hello")
        await send_prompt(pilot, "read README.md")
        before = list(app.session.context)
        await _compact(pilot)
        assert _banners(pilot, "compact") and app.session.context != before
        await send_prompt(pilot, "/undo")
        await wait_until(pilot, lambda: _banners(pilot, "restore"), what="the restore banner")
        assert list(app.session.context) == before
        event = _banners(pilot, "restore")[0].event
        assert event.reason == "restore" and event.strategy == "compact" and event.restored_messages > 0
        await send_prompt(pilot, "/undo")
        assert "nothing left to undo" in _hint(pilot)


async def test_p_pins_a_turn_and_u_undoes_a_cut_in_the_inspector(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "hello")
        await send_prompt(pilot, "read README.md")
        await _compact(pilot)
        await pilot.press("f2")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HistoryScreen", what="the inspector")
        await inspector_loaded(pilot)
        screen = app.screen
        # Trims tab: u undoes the selected cut (the compaction).
        await pilot.press("l")
        await pilot.pause()
        assert "press u to undo this cut" in str(screen.query_one("#ledger-detail").render())
        await pilot.press("u")
        await wait_until(pilot, lambda: app.session.ledger[-1].reason == "restore", what="the restore")
        await wait_until(pilot, lambda: screen.query_one("#ledger-table", DataTable).row_count == 2, what="reload")
        assert app.session.undoable_cuts() == []
        # Transcript tab: p on the first message pins turn 1; the row says so, the meter counts it.
        await pilot.press("t")
        await pilot.pause()
        table = screen.query_one("#transcript-table", DataTable)
        table.move_cursor(row=0)
        await pilot.press("p")
        await wait_until(pilot, lambda: list(app.session.pins) == [0], what="the pin")
        await wait_until(pilot, lambda: str(table.get_row_at(0)[4]) == "pinned", what="the pinned row")
        assert " pinned" in str(screen.query_one("#history-totals").render())
        assert app.session.meter_reading().pinned_tokens > 0
        await pilot.press("p")  # again: unpinned
        await wait_until(pilot, lambda: list(app.session.pins) == [], what="the unpin")
        assert screen.query_one("#history-tabs", TabbedContent).active == "transcript"
        await pilot.press("escape")
        await send_prompt(pilot, "/pin")
        await wait_until(pilot, lambda: list(app.session.pins) == [2], what="/pin pins the newest turn")
        assert "pinned turn 2" in _hint(pilot)
        assert "pinned" in str(app.chat.query_one("ContextMeter").render())


async def test_a_refused_undo_names_the_message_limit_not_the_token_budget(workspace):
    """Issue 32 item 4: refused by the message limit (12 messages of 8), /undo said `over the
    100,000-token budget`."""
    from quiet_app import QuietApp

    from co_tui.config import load_settings

    settings = load_settings(context_budget_tokens=100_000, context_strategy="trim", max_history_messages=8)
    app = QuietApp(settings, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        for i in range(8):
            await send_prompt(pilot, f"hello number {i}")
            if app.session.ledger:
                break
        assert app.session.ledger and app.session.ledger[-1].reason == "message_count"
        await send_prompt(pilot, "/undo")
        hint = _hint(pilot)
        assert "over the 8-message limit" in hint and "over the 100,000-token budget" not in hint, hint
