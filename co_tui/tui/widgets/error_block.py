"""An error (or an interrupt notice) in the chat log: one line, the app keeps running."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from co_tui.text import screen_text

KIND_LABEL = {
    "provider": "provider error",
    "auth": "authentication error",
    "config": "configuration error",
    "overflow": "context overflow",
    "network": "network error",
    "interrupted": "interrupted",
    "storage": "storage error",
    "internal": "error",
    "oversized": "over budget",  # an `oversized_turn` sent whole: a warning, not a failure
}


class ErrorBlock(Static):
    """`✗ provider error  HTTP 500 from openai:gpt-4o — retried 2 times`; interrupts are a dim notice."""

    DEFAULT_CSS = """
    ErrorBlock {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $error;
        background: $error 12%;
        color: $text-error;
    }
    ErrorBlock.-interrupted {
        border-left: outer $warning 60%;
        background: transparent;
        color: $text-warning;
        text-style: italic;
    }
    ErrorBlock.-oversized {
        border-left: outer $warning;
        background: $warning 10%;
        color: $text-warning;
    }
    """

    def __init__(self, message: str, kind: str = "provider") -> None:
        icon = {"interrupted": "⏹", "oversized": "⚠"}.get(kind, "✗")
        label = KIND_LABEL.get(kind, kind)
        shown = screen_text(message)  # a provider's or a tool's words: never terminal controls
        body = shown if kind == "interrupted" else f"{label}  {shown}"
        super().__init__(Content.assemble((f"{icon} ", "bold"), body), classes=f"-{kind}")
        self.message = message
        self.kind = kind
