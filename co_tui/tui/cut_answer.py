"""`CutAnswer`: what the user answered the ask dialog (tui/screens/ask_cut.py) about a send that
would cut; the session reads it (`co_tui.session.ask_flow.next_step`). Re-exported from there."""

from __future__ import annotations

from co_tui.session import CutAnswer, CutChoice

__all__ = ["CutAnswer", "CutChoice"]
