"""The picker of `r` on a summary banner: which lost item to bring back (docs/keys-and-commands.md).

Lists the items the summary check found lost (paths, names, numbers); Enter recovers the highlighted
one as a short verbatim excerpt at the end of the context, Esc closes. The session does the work
(`SessionPort.recover`); this screen only picks.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from co_tui.text import escape_controls


class RecoverLostScreen(ModalScreen[str | None]):
    """Dismisses with the picked item, or None (Esc)."""

    CSS_PATH = ["dialog.tcss", "recover_lost.tcss"]
    BINDINGS = [Binding("escape", "dismiss(None)", "Close", show=False)]

    def __init__(self, items: Sequence[str], kept_line: str) -> None:
        super().__init__(classes="dialog")
        self.items = list(items)
        self.kept_line = kept_line

    def compose(self) -> ComposeResult:
        """What bringing an item back does, then the lost items to choose from (plain text, no markup)."""
        from co_tui.session import MAX_EXCERPT_CHARS

        with Vertical(id="dialog"):
            yield Static("Bring a lost item back?", id="dialog-title")
            yield Static(
                Content(
                    f"The summary {escape_controls(self.kept_line.split(';')[0])}. Enter appends the lines around the item's "
                    f"mentions in the summarised messages, verbatim (at most {MAX_EXCERPT_CHARS:,} chars), "
                    "at the end of the context. Esc closes; /undo takes it back out."
                ),
                id="dialog-body",
            )
            # The items are the summariser's words: escaped.
            yield OptionList(*(Option(Content(escape_controls(item)), id=str(i)) for i, item in enumerate(self.items)))

    def on_mount(self) -> None:
        """The first item is highlighted and the list takes the keys."""
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Dismiss with the chosen item (the caller recovers it)."""
        self.dismiss(self.items[event.option_index])
