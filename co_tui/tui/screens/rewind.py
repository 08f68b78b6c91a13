"""The rewind picker (Esc Esc on an empty idle prompt, `/rewind`): the earlier prompts of the branch
in use, newest first, each with its turn number, age, first line and the context's size then
(docs/keys-and-commands.md; docs/context-governance.md, "Rewind and branches").

Enter on a prompt rewinds to just before it; when the agent edited files after it, a second choice
asks what to put back — the conversation, the code, or both (`RewindWhatScreen`). `f` forks a new
saved session from just before it instead. Esc leaves everything as it was. The line under the list says which file edits can be put back and that
changes made by `run_shell` or MCP tools cannot. The session does the work; this screen only picks.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from co_tui.text import escape_controls, format_tokens
from co_tui.tui.screens.rewind_what import NOT_RESTORABLE, RewindWhatScreen
from co_tui.tui.screens.sessions import format_age

if TYPE_CHECKING:
    from co_tui.session import FilesBack, RewindPoint


@dataclass(frozen=True)
class RewindChoice:
    """What the picker chose: the prompt at transcript index `position`; whether to rewind the
    `conversation` and put the `code` (the agent's file edits after it) back, or `fork` from there."""

    position: int
    conversation: bool = True
    code: bool = False
    fork: bool = False  # a new saved session from just before that prompt instead (`f`)


def point_row(point: RewindPoint, now: float) -> str:
    """One row: `turn 5 · 3 min ago · fix the parser · 12.3k tokens then` (saved text escaped)."""
    first_line = escape_controls(point.first_line)
    if not point.restorable:
        return f"turn {point.turn} · {first_line} · saved before co-tui kept what the model saw: not rewindable"
    age = format_age(datetime.fromtimestamp(point.created, UTC), datetime.fromtimestamp(now, UTC))
    return f"turn {point.turn} · {age} · {first_line} · {format_tokens(point.tokens)} tokens then"


class RewindScreen(ModalScreen[RewindChoice | None]):
    """Dismisses with a `RewindChoice`, or None (Esc)."""

    CSS_PATH = ["dialog.tcss", "rewind.tcss"]
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close", show=False),
        Binding("f", "fork", "Fork from here", show=False),
    ]

    def __init__(
        self, points: Sequence[RewindPoint], files: Mapping[int, FilesBack], *, now: float | None = None
    ) -> None:
        super().__init__(classes="dialog")
        self.points = list(points)
        self.files = dict(files)
        self.now = time.time() if now is None else now

    def compose(self) -> ComposeResult:
        """What a rewind does, the prompts to choose from (plain text, no markup), the files' line."""
        with Vertical(id="dialog"):
            yield Static("Rewind to before an earlier prompt", id="dialog-title")
            yield Static(
                Content(
                    "The conversation goes back to just before the prompt you choose: the context, cuts, "
                    "pins and meter exactly as the model had them then; its text comes back in the input "
                    "to edit and send. The turns after it are kept as a branch (/branches). "
                    "Enter rewinds · f forks a new session from there · Esc leaves everything as it is."
                ),
                id="dialog-body",
            )
            yield OptionList(
                *(
                    Option(Content(point_row(point, self.now)), id=str(i), disabled=not point.restorable)
                    for i, point in enumerate(self.points)
                ),
                id="rewind-points",
            )
            yield Static(id="rewind-files")

    def on_mount(self) -> None:
        """The newest rewindable prompt is highlighted and the list takes the keys."""
        options = self.query_one(OptionList)
        first = next((i for i, p in enumerate(self.points) if p.restorable), None)
        if first is not None:
            options.highlighted = first
        options.focus()
        self._show_files(first)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """The line under the list follows the highlighted prompt."""
        self._show_files(event.option_index)

    def _show_files(self, index: int | None) -> None:
        point = self.points[index] if index is not None and index < len(self.points) else None
        back = self.files.get(point.position) if point is not None else None
        line = back.describe() if back is not None else "no file edits by the agent after it"
        self.query_one("#rewind-files", Static).update(Content(f"Files: {escape_controls(line)}; {NOT_RESTORABLE}."))

    def action_fork(self) -> None:
        """`f`: a new saved session from just before the highlighted prompt (this one stays)."""
        index = self.query_one(OptionList).highlighted
        if index is not None and self.points[index].restorable:
            self.dismiss(RewindChoice(self.points[index].position, conversation=False, fork=True))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A prompt with file edits after it asks what to put back; else the conversation rewinds."""
        point = self.points[event.option_index]
        back = self.files.get(point.position)
        if back is None or not back.edits:
            self.dismiss(RewindChoice(point.position))
            return

        def chosen(what: str | None) -> None:
            if what is not None:
                self.dismiss(RewindChoice(point.position, conversation=what != "code", code=what != "conversation"))

        self.app.push_screen(RewindWhatScreen(point.turn, back), chosen)
