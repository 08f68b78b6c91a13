"""The confirm dialog of /compact (ctrl+k): what will be summarised and the estimated size after.

Enter (or ctrl+k again) compacts, Esc keeps the conversation as it is. docs/keys-and-commands.md.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static


def compact_summary(messages: int, turns: int, tokens_before: int, tokens_after: int, focus: str | None) -> str:
    """The dialog's body: what the summary replaces, the estimated request after it, and the focus."""
    from co_tui.tui.format import format_tokens

    body = (
        f"{messages} message{'s' if messages != 1 else ''} ({turns} turn{'s' if turns != 1 else ''}, "
        f"~{format_tokens(tokens_before)} tokens) will be summarised into one recap by the model.\n"
        f"Estimated size after: at most ~{format_tokens(tokens_after)} tokens "
        f"(the summary's length is known once it is written).\n"
        "The transcript keeps everything; the banner will say what the summary kept."
    )
    if focus:
        body += f"\nFocus: {focus}"
    return body


class ConfirmCompact(ModalScreen[bool]):
    """Dismisses with True to compact, False to keep the conversation as it is."""

    CSS_PATH = "dialog.tcss"
    BINDINGS = [
        Binding("escape,n", "dismiss(False)", "Keep", show=False),
        Binding("enter,y,ctrl+k", "dismiss(True)", "Compact", show=False, priority=True),
    ]

    def __init__(self, body: str) -> None:
        super().__init__(classes="dialog")
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Compact the conversation?", id="dialog-title")
            yield Static(Content(self.body), id="dialog-body")
            with Horizontal(id="dialog-buttons"):
                yield Button("Keep (esc)", id="keep", variant="default")
                yield Button("Compact (enter)", id="compact", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#compact", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "compact")
