"""The prompts waiting above the input while a turn runs (docs/keys-and-commands.md, "The queue").

Enter while an answer streams does not interrupt it and does not drop what was typed: the prompt
waits here, visibly, and is sent when the running turn ends (as Claude Code and Codex queue
messages). Esc interrupts the turn and puts the waiting prompts back into the input.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from co_tui.text import escape_controls, one_line

PREVIEW_CHARS = 60


def queue_lines(texts: Sequence[str]) -> str:
    """`↳ queued: fix the tests` per waiting prompt, then what happens to them."""
    lines = [f"↳ queued: {one_line(escape_controls(text), PREVIEW_CHARS)}" for text in texts]
    lines.append("  sent when this turn ends · esc interrupts and puts it back in the prompt")
    return "\n".join(lines)


class QueuedPrompts(Static):
    """The waiting prompts, one line each; hidden when none wait."""

    DEFAULT_CSS = """
    QueuedPrompts {
        height: auto;
        margin: 0 2;
        color: $text-muted;
        display: none;
    }
    QueuedPrompts.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.texts: tuple[str, ...] = ()

    def show(self, texts: Sequence[str]) -> None:
        """Show `texts` as the waiting prompts (none: hide the strip)."""
        self.texts = tuple(texts)
        self.update(Content(queue_lines(self.texts)) if self.texts else "")
        self.set_class(bool(self.texts), "-shown")
