"""`PinChange`: what pinning or unpinning a turn did, and the line that says so."""

from __future__ import annotations

from dataclasses import dataclass, replace

from co_tui.text import format_tokens

__all__ = ["PinChange"]


@dataclass(frozen=True)
class PinChange:
    """What a pin toggle did: `turn` (1-based) is now `pinned` or not; `pinned_tokens` are all the
    pinned turns' tokens now. `note`: said after it (a save that failed)."""

    turn: int
    pinned: bool
    pinned_tokens: int
    note: str = ""

    def noted(self, note: str | None) -> PinChange:
        """This change with `note` (None: as it is): what an applied pin returns."""
        return replace(self, note=note) if note else self

    def describe(self) -> str:
        """The one line shown to the user."""
        if self.pinned:
            line = (
                f"pinned turn {self.turn}: no cut will drop, summarise or shorten it "
                f"(pinned: ~{format_tokens(self.pinned_tokens)} tokens)"
            )
        else:
            line = f"unpinned turn {self.turn} (pinned: ~{format_tokens(self.pinned_tokens)} tokens)"
        return f"{line}; {self.note}" if self.note else line
