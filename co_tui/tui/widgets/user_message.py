"""A user prompt in the chat log."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from co_tui.text import plural, screen_text
from co_tui.tui.format import TEXT_LAYOUT_MAX, format_bytes


def shown_text(text: str, *, sent: bool = True) -> str:
    """`text` for the log: whole up to `TEXT_LAYOUT_MAX` characters, else its first lines and a note of
    how much more there is: sent (the session gets it all), or not (`sent` False: refused)."""
    if len(text) <= TEXT_LAYOUT_MAX:
        return screen_text(text)
    head = "\n".join(text[:2_000].split("\n")[:20])
    more = text.count("\n") - head.count("\n")
    rest = plural(more, "more line") if more else plural(len(text) - len(head), "more character")
    size = format_bytes(len(text.encode("utf-8", "surrogatepass")))
    return f"{screen_text(head)}\n… {rest} ({size} in all, {'sent in full' if sent else 'not sent'})"


class UserMessage(Static):
    """The prompt as typed (markup is not interpreted), with a `›` gutter; a very long one is
    shown shortened (`shown_text`)."""

    DEFAULT_CSS = """
    UserMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $primary;
        background: $primary 10%;
        color: $foreground;
    }
    UserMessage.-queued { color: $text-muted; }
    UserMessage.-unsent { color: $text-muted; border-left: outer $error 60%; }
    """

    def __init__(self, text: str, *, queued: bool = False) -> None:
        super().__init__(Content(shown_text(text)), classes="-queued" if queued else "")
        self.text = text

    def mark_unsent(self) -> None:
        """The session refused this prompt (over the model's window), or its `!command` did not run: say so."""
        self.add_class("-unsent")
        self.update(Content(shown_text(self.text, sent=False)))
