"""`d` in the history inspector: evict through the controller on the real session."""

from __future__ import annotations

import pytest
from pilot_helpers import inspector_loaded, send_prompt, wait_idle, wait_ready, wait_until
from pydantic_ai.messages import ModelRequest, ToolReturnPart
from textual.notifications import Notify
from textual.widgets import DataTable

from co_tui.governance.markers import separate_markers

SIZE = (110, 34)


class _Notes(list):
    """The text of every notification the app posts (Textual's public `Notify` message)."""

    def __call__(self, message: object) -> None:
        if isinstance(message, Notify):
            self.append(message.notification.message)


@pytest.fixture
def app(real_app):
    return real_app


async def test_d_evicts_a_tool_output_then_refuses_the_newest_turn(app):
    notes = _Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "read README.md")
        await send_prompt(pilot, "hello")
        transcript = list(app.session.transcript)
        context = separate_markers(app.session.context)
        output = next(
            i
            for i, m in enumerate(context)
            if isinstance(m, ModelRequest) and any(isinstance(p, ToolReturnPart) for p in m.parts)
        )
        await pilot.press("f2")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HistoryScreen", what="inspector")
        await inspector_loaded(pilot)
        table = app.screen.query_one("#context-table", DataTable)
        table.move_cursor(row=output)
        await pilot.press("d")
        await wait_until(pilot, lambda: any(e.reason == "manual_evict" for e in app.session.ledger), what="evict")
        await wait_until(pilot, lambda: any("prompt cache" in n for n in notes), what="the cache warning")
        assert app.session.transcript == transcript
        await wait_until(pilot, lambda: str(table.get_row_at(output)[4]) == "evicted", what="the evicted row")
        # The newest turn: refused, with the reason.
        table.move_cursor(row=table.row_count - 1)
        await pilot.press("d")
        await wait_until(pilot, lambda: any("newest turn" in n for n in notes), what="refusal")
        assert sum(e.reason == "manual_evict" for e in app.session.ledger) == 1
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.chat.query("TrimBanner"), what="banner in the chat")
        from co_tui.session.banner import banner_line

        line = banner_line(app.chat.query("TrimBanner").last().event)
        assert line.startswith("✂ Removed from the context · output of read_file(path=README.md)"), line


async def test_evicting_a_turn_updates_the_meter_names_it_and_u_undoes_it(app):
    """Walk-through: after `d` the meter still counted the evicted turn's messages, the Trims row
    said "oldest turns removed" for a turn from the middle, and `u` refused to undo it."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        for prompt in ("hello", "list co_tui", "hello again"):
            await send_prompt(pilot, prompt)
        shown = len(separate_markers(app.session.context))
        assert app.chat.meter.reading.messages == shown
        await pilot.press("f2")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HistoryScreen", what="inspector")
        await inspector_loaded(pilot)
        table = app.screen.query_one("#context-table", DataTable)
        table.move_cursor(row=2)  # the prompt of turn 2, "list co_tui": the turn goes
        await pilot.press("d")
        await wait_until(pilot, lambda: any(e.reason == "manual_evict" for e in app.session.ledger), what="evict")
        evicted = len(separate_markers(app.session.context))
        assert evicted < shown
        await wait_until(pilot, lambda: app.chat.meter.reading.messages == evicted, what="the meter's new count")
        await pilot.press("3")
        ledger = app.screen.query_one("#ledger-table", DataTable)
        await wait_until(pilot, lambda: ledger.row_count == 1, what="the Trims row")
        assert str(ledger.get_row_at(0)[2]) == "an older turn removed"
        await pilot.press("u")
        await wait_until(pilot, lambda: app.session.ledger[-1].reason == "restore", what="the undo")
        await wait_until(pilot, lambda: app.chat.meter.reading.messages == shown, what="the meter after the undo")


async def test_d_is_offered_on_the_message_tabs_only(app):
    """The footer offered `d Evict` on the Trims and Usage tabs too, where it only said to go back to
    a message tab: now `d` is the message tables' key, as `p` is, and the Trims tab evicts nothing."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "read README.md")
        await pilot.press("f2")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HistoryScreen", what="inspector")
        await inspector_loaded(pilot)

        def offered() -> set[str]:
            return {binding.key for _node, binding, enabled, _tip in app.screen.active_bindings.values() if enabled}

        for tab, shown in [("1", True), ("2", True), ("3", False), ("4", False)]:
            await pilot.press(tab)
            await wait_until(pilot, lambda shown=shown: ("d" in offered()) == shown, what=f"d offered={shown} on {tab}")
        await pilot.press("d")  # on the Usage tab: nothing happens
        await pilot.press("3", "d")
        await wait_idle(pilot)
        assert not any(e.reason == "manual_evict" for e in app.session.ledger)
