"""A stream faster than the chat draws leaves a backlog (issue 40, item 7: a 10 MB answer made Esc
take 29 s): no flush and no `finish()` renders more than a bounded part of it at once; what
`finish()` does not draw is said, and the conversation keeps it."""

from __future__ import annotations

from pilot_helpers import wait_until
from textual.app import App, ComposeResult

from co_tui.tui.widgets import assistant_message
from co_tui.tui.widgets.assistant_message import FINISH_CHARS, SEGMENT_CHARS, AssistantMessage
from co_tui.tui.widgets.chat_log import ChatLog

PARAGRAPH = "A paragraph of an answer that goes on about the context and the files.\n\n"
BACKLOG = PARAGRAPH * 4_000  # 288,000 characters, all arrived before the first flush


class LogHost(App[None]):
    def compose(self) -> ComposeResult:
        yield ChatLog(id="chat-log", widget_budget=10_000)


async def test_a_flush_writes_a_segment_only_up_to_its_share_of_a_backlog() -> None:
    async with LogHost().run_test(size=(100, 40)) as pilot:
        answer = AssistantMessage()
        await pilot.app.query_one(ChatLog).add(answer)
        answer.write(BACKLOG)
        await wait_until(pilot, lambda: answer.next is not None, what="the first segment handed over")
        # The first segment took its share, up to its first safe cut past SEGMENT_CHARS; the rest went on.
        assert SEGMENT_CHARS <= len(answer.text) <= SEGMENT_CHARS + len(PARAGRAPH)
        assert len(answer.markdown.source) == len(answer.text)
        await answer.live.finish()


async def test_finish_draws_a_bounded_part_of_a_backlog_and_says_how_much_is_not() -> None:
    async with LogHost().run_test(size=(100, 40)) as pilot:
        answer = AssistantMessage()
        await pilot.app.query_one(ChatLog).add(answer)
        answer.write(BACKLOG)
        await answer.finish(interrupted=True)  # Esc before any flush: the whole backlog is pending
        await pilot.pause()
        source = answer.markdown.source
        assert len(source) <= FINISH_CHARS + 2 * len(PARAGRAPH) + 200
        assert source.endswith("the conversation keeps them (`/export` writes them all).*")
        not_drawn = len(BACKLOG) - len(source.split("\n\n*…")[0]) - 2  # the cut drops the blank line
        assert f"*… {not_drawn:,} more characters of this answer are not drawn here" in source
        assert answer.interrupted and answer.has_class("-interrupted")


async def test_a_small_backlog_is_drawn_whole(monkeypatch) -> None:
    monkeypatch.setattr(assistant_message, "FINISH_CHARS", 100_000)
    async with LogHost().run_test(size=(100, 40)) as pilot:
        answer = AssistantMessage()
        await pilot.app.query_one(ChatLog).add(answer)
        answer.write(PARAGRAPH * 100)
        await answer.finish()
        await pilot.pause()
        assert answer.markdown.source == PARAGRAPH * 100
