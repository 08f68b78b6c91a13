"""The `/memory` screen: every remembered note, with the file and line it came from (the user's own
memory first, then the workspace's); `e` or Enter edits the highlighted note in place, `d` or Del
deletes it. The session's `Memory` (co_tui/session/memory.py) reads and writes the files; this only
shows them. A note's text is the files' (a repository may ship one): control characters are shown
escaped, never obeyed. Dismissed with True when something was changed (the meter counts it again).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from co_tui.session import Refused, entry_where
from co_tui.text import escape_controls, one_line
from co_tui.tui.key_label import key_label

if TYPE_CHECKING:
    from co_tui.session import Memory, MemoryEntry

__all__ = ["MemoryScreen"]

KEYS = (
    f"{key_label('e')} / {key_label('enter')} edit · {key_label('d')} / {key_label('delete')} delete · "
    f"{key_label('escape')} close"
)
EDIT_KEYS = f"{key_label('enter')} save · {key_label('escape')} cancel"


def entry_option(entry: MemoryEntry, label: str) -> Option:
    """One row: where the note is (`.co-tui/memory.md:5`), then the note, escaped."""
    where = escape_controls(entry_where(entry, label))
    return Option(Content.assemble((where, "dim"), "  ", escape_controls(one_line(entry.text, 300))))


class MemoryScreen(ModalScreen[bool]):
    """Lists the notes; edits and deletes them (see the module docstring). Esc or q closes."""

    CSS_PATH = "memory.tcss"
    BINDINGS = [
        Binding("e,enter", "edit", "Edit the highlighted note"),
        Binding("d,delete", "delete", "Delete the highlighted note"),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, memory: Memory) -> None:
        super().__init__()
        self.memory = memory
        self.entries: list[MemoryEntry] = []
        self.editing: MemoryEntry | None = None
        self.changed = False

    def compose(self) -> ComposeResult:
        """Title, where the files are, the notes (or why there are none), the edit field, the keys."""
        memory = self.memory
        with Vertical(id="memory-dialog"):
            yield Static("co-tui · memory", id="memory-title")
            where = f"workspace: {memory.label_of('workspace')} · yours: {memory.label_of('global')}"
            if not memory.sent:
                where += " · not sent: project_instructions is off"
            yield Static(Content(escape_controls(where)), id="memory-where")
            yield OptionList(id="memory-list")
            yield Static(Content(""), id="memory-empty")
            # Not selected on focus: a key typed then edits the note rather than replacing it.
            yield Input(id="memory-edit", select_on_focus=False)
            yield Static(Content(""), id="memory-status")
            yield Static(Content(KEYS), id="memory-footer")

    async def on_mount(self) -> None:
        """Read the notes (off the UI loop) and give the list the keys."""
        self.query_one("#memory-edit", Input).display = False
        await self._fill()
        self.query_one(OptionList).focus()

    async def _fill(self) -> None:
        self.entries = await asyncio.to_thread(self.memory.entries)
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        options.add_options(entry_option(e, self.memory.label_of(e.scope)) for e in self.entries)
        empty = not self.entries
        options.display = not empty
        errors = [f.error for f in self.memory.files.files if f.error]
        text = f"Nothing remembered yet. Type #note at the prompt to add one to {self.memory.label_of('workspace')}."
        self.query_one("#memory-empty", Static).update(
            Content(escape_controls("\n".join([text, *errors]) if empty else "\n".join(errors)))
        )
        self.query_one("#memory-empty").display = empty or bool(errors)
        if not empty:
            options.highlighted = min(highlighted or 0, len(self.entries) - 1)

    def _highlighted(self) -> MemoryEntry | None:
        index = self.query_one(OptionList).highlighted
        return self.entries[index] if index is not None and 0 <= index < len(self.entries) else None

    def _status(self, text: str) -> None:
        self.query_one("#memory-status", Static).update(Content(escape_controls(text)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on a note edits it (the list takes Enter before the screen's binding)."""
        event.stop()
        self.action_edit()

    def action_edit(self) -> None:
        """Open the highlighted note's text for editing (Enter saves, Esc cancels)."""
        entry = self._highlighted()
        if entry is None or self.editing is not None:
            return
        self.editing = entry
        field = self.query_one("#memory-edit", Input)
        field.value = entry.text
        field.display = True
        field.focus()
        field.cursor_position = len(entry.text)
        self.query_one("#memory-footer", Static).update(Content(EDIT_KEYS))

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        """Save the edited note in its place."""
        event.stop()
        entry = self.editing
        if entry is None:
            return
        try:
            new = await self.memory.edit(entry, event.value)
        except Refused as exc:
            self._status(str(exc))
            return
        self.changed = True
        self._status(f"saved {entry_where(new, self.memory.label_of(new.scope))}")
        self._stop_editing()
        await self._fill()

    def _stop_editing(self) -> None:
        self.editing = None
        self.query_one("#memory-edit", Input).display = False
        self.query_one("#memory-footer", Static).update(Content(KEYS))
        self.query_one(OptionList).focus()

    async def action_delete(self) -> None:
        """Delete the highlighted note from its file."""
        entry = self._highlighted()
        if entry is None or self.editing is not None:
            return
        try:
            await self.memory.delete(entry)
        except Refused as exc:
            self._status(str(exc))
            return
        self.changed = True
        self._status(f"deleted {entry_where(entry, self.memory.label_of(entry.scope))}: {one_line(entry.text, 80)}")
        await self._fill()

    def action_close(self) -> None:
        """Esc: cancel an edit, else close the screen."""
        if self.editing is not None:
            self._stop_editing()
            return
        self.dismiss(self.changed)
