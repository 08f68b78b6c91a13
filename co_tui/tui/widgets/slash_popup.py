"""The slash-command completion popup shown under the prompt while typing `/…`."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from co_tui.tui.commands import CommandSpec, complete


class SlashPopup(OptionList):
    """Registry commands matching the typed prefix; the prompt keeps focus and drives it."""

    DEFAULT_CSS = """
    SlashPopup {
        display: none;
        height: auto;
        max-height: 10;
        margin: 0 1;
        border: none;
        padding: 0;
        background: $surface;
    }
    SlashPopup.-open { display: block; }
    SlashPopup:focus { border: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = False
        self.matches: list[CommandSpec] = []

    @property
    def is_open(self) -> bool:
        """Whether the popup is showing."""
        return self.has_class("-open")

    def show_for(self, prefix: str) -> bool:
        """Open with the commands starting with `prefix` (e.g. `/co`); close when none match."""
        matches = complete(prefix)
        if not matches:
            self.close()
            return False
        if [m.name for m in matches] != [m.name for m in self.matches]:
            self.matches = matches
            width = max(len(m.usage or m.slash) for m in matches)
            self.set_options(Option(self._row(m, width), id=m.name) for m in matches)
        if self.highlighted is None:
            self.highlighted = 0
        self.add_class("-open")
        return True

    @staticmethod
    def _row(spec: CommandSpec, width: int) -> Content:
        key = f"  {spec.key}" if spec.key else ""
        return Content.assemble(
            ((spec.usage or spec.slash).ljust(width), "bold $text-accent"), "  ", spec.summary, (key, "$text-muted")
        )

    def close(self) -> None:
        """Hide the popup."""
        self.remove_class("-open")

    def move(self, delta: int) -> None:
        """Move the highlight up (-1) or down (+1), wrapping."""
        if self.matches:
            self.highlighted = ((self.highlighted or 0) + delta) % len(self.matches)

    @property
    def selected(self) -> CommandSpec | None:
        """The highlighted command, if the popup is open."""
        if not self.is_open or self.highlighted is None or self.highlighted >= len(self.matches):
            return None
        return self.matches[self.highlighted]
