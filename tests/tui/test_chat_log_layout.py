"""The chat log measures an item again when a widget inside it changed size, even when a later item
asks for a layout in the same pass (`ChatLog.pre_layout`): the log's `layout: stream` keeps the
old placement of every item before the first one noted as asking, and Textual notes an item only
when the item itself asked.

Each test holds the screen's layout (`batch_update`) across both changes, as a loaded host does
when the tool call arrives a few ms after the answer's text: one layout pass then sees both."""

from __future__ import annotations

from pilot_helpers import wait_until
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from co_tui.tui.widgets.assistant_message import AssistantMessage
from co_tui.tui.widgets.chat_log import ChatLog


class LogHost(App[None]):
    def compose(self) -> ComposeResult:
        yield ChatLog(id="chat-log")

    @property
    def log_view(self) -> ChatLog:
        return self.query_one(ChatLog)


def screen_rows(app: App, top: int, bottom: int) -> list[str]:
    update = app.screen._compositor.render_full_update()
    return ["".join(strip.text for strip in row).strip(" ▌") for row in update.strips[top:bottom]]


async def test_an_answer_ended_by_a_tool_call_shows_its_text_above_the_tool_row() -> None:
    """The bug of test_subagent_done under load: the answer's Markdown got its text (`finish`) and
    the tool row came right after it; the answer kept 0 rows and its text was not shown."""
    app = LogHost()
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.log_view
        answer = AssistantMessage()
        await log.add(answer)
        await wait_until(pilot, lambda: answer.region.width > 0, what="the empty answer laid out")
        answer.write("I'll ask a subagent to look.")
        with app.batch_update():
            await answer.finish()  # its Markdown asks for a layout...
            row = Static("delegate")
            await log.add(row)
            row.update("delegate\nexplore · Find which file mentions governance")  # ...and so does the row
        await wait_until(pilot, lambda: row.region.height == 2, what="the row laid out")
        await wait_until(pilot, lambda: answer.markdown.region.height > 0, what="the answer's text laid out")
        await pilot.pause()
        assert answer.region.height == 1, (answer.region, answer.markdown.region)
        assert row.region.y >= answer.region.bottom, "the row below the answer, not over it"
        assert screen_rows(app, answer.region.y, answer.region.bottom) == ["I'll ask a subagent to look."]


async def test_an_item_whose_inner_widget_grew_is_measured_again() -> None:
    """Any item (a tool row whose result came, a subagent's block) grows by a widget inside it."""
    app = LogHost()
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.log_view
        inner, later = Static("one line"), Static("later")
        item = Vertical(inner)
        item.styles.height = "auto"
        await log.add(item, later)
        await wait_until(pilot, lambda: item.region.height == 1 and later.region.height == 1, what="both laid out")
        with app.batch_update():
            inner.update("one\ntwo\nthree")
            later.update("later\nand more")
        await wait_until(pilot, lambda: later.region.height == 2 and inner.region.height == 3, what="both grown")
        await pilot.pause()
        assert item.region.height == 3, item.region
        assert later.region.y >= item.region.bottom
