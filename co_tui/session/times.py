"""How a saved session's times and origin read, the same in every front end (`--list-sessions`, `/sessions`)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from co_tui.session.saved_session import SessionMeta


def format_updated(value: datetime) -> str:
    """`value` in the local time zone, to the minute (`2026-11-24 13:05`): what the user's clock said."""
    return value.astimezone().strftime("%Y-%m-%d %H:%M")


def fork_origin(meta: SessionMeta) -> str:
    """`  (fork of 1a2b3c4d after 3 turns)` for a session made by `/fork` or `--fork-session`
    (`--list-sessions`, `/sessions`), else ''."""
    if not meta.forked_from:
        return ""
    after = f" after {meta.forked_at} turn{'' if meta.forked_at == 1 else 's'}" if meta.forked_at is not None else ""
    return f"  (fork of {meta.forked_from[:8]}{after})"
