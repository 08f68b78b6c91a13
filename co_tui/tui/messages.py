"""Textual messages of the TUI: user intents, and what the session-opening worker brings back.

The prompt posts intents (`SendPrompt`, `RunSlash`) and the app hands them to the controller (keys
and the palette call the app's actions), so screens never reach into each other. The worker that
opens a session posts `SessionPreview`, `SessionReady` or `SessionFailed` (it runs in a thread).
Domain events reach the chat screen as calls of `ChatScreen.show_event` from the controller's job,
in order; `SessionEvent` carries one from elsewhere (a job's worker that died).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the domain modules stay out of the start-up import path of the TUI
    import threading

    from co_tui.session import Event, HistoryTrimmed, SessionPort
    from co_tui.tui.transcript_view import Item


# Plain classes with their `__init__` written out, not dataclasses: the six were ~1 ms of the
# imports before the first frame (Python 3.11 compiles each generated method at import).


class SendPrompt(Message):
    """The user submitted `text` as a prompt (not a slash command)."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__()


class RunSlash(Message):
    """The user submitted a slash command line, e.g. `/compact tests only`."""

    def __init__(self, line: str) -> None:
        self.line = line
        super().__init__()


class SessionEvent(Message):
    """One domain event from the session (`TextDelta`, `ToolCall`, `HistoryTrimmed`, `Done`, ...)."""

    def __init__(self, event: Event) -> None:
        self.event = event
        super().__init__()


class SessionReady(Message):
    """The session exists (it is created in a worker after the first paint)."""

    def __init__(self, session: SessionPort) -> None:
        self.session = session
        super().__init__()


class SessionPreview(Message):
    """A saved conversation read from the store's raw rows, to show while its session (and
    pydantic-ai) still loads: the newest `items` (`window_items`), the trim banners among them as
    (position, event), how many chat entries the whole conversation has, and the "Resumed …"
    figures; `cuts` is the whole ledger's length (None: `len(banners)`). The start-up worker waits
    for `shown` (set once it is on screen) before it imports pydantic-ai."""

    def __init__(
        self,
        session_id: str,
        title: str,
        items: list[Item],
        banners: list[tuple[int, HistoryTrimmed]],
        entries: int,
        turns: int,
        messages: int,
        shown: threading.Event,
        cuts: int | None = None,
    ) -> None:
        self.session_id = session_id
        self.title = title
        self.items = items
        self.banners = banners
        self.entries = entries
        self.turns = turns
        self.messages = messages
        self.shown = shown
        self.cuts = cuts
        super().__init__()


class SessionFailed(Message):
    """The ChatSession could not be created; `message` is the one line to show. `busy`: it is open
    in another co-tui process (no configuration error: the line says what to do)."""

    def __init__(self, message: str, exit_code: int = 2, busy: bool = False) -> None:
        self.message = message
        self.exit_code = exit_code
        self.busy = busy
        super().__init__()


__all__ = [
    "RunSlash",
    "SendPrompt",
    "SessionEvent",
    "SessionFailed",
    "SessionPreview",
    "SessionReady",
]
