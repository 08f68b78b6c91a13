"""The lines a front end prints as it closes a session: how to resume it, or where its rescue copy
went after a failed save (`lifecycle.SessionLifecycle.aclose`, `opening.quit_lines`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from co_tui.session.port import SessionPort

__all__ = ["rescue_line", "resume_hint"]


def resume_hint(session: SessionPort | None) -> str | None:
    """The line printed when the TUI quits, as Codex and Claude Code do: how to come back to
    `session` (`resume with: co-tui --resume ID`). None for no session, one with no turn or not saved."""
    if session is None or not session.saved or not session.transcript:
        return None
    return f"resume with: co-tui --resume {session.id}"


def rescue_line(rescued: Path | None) -> str:
    """The line (stderr) saying where a rescue copy of a conversation the database lacks went
    (`write_rescue_copy`'s file), or that none could be written (None)."""
    if rescued is None:
        return "the conversation could not be saved, nor written to a rescue copy beside the database"
    return (
        f"the conversation could not be saved to the database; it was written to {rescued} instead "
        f"(co-tui --resume {rescued} reads it back)"
    )
