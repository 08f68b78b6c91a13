"""The confirm dialog before a saved session is deleted: deleting cannot be undone."""

from __future__ import annotations

from co_tui.text import escape_controls
from co_tui.tui.screens.yes_no import Answer, YesNoDialog


class ConfirmDeleteScreen(YesNoDialog):
    """Asks whether to delete the session called `title`; dismisses with True (delete) or False."""

    CSS_PATH = ["dialog.tcss", "confirm_delete.tcss"]
    NO = Answer("Keep it (n)", "keep", "n,escape", "Keep", variant="primary")
    YES = Answer("Delete (y)", "delete", "y", "Delete", variant="error")
    FOCUS = "keep"  # the safe answer: a stray Enter keeps the session

    def __init__(self, title: str, messages: int) -> None:
        super().__init__(
            "Delete this session?",
            f"“{escape_controls(title) or 'untitled'}” — {messages} messages, its trim ledger and summaries will be removed for good.",
            classes="-delete",
        )
        self.session_title = title
        self.messages = messages
