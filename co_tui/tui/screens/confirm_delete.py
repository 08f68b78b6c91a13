"""The confirm dialog before a saved session is deleted: deleting cannot be undone."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmDeleteScreen(ModalScreen[bool]):
    """Asks whether to delete the session called `title`; dismisses with True (delete) or False."""

    CSS_PATH = "confirm_delete.tcss"
    BINDINGS = [
        Binding("y", "answer(True)", "Delete"),
        Binding("n,escape", "answer(False)", "Keep"),
    ]

    def __init__(self, title: str, messages: int) -> None:
        super().__init__()
        self.session_title = title
        self.messages = messages

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-delete-dialog"):
            yield Static("Delete this session?", id="confirm-delete-title")
            yield Static(
                f"“{self.session_title or 'untitled'}” — {self.messages} messages, its trim ledger and "
                "summaries will be removed for good.",
                id="confirm-delete-body",
            )
            with Horizontal(id="confirm-delete-buttons"):
                yield Button("Keep it (n)", id="keep", variant="primary")
                yield Button("Delete (y)", id="delete", variant="error")

    def on_mount(self) -> None:
        # The safe answer has the focus: a stray Enter keeps the session.
        self.query_one("#keep", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "delete")

    def action_answer(self, delete: bool) -> None:
        """Close the dialog with the user's answer."""
        self.dismiss(delete)
