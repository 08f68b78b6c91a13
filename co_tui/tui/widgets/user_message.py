"""A user prompt in the chat log."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class UserMessage(Static):
    """The prompt as typed (markup is not interpreted), with a `›` gutter."""

    DEFAULT_CSS = """
    UserMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $primary;
        background: $primary 10%;
        color: $foreground;
    }
    UserMessage.-queued { color: $text-muted; }
    """

    def __init__(self, text: str, *, queued: bool = False) -> None:
        super().__init__(Content(text), classes="-queued" if queued else "")
        self.text = text
