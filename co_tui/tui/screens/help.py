"""The help screen: keys, slash commands and how context governance shows itself.

Its text is `keys_reference.reference_markdown()`, generated from the command registry, so help,
palette and slash popup can never disagree. It is drawn as one `HelpText` widget, not Textual's
`Markdown` (a widget per block and cell): the first F1 opens several times faster.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from co_tui.tui.key_label import key_label
from co_tui.tui.keys_reference import reference_markdown
from co_tui.tui.widgets.help_text import HelpText

HELP_SCREEN = "help"
"""The name the app installs its one help screen under (built at the first F1, kept after)."""


class HelpScreen(ModalScreen[None]):
    """Keys and commands (`f1`, `/help`). Read-only; Esc, Q or F1 closes it."""

    CSS_PATH = "help.tcss"
    BINDINGS = [
        Binding("escape,q,f1", "dismiss_help", "Close", show=True),
    ]

    def compose(self) -> ComposeResult:
        """The generated keys-and-commands reference, scrollable, in a dialog."""
        with Vertical(id="help-dialog"):
            yield Static("co-tui · keys and commands", id="help-title")
            with VerticalScroll(id="help-body"):
                yield HelpText(reference_markdown(), id="help-text")
            yield Static(f"{key_label('up')}/{key_label('down')} scroll · {key_label('escape')} close", id="help-hint")

    def on_screen_resume(self) -> None:
        """Every open starts at the top, with the keys scrolling the text."""
        # Each open starts at the top, and the scroll container takes the keys, so ↑/↓/PgUp/PgDn
        # scroll the text straight away (the screen is kept between opens).
        # No body: the app is quitting as the help opens (its children are gone); nothing to show.
        for body in self.query("#help-body").results(VerticalScroll):
            body.scroll_home(animate=False)
            body.focus()

    def action_dismiss_help(self) -> None:
        """Close the help and return to where the user was."""
        self.dismiss(None)
