"""`Busy`: whether one conversation is running something now (a turn, a `!command`, `/compact`,
`/clear`) — one flag per session, shared by the collaborators that refuse work meanwhile — and
`busy_line`, the one wording of that refusal for the session and every front end."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BUSY", "Busy", "busy_line"]

BUSY = "a turn is running — press esc to interrupt it first"
"""What is refused while a turn (or `/compact`, `/clear`, a `!command`) runs, and what to do."""


def busy_line(doing: str) -> str:
    """The one line refusing `doing` ("undoing a cut", "/rewind") while a turn runs: lower case, no
    full stop (the `Refused` wording rule, governance/refused.py)."""
    return f"{doing}: {BUSY}"


@dataclass
class Busy:
    """`running`: a turn or an operation holds the conversation; who starts one sets it, and clears
    it when it ends (also when it is cancelled)."""

    running: bool = False
