"""The controller says "nothing to compact yet" when a compaction ends with `Done.reason`
`NOTHING_TO_COMPACT` — read from the reason, not from the text of `Done.output`, which for a
compaction that ran is the model's summary and may say anything."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from co_tui.session import Done, DoneReason, Event
from co_tui.tui.controller import ChatController


class RecordingView:
    """The part of `ChatView` and `ChatHost` a compaction's events reach, recording the hints and events."""

    def __init__(self) -> None:
        self.hints: list[str] = []
        self.events: list[Event] = []

    def show_hint(self, text: str, *, info: bool = False) -> None:
        self.hints.append(text)

    async def show_event(self, event: Event) -> None:
        self.events.append(event)

    async def end_answer(self) -> None:
        pass

    def busy_changed(self, label: str | None) -> None:
        pass


async def stream(*events: Event) -> AsyncIterator[Event]:
    for event in events:
        yield event


@pytest.mark.parametrize(
    ("done", "hinted"),
    [
        (Done(output="nothing to compact", reason=DoneReason.NOTHING_TO_COMPACT), True),
        # A summary that happens to read so is a compaction that ran: no hint (the old sentinel's bug).
        (Done(output="nothing to compact"), False),
        (Done(output="The user asked about the parser."), False),
        (Done(output="", failed=True), False),
    ],
)
async def test_the_hint_follows_the_reason_of_done(tmp_path: Path, done: Done, hinted: bool) -> None:
    view = RecordingView()
    controller = ChatController(view, view, tmp_path)  # type: ignore[arg-type]
    await controller._show_events(stream(done), compaction=True)
    assert view.hints == (["nothing to compact yet"] if hinted else [])
    assert view.events == [done]
