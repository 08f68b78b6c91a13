"""The rewind picker's second question, when the agent edited files after the chosen prompt: what to
put back — the conversation and the code, the conversation only, or the code only — as Claude
Code's rewind asks. A file changed on disk since the agent's edit is left as it is (said after)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from co_tui.session import FilesBack

NOT_RESTORABLE = "changes made by run_shell or MCP tools cannot be put back"
CHOICES = (
    ("both", "Conversation and code"),
    ("conversation", "Conversation only (the files stay as they are)"),
    ("code", "Code only (the conversation stays as it is)"),
)


class RewindWhatScreen(ModalScreen[str | None]):
    """Dismisses with `both`, `conversation` or `code`, or None (Esc)."""

    CSS_PATH = ["dialog.tcss", "rewind.tcss"]
    BINDINGS = [Binding("escape", "dismiss(None)", "Close", show=False)]

    def __init__(self, turn: int, back: FilesBack) -> None:
        super().__init__(classes="dialog")
        self.turn = turn
        self.back = back

    def compose(self) -> ComposeResult:
        """The files the agent edited after the prompt, then the three choices."""
        with Vertical(id="dialog"):
            yield Static(f"Rewind to before turn {self.turn}: what to put back?", id="dialog-title")
            yield Static(
                Content(f"{self.back.describe()}. Only the agent's write_file and edit_file; {NOT_RESTORABLE}."),
                id="dialog-body",
            )
            yield OptionList(*(Option(Content(label), id=key) for key, label in CHOICES), id="rewind-what")

    def on_mount(self) -> None:
        """The first choice is highlighted and the list takes the keys."""
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Dismiss with the chosen key."""
        self.dismiss(CHOICES[event.option_index][0])
