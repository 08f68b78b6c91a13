"""Keeping a session's project instructions current: checked before every turn, read again on `/clear`.

The files themselves are loaded by `co_tui.agent.project_instructions`; this module tells the
session's governance and meter the new size of what every request carries, and words the line the
user sees when the instructions changed mid-session (it changes what the model is sent).
Blocking (stat and read): `ChatSession` runs `refresh_instructions` in a thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from co_tui.session.events import Notice
from co_tui.session.request_overhead import sync_overhead

if TYPE_CHECKING:
    from co_tui.agent.project_instructions import InstructionFile
    from co_tui.session.chat import ChatSession


def reload_notice(files: Sequence[InstructionFile]) -> str:
    """The line saying the instructions were reloaded, and what is loaded now."""
    from co_tui.agent.project_instructions import describe_files

    loaded = describe_files(files)
    now = loaded.removeprefix("instructions: ") if loaded else "no instructions file now"
    return f"Project instructions changed — the model is sent the new ones from this turn on: {now}"


def refresh_instructions(session: ChatSession) -> list[Notice]:
    """Before a turn: re-read the instruction files when one appeared, changed or went away.

    Returns the lines to show (none when nothing changed): the reload, and one per file that could
    not be read. Never raises: a failure to look leaves the loaded instructions as they were.
    """
    project = session.project
    errors_before = set(project.errors)
    try:
        changed = project.refresh()
    except OSError as exc:
        return [Notice(message=f"project instructions not re-read: {exc.strerror or exc}")]
    notices = [Notice(message=error) for error in project.errors if error not in errors_before]
    if changed:
        sync_overhead(session)
        notices.insert(0, Notice(message=reload_notice(project.files)))
    return notices


def reload_instructions(session: ChatSession) -> None:
    """`/clear`: read the instruction files again, whether or not they changed. Never raises."""
    try:
        session.project.reload()
    except OSError:
        return
    sync_overhead(session)


__all__ = ["refresh_instructions", "reload_instructions", "reload_notice"]
