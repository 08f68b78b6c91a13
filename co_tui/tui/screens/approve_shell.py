"""The approval dialog for `run_shell` (only offered when `allow_shell` is on) and for MCP tool
calls that need approval (`mcp_approve`, or marked destructive by their server)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ApproveShell(ModalScreen[bool]):
    """Shows the exact command (or MCP tool call); dismisses with True to run it, False to refuse."""

    CSS_PATH = "dialog.tcss"
    BINDINGS = [
        Binding("escape,n", "dismiss(False)", "Deny", show=False),
        Binding("y", "dismiss(True)", "Run", show=False),
    ]

    def __init__(self, command: str, *, tool: str = "run_shell") -> None:
        super().__init__(classes="dialog")
        self.command = command
        self.tool = tool

    def compose(self) -> ComposeResult:
        shell = self.tool == "run_shell"
        with Vertical(id="dialog"):
            yield Static("Run this shell command?" if shell else "Call this MCP tool?", id="dialog-title")
            body = "The model asked to run, in the workspace:" if shell else f"The model asked to call {self.tool}:"
            yield Static(body, id="dialog-body")
            yield Static(Content(self.command), id="dialog-command")
            with Horizontal(id="dialog-buttons"):
                yield Button("Deny (n)", id="deny", variant="default")
                yield Button("Run (y)", id="run", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#deny", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "run")
