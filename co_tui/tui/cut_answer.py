"""`CutAnswer`: what the user answered the ask dialog (tui/screens/ask_cut.py) about a send that
would cut, as the controller carries it out (`ChatController.cut_answered`). No Textual here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["CutAnswer", "CutChoice"]

# cut as planned; /compact with `focus`; the history inspector to pin or evict, then the question
# again; send over the budget once (the dialog refuses it past the model's window).
CutChoice = Literal["cut", "compact", "inspect", "over_budget"]


@dataclass(frozen=True)
class CutAnswer:
    """One answer of the ask dialog: `choice`, and the focus typed for `/compact` (None: none)."""

    choice: CutChoice
    focus: str | None = None
