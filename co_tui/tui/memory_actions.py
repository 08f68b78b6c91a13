"""The TUI's memory commands: `#note` / `/remember [--global] note` and `/memory`.

Only showing: the session's `Memory` (co_tui/session/memory.py) plans, asks (the approval dialog
shows the exact line and the file it goes to) and writes; this says the outcome in one line in
the chat, or opens the `/memory` screen (screens/memory.py).
"""

from __future__ import annotations

from typing import Any

from co_tui.session import Refused, parse_remember

__all__ = ["remember", "show_memory"]


def remember(app: Any, argument: str) -> None:
    """`/remember [--global] note` (and `#note`): ask, write, then one line naming the file."""
    controller = app.controller
    if not controller.session_ready_for("remember"):
        return
    scope, note = parse_remember(argument)
    app.spawn(_remember(app, note, scope))


async def _remember(app: Any, note: str, scope: str) -> None:
    session = app.session
    assert session is not None
    chat = app.chat
    try:
        line = await session.memory.remember(note, "global" if scope == "global" else "workspace")
    except Refused as exc:
        chat.show_hint(str(exc))
        return
    await chat.add_notice(line)
    await chat.show_event(session.meter_reading())  # every request now carries the note


def show_memory(app: Any) -> None:
    """`/memory`: the notes, where each came from; edit or delete them."""
    session = app.session
    if not app.controller.session_ready_for("memory") or session is None:
        return
    from co_tui.tui.screens.memory import MemoryScreen

    def closed(changed: bool | None) -> None:
        if changed and app.session is session:
            app.spawn(app.chat.show_event(session.meter_reading()))

    app.push_screen(MemoryScreen(session.memory), closed)
