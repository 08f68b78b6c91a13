"""The TUI's memory commands: `#note` / `/remember [--global] note` and `/memory`.

Only showing: the session's `Memory` (co_tui/session/memory.py) plans, asks (the approval dialog
shows the exact line and the file it goes to) and writes; this says the outcome in one line in
the chat, or opens the `/memory` screen (screens/memory.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from co_tui.session import Refused, parse_remember

if TYPE_CHECKING:
    from co_tui.session import SessionPort
    from co_tui.tui.controller import ChatController
    from co_tui.tui.screens.chat import ChatScreen

__all__ = ["remember", "show_memory"]


def remember(controller: ChatController, chat: ChatScreen, argument: str) -> None:
    """`/remember [--global] note` (and `#note`): ask, write, then one line naming the file."""
    session = controller.ready_for("/remember", idle=False)  # the memory files, not the conversation
    if session is not None:
        scope, note = parse_remember(argument)
        controller.host.spawn(_remember(session, chat, note, scope))


async def _remember(session: SessionPort, chat: ChatScreen, note: str, scope: str) -> None:
    try:
        line = await session.memory.remember(note, "global" if scope == "global" else "workspace")
    except Refused as exc:
        chat.show_hint(str(exc))
        return
    await chat.add_notice(line)
    await chat.show_event(session.meter_reading())  # every request now carries the note


def show_memory(controller: ChatController, chat: ChatScreen) -> None:
    """`/memory`: the notes, where each came from; edit or delete them."""
    session = controller.ready_for("/memory", idle=False)
    if session is None:
        return
    from co_tui.tui.screens.memory import MemoryScreen

    def closed(changed: bool | None) -> None:
        if changed and controller.session is session:
            controller.host.spawn(chat.show_event(session.meter_reading()))

    chat.app.push_screen(MemoryScreen(session.memory), closed)
