"""How a saved session's times read, the same in every front end (`--list-sessions`, `/sessions`)."""

from __future__ import annotations

from datetime import datetime


def format_updated(value: datetime) -> str:
    """`value` in the local time zone, to the minute (`2026-11-24 13:05`): what the user's clock said."""
    return value.astimezone().strftime("%Y-%m-%d %H:%M")
