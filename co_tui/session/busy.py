"""`Busy`: whether one conversation is running something now (a turn, a `!command`, `/compact`,
`/clear`) — one flag per session, shared by the collaborators that refuse work meanwhile. The one
wording of that refusal is `wording.busy_line`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Busy"]


@dataclass
class Busy:
    """`running`: a turn or an operation holds the conversation; who starts one sets it, and clears
    it when it ends (also when it is cancelled)."""

    running: bool = False
