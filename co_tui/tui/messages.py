"""Textual messages of the TUI: user intents, and what the session-opening worker brings back.

The prompt posts intents (`SendPrompt`, `RunSlash`) and the app hands them to the controller (keys
and the palette call the app's actions), so screens never reach into each other. The worker that
opens a session posts `SessionPreview`, `SessionReady` or `SessionFailed` (it runs in a thread).
Domain events reach the chat screen as calls of `ChatScreen.show_event` from the controller's job,
in order; `SessionEvent` carries one from elsewhere (a job's worker that died).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the domain modules stay out of the start-up import path of the TUI
    from co_tui.session import Event, HistoryTrimmed, SessionPort
    from co_tui.tui.transcript_view import Item


@dataclass
class SendPrompt(Message):
    """The user submitted `text` as a prompt (not a slash command)."""

    text: str


@dataclass
class RunSlash(Message):
    """The user submitted a slash command line, e.g. `/compact tests only`."""

    line: str


@dataclass
class SessionEvent(Message):
    """One domain event from the session (`TextDelta`, `ToolCall`, `HistoryTrimmed`, `Done`, ...)."""

    event: Event


@dataclass
class SessionReady(Message):
    """The session exists (it is created in a worker after the first paint)."""

    session: SessionPort


@dataclass
class SessionPreview(Message):
    """A saved conversation read from the store's raw rows, to show while its session (and
    pydantic-ai) still loads: the newest `items` (`window_items`), the trim banners among them as
    (position, event), how many chat entries the whole conversation has, and the "Resumed …"
    figures; `cuts` is the whole ledger's length (None: `len(banners)`). The start-up worker waits
    for `shown` (set once it is on screen) before it imports pydantic-ai."""

    session_id: str
    title: str
    items: list[Item]
    banners: list[tuple[int, HistoryTrimmed]]
    entries: int
    turns: int
    messages: int
    shown: threading.Event
    cuts: int | None = None


@dataclass
class SessionFailed(Message):
    """The ChatSession could not be created; `message` is the one line to show. `busy`: it is open
    in another co-tui process (no configuration error: the line says what to do)."""

    message: str
    exit_code: int = 2
    busy: bool = False


__all__ = [
    "RunSlash",
    "SendPrompt",
    "SessionEvent",
    "SessionFailed",
    "SessionPreview",
    "SessionReady",
]
