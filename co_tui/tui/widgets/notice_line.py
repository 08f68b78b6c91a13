"""A dim one-line notice in the chat log (model switched, session resumed, export written, hints)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from co_tui.text import screen_text


class NoticeLine(Static):
    """Informational text that is not part of the conversation."""

    DEFAULT_CSS = """
    NoticeLine {
        margin: 1 0 0 0;
        padding: 0 1;
        color: $text-muted;
        text-style: italic;
    }
    """

    def __init__(self, text: str, *, id: str | None = None) -> None:
        super().__init__(Content(screen_text(text)), id=id)  # may quote a hook, a server, a file
        self.text = text

    def set_text(self, text: str) -> None:
        """Replace the notice's text."""
        self.text = text
        self.update(Content(screen_text(text)))
