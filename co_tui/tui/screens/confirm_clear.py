"""The confirm dialog of /clear (ctrl+l): says what leaves the model's view and that it stays saved."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static


def clear_summary(messages: int, tokens: int, turns: int, session_saved: bool, title: str) -> str:
    """The dialog's body text: what is discarded and where the old conversation lives on."""
    from co_tui.tui.format import format_tokens

    what = (
        f"{messages} message{'s' if messages != 1 else ''} ({turns} turn{'s' if turns != 1 else ''}, "
        f"~{format_tokens(tokens)} tokens) leave the model's context and the chat is emptied."
    )
    if session_saved:
        name = f"“{title}”" if title else "this session"
        keep = f"The old conversation stays saved as {name}: /sessions resumes it."
    else:
        keep = "Nothing has been saved yet, so this conversation will be gone."
    return f"{what}\n{keep}"


class ConfirmClear(ModalScreen[bool]):
    """Dismisses with True to clear, False to keep the conversation."""

    CSS_PATH = "dialog.tcss"
    BINDINGS = [
        Binding("escape,n", "dismiss(False)", "Keep", show=False),
        Binding("y", "dismiss(True)", "Clear", show=False),
    ]

    def __init__(self, body: str) -> None:
        super().__init__(classes="dialog -danger")
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Clear the conversation?", id="dialog-title")
            yield Static(Content(self.body), id="dialog-body")
            with Horizontal(id="dialog-buttons"):
                yield Button("Keep (n)", id="keep", variant="default")
                yield Button("Clear (y)", id="clear", variant="error")

    def on_mount(self) -> None:
        self.query_one("#keep", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "clear")
