"""`finish()` at the one await of the flush that starts an answer's stream: the stream's task was
created but had not run yet (the tool call's event was handled first on a busy loop). Stopping
that stream re-raised the task's cancellation into `finish`: the answer stayed empty and the
turn's job ended as cancelled, the rest of the turn never shown."""

from __future__ import annotations

import asyncio

import pytest
from pilot_helpers import wait_until
from textual.app import App, ComposeResult
from textual.widgets import Markdown

from co_tui.tui.widgets.assistant_message import AssistantMessage
from co_tui.tui.widgets.chat_log import ChatLog


class LogHost(App[None]):
    def compose(self) -> ComposeResult:
        yield ChatLog(id="chat-log")


async def test_finish_before_the_new_stream_first_runs_draws_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    app = LogHost()
    async with app.run_test(size=(80, 24)) as pilot:
        answer = AssistantMessage()
        await app.query_one(ChatLog).add(answer)
        outcome: list[str] = []

        async def end() -> None:  # the job showing the tool call: it ends the answer
            try:
                await answer.finish()
            except BaseException as error:  # what escaped finish, recorded
                outcome.append(repr(error))
                raise
            outcome.append("finished")

        get_stream = Markdown.get_stream

        def stream_after_the_job(markdown: Markdown):
            # The job's step is queued before the stream's task, which the real get_stream creates.
            asyncio.get_running_loop().create_task(end())
            return get_stream(markdown)

        monkeypatch.setattr(Markdown, "get_stream", stream_after_the_job)
        answer.write("I'll ask a subagent to look.")
        await wait_until(pilot, lambda: outcome, what="finish to return or raise")
        await pilot.pause()
        assert outcome == ["finished"]
        assert answer.finished and answer.markdown.source == "I'll ask a subagent to look."
        assert len(answer.markdown.children) == 1
