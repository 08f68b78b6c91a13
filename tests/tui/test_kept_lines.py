"""Containers of a streaming answer keep their drawn lines as they grow, and their growth asks
for no second layout (co_tui/tui/widgets/kept_lines.py)."""

from __future__ import annotations

from pilot_helpers import wait_until
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.widget import Widget

from co_tui.tui.widgets.assistant_message import AssistantMessage
from co_tui.tui.widgets.chat_log import ChatLog
from co_tui.tui.widgets.kept_lines import KeptLines


class LogHost(App[None]):
    def compose(self) -> ComposeResult:
        yield ChatLog(id="chat-log")
        yield Vertical(id="plain")  # Textual's own container, for comparison

    @property
    def log_view(self) -> ChatLog:
        return self.query_one(ChatLog)


async def drawn_answer(app: LogHost, pilot, paragraphs: int = 2) -> AssistantMessage:
    answer = AssistantMessage("\n\n".join(f"paragraph {n}" for n in range(paragraphs)))
    await app.log_view.add(answer)
    await wait_until(
        pilot, lambda: len(answer.markdown.children) == paragraphs and answer.region.height > 0, what="render"
    )
    await pilot.pause()
    return answer


def grow(widget: Widget, lines: int = 3, width: int = 0) -> bool:
    """Place `widget` as a reflow would, `lines` taller (and `width` wider)."""
    size = Size(widget.outer_size.width + width, widget.outer_size.height + lines)
    return widget._size_updated(size, size, widget.container_size)


async def test_an_answer_grown_taller_keeps_the_lines_it_drew_and_asks_for_no_layout() -> None:
    app = LogHost()
    async with app.run_test(size=(60, 20)) as pilot:
        answer = await drawn_answer(app, pilot)
        plain = app.query_one("#plain", Vertical)
        for widget in (answer, answer.markdown):
            assert isinstance(widget, KeptLines)
            drawn = dict(widget._styles_cache._cache)
            assert drawn, f"{widget} drew its lines"
            assert grow(widget), "a resize is still reported (Resize events)"
            assert dict(widget._styles_cache._cache) == drawn, f"{widget} keeps the same line objects"
            assert not widget._layout_required, f"{widget}'s growth asks for no second layout"
        # Textual's own container draws all again and asks for another layout.
        plain_size = Size(10, 2)
        plain._size_updated(plain_size, plain_size, plain.container_size)
        assert plain._layout_required


async def test_a_wider_answer_draws_its_lines_again() -> None:
    app = LogHost()
    async with app.run_test(size=(60, 20)) as pilot:
        answer = await drawn_answer(app, pilot)
        assert answer._styles_cache._cache
        grow(answer, lines=0, width=-5)
        assert not answer._styles_cache._cache, "lines drawn at another width are dropped"


async def test_the_log_taking_a_larger_scrollable_size_asks_for_no_layout() -> None:
    app = LogHost()
    async with app.run_test(size=(60, 20)) as pilot:
        await drawn_answer(app, pilot, paragraphs=20)  # taller than the log: its scrollbar shows
        log = app.log_view
        assert log.show_vertical_scrollbar
        larger = Size(log.virtual_size.width, log.virtual_size.height + 40)
        log._size_updated(log.size, larger, log.container_size)
        assert log.virtual_size == larger
        assert not log._layout_required
        assert log.max_scroll_y > 0, "the scrollbars follow the new size"
