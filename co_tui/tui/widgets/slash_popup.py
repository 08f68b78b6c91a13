"""The slash-command completion popup shown under the prompt while typing `/…`."""

from __future__ import annotations

from textual.content import Content
from textual.widgets.option_list import Option

from co_tui.tui.commands import CommandSpec, complete
from co_tui.tui.widgets.completion_popup import CompletionPopup


class SlashPopup(CompletionPopup):
    """Registry commands matching the typed prefix; the prompt keeps focus and drives it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.matches: list[CommandSpec] = []

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
        self.open()
        return True

    @staticmethod
    def _row(spec: CommandSpec, width: int) -> Content:
        key = f"  {spec.key}" if spec.key else ""
        return Content.assemble(
            ((spec.usage or spec.slash).ljust(width), "bold $text-accent"), "  ", spec.summary, (key, "$text-muted")
        )

    @property
    def selected(self) -> CommandSpec | None:
        """The highlighted command, if the popup is open."""
        if not self.is_open or self.highlighted is None or self.highlighted >= len(self.matches):
            return None
        return self.matches[self.highlighted]
