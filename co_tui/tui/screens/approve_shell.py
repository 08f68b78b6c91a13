"""The approval dialog for `run_shell` (only offered when `allow_shell` is on) and for MCP tool
calls that need approval (`mcp_approve`, or marked destructive by their server)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from co_tui.tui.screens.yes_no import Answer, YesNoDialog


class ApproveShell(YesNoDialog):
    """Shows the exact command (or MCP tool call); dismisses with True to run it, False to refuse."""

    NO = Answer("Deny (n)", "deny", "escape,n", "Deny")
    YES = Answer("Run (y)", "run", "y", "Run", variant="warning")
    FOCUS = "deny"

    def __init__(self, command: str, *, tool: str = "run_shell") -> None:
        shell = tool == "run_shell"
        super().__init__(
            "Run this shell command?" if shell else "Call this MCP tool?",
            "The model asked to run, in the workspace:" if shell else f"The model asked to call {tool}:",
        )
        self.command = command
        self.tool = tool

    def compose_body(self) -> ComposeResult:
        """The body, then the exact command (or tool call) as plain text: markup in it is shown, never applied."""
        yield from super().compose_body()
        yield Static(Content(self.command), id="dialog-command")
