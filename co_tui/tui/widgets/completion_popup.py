"""The base of the prompt's completion popups (`/command`, `@path`): a list under the prompt that the
prompt drives while it keeps the focus (it never takes it: typed keys stay in the prompt, in order)."""

from __future__ import annotations

from textual.widgets import OptionList


class CompletionPopup(OptionList):
    """Hidden until opened; `move` walks the highlight, wrapping. Subclasses fill it (`set_options`)
    and say what is picked."""

    DEFAULT_CSS = """
    CompletionPopup {
        display: none;
        height: auto;
        max-height: 10;
        margin: 0 1;
        border: none;
        padding: 0;
        background: $surface;
    }
    CompletionPopup.-open { display: block; }
    CompletionPopup:focus { border: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = False

    @property
    def is_open(self) -> bool:
        """Whether the popup is showing."""
        return self.has_class("-open")

    def open(self) -> None:
        """Show the popup, the first row highlighted unless one is."""
        if self.highlighted is None:
            self.highlighted = 0
        self.add_class("-open")

    def close(self) -> None:
        """Hide the popup."""
        self.remove_class("-open")

    def move(self, delta: int) -> None:
        """Move the highlight up (-1) or down (+1), wrapping."""
        if self.option_count:
            self.highlighted = ((self.highlighted or 0) + delta) % self.option_count
