"""The sessions picker (`/sessions`): saved sessions of this workspace, newest first.

Enter resumes (the screen dismisses with the session id), `d` deletes after a confirm, Esc cancels
(dismisses with None). A session that cannot be read shows its one-line error in the list and in
the status line; the picker stays open and nothing crashes.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from co_tui.session.banner import format_tokens
from co_tui.tui.screens.confirm_delete import ConfirmDeleteScreen

if TYPE_CHECKING:
    from co_tui.session.store import SessionMeta, SessionStore

_TITLE_CHARS = 48


def format_updated(value: datetime) -> str:
    """A timestamp in the local time zone, to the minute."""
    return value.astimezone().strftime("%Y-%m-%d %H:%M")


class SessionsScreen(ModalScreen[str | None]):
    """Pick a saved session of `workspace` to resume; `current_id` (the open one) is marked."""

    CSS_PATH = "sessions.tcss"
    BINDINGS = [
        Binding("enter", "resume", "Resume"),
        Binding("d,delete", "delete", "Delete"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, store: SessionStore, workspace: Path, *, current_id: str | None = None) -> None:
        super().__init__()
        self.store = store
        self.workspace = Path(workspace)
        self.current_id = current_id
        self.sessions: list[SessionMeta] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-dialog"):
            yield Static(f"Sessions · {self.workspace}", id="sessions-title")
            yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
            yield Static(id="sessions-status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#sessions-table", DataTable)
        table.add_column("", key="mark")
        table.add_column("title", key="title")
        table.add_column("updated", key="updated")
        table.add_column("model", key="model")
        table.add_column("msgs", key="messages")
        table.add_column("tokens", key="tokens")
        self.reload()
        table.focus()

    # --- the list ----------------------------------------------------------------------------------

    def reload(self) -> None:
        """Re-read the list from the store (a failure becomes the status line, the list stays)."""
        from co_tui.session.store_errors import StoreError

        try:
            self.sessions = self.store.list_sessions(self.workspace)
        except StoreError as exc:
            self._status(str(exc), error=True)
            return
        table = self.query_one("#sessions-table", DataTable)
        table.clear()
        for meta in self.sessions:
            table.add_row(*self._cells(meta), key=meta.id)
        if self.sessions:
            self._status("Enter resume · d delete · Esc cancel")
        else:
            self._status("No saved sessions in this workspace yet.")

    def _cells(self, meta: SessionMeta) -> tuple[Text, ...]:
        title = meta.title or "untitled"
        if len(title) > _TITLE_CHARS:
            title = title[: _TITLE_CHARS - 1] + "…"
        mark = Text("●", style="green") if meta.id == self.current_id else Text(" ")
        if meta.damaged:
            title_cell = Text.assemble(("⚠ ", "bold red"), (title, "red"))
            mark = Text("⚠", style="bold red")
        else:
            title_cell = Text(title)
        return (
            mark,
            title_cell,
            Text(format_updated(meta.updated)),
            Text(meta.model, style="dim"),
            Text(str(meta.messages), justify="right"),
            Text(format_tokens(meta.tokens), justify="right"),
        )

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#sessions-status", Static)
        status.update(Text(text, style="bold red" if error else ""))
        status.set_class(error, "-error")

    def _highlighted(self) -> SessionMeta | None:
        table = self.query_one("#sessions-table", DataTable)
        if not self.sessions or not 0 <= table.cursor_row < len(self.sessions):
            return None
        return self.sessions[table.cursor_row]

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        meta = self._highlighted()
        if meta is not None and meta.damaged:
            self._status(meta.damaged, error=True)
        elif meta is not None:
            self._status("Enter resume · d delete · Esc cancel")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_resume()

    # --- actions -----------------------------------------------------------------------------------

    def action_resume(self) -> None:
        """Dismiss with the highlighted session's id, once it is known to load."""
        from co_tui.session.store_errors import StoreError

        meta = self._highlighted()
        if meta is None:
            return
        try:
            # Read it now, so a damaged session is reported here instead of failing after the switch.
            self.store.load(meta.id)
        except StoreError as exc:
            self.reload()  # the store has flagged it as damaged: show that in the list
            self._status(str(exc), error=True)
            return
        self.dismiss(meta.id)

    def action_delete(self) -> None:
        """Ask, then delete the highlighted session (not the open one)."""
        meta = self._highlighted()
        if meta is None:
            return
        if meta.id == self.current_id:
            self._status("This is the open session: /clear first to start another, then delete it.",
                         error=True)
            return
        self.app.push_screen(ConfirmDeleteScreen(meta.title, meta.messages),
                             callback=lambda delete: self._delete(meta, bool(delete)))

    def _delete(self, meta: SessionMeta, confirmed: bool) -> None:
        from co_tui.session.store_errors import StoreError

        if not confirmed:
            self._status("Kept.")
            return
        table = self.query_one("#sessions-table", DataTable)
        row = table.cursor_row
        try:
            self.store.delete(meta.id)
        except StoreError as exc:
            self._status(str(exc), error=True)
            return
        self.reload()
        if self.sessions:
            table.move_cursor(row=min(row, len(self.sessions) - 1))
        self._status(f"Deleted “{meta.title or 'untitled'}”.")

    def action_cancel(self) -> None:
        """Close without switching sessions."""
        self.dismiss(None)
