"""The sessions picker (`/sessions`): saved sessions of this workspace, newest first.

Each row shows the short id, the title with a dim preview (the newest prompt, or the newest answer
of a one-prompt session), and how long ago it was used, so four sessions that all began with
`hello` can be told apart.

Enter resumes (the screen dismisses with the session id), `d` deletes after a confirm, Esc cancels
(dismisses with None). A session that cannot be read shows its one-line error in the list and in
the status line; the picker stays open and nothing crashes.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from co_tui.session import fork_origin, format_updated
from co_tui.text import format_tokens
from co_tui.tui.screens.confirm_delete import ConfirmDeleteScreen
from co_tui.tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from co_tui.session import SessionCatalog, SessionMeta

_MIN_TITLE_WIDTH = 16
_MODEL_CHARS = 18
_HINT = "Enter resume · d delete · Esc cancel"
# Column keys and labels, in display order; the title column takes whatever width the others leave.
_COLUMNS = (
    ("mark", " "),
    ("id", "id"),
    ("title", "title · latest"),
    ("updated", "updated"),
    ("messages", "msgs"),
    ("tokens", "tokens"),
    ("model", "model"),
)
_TITLE = 2  # index of the title column in `_COLUMNS`


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_age(value: datetime, now: datetime) -> str:
    """How long before `now`: `just now`, `5 min ago`, `3 h ago`, `2 d ago`; a week or more: the date."""
    seconds = (now - value).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86_400:
        return f"{int(seconds // 3600)} h ago"
    if seconds < 7 * 86_400:
        return f"{int(seconds // 86_400)} d ago"
    return value.astimezone().strftime("%Y-%m-%d")


class SessionsScreen(ModalScreen[str | None]):
    """Pick a saved session of `workspace` to resume; `current_id` (the open one) is marked."""

    CSS_PATH = "sessions.tcss"
    BINDINGS = [
        # Priority: the table's own Enter would only echo it back as RowSelected.
        Binding("enter", "resume", "Resume", priority=True),
        Binding("d,delete", "delete", "Delete"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(
        self, store: SessionCatalog, workspace: Path, *, current_id: str | None = None, now: datetime | None = None
    ) -> None:
        super().__init__()
        self.store = store
        self.workspace = Path(workspace)
        self.current_id = current_id
        self.now = now  # ages are counted from here (tests freeze it); None: the clock at each reload
        self.sessions: list[SessionMeta] = []
        self.previews: dict[str, str] = {}
        self.opening: str | None = None  # the id being checked before the picker closes with it
        self.loaded = False  # False while the list is read (in a thread); True once it is shown

    def compose(self) -> ComposeResult:
        """The workspace's sessions as a table (filled by `reload`), a status line, the keys."""
        with Vertical(id="sessions-dialog"):
            yield Static(f"Sessions in {self.workspace.name or self.workspace}", id="sessions-title")
            yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
            yield Static(id="sessions-status")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Read the list (in a thread: `reload`); the table takes the keys."""
        self.reload()
        self.query_one("#sessions-table", DataTable).focus()

    def on_resize(self) -> None:
        """Refill the table once the new layout is known (the title column's width follows the table's)."""
        # The title column's width depends on the table's: refill once the new layout is known.
        self.call_after_refresh(self._fill)

    # --- the list ----------------------------------------------------------------------------------

    def reload(self) -> None:
        """Re-read the list from the store in a thread, keeping the cursor's row (a failure becomes
        the status line and the list stays as it was)."""
        self.loaded = False
        # A newer read replaces one still running (`exclusive`): the newest list wins. The worker is
        # given the method, not a coroutine: one replaced before it starts leaves none unawaited.
        self.run_worker(self._reload, group="list", exclusive=True)  # type: ignore[arg-type]  # mypy infers Never for WorkType

    async def _reload(self) -> None:
        from co_tui.session import StoreError

        try:
            # The list, then one preview query per session: SQLite work, which may wait on the store's
            # lock while a large session loads (docs/architecture.md, "Nothing blocks the UI loop").
            self.sessions, self.previews = await asyncio.to_thread(self._read_list)
        except StoreError as exc:
            self._status(str(exc), error=True)
        else:
            self._fill()
        self.loaded = True

    def _read_list(self) -> tuple[list[SessionMeta], dict[str, str]]:
        """(in a thread) The workspace's sessions and each one's preview line."""
        sessions = self.store.list_sessions(self.workspace)
        return sessions, {meta.id: self.store.preview(meta.id) for meta in sessions}

    def _fill(self) -> None:
        """(Re)build the table from `self.sessions`, sizing the title column to the room left."""
        table = self.query_one("#sessions-table", DataTable)
        row = table.cursor_row
        rows = [self._cells(meta) for meta in self.sessions]
        table.clear(columns=True)
        for i, (key, label) in enumerate(_COLUMNS):
            if key == "title":
                table.add_column(label, key=key, width=self._title_width(table, rows))
            else:
                table.add_column(label, key=key, width=max([cell_len(label)] + [r[i].cell_len for r in rows]))
        for meta, cells in zip(self.sessions, rows, strict=False):
            table.add_row(*cells, key=meta.id)
        if self.sessions:
            table.move_cursor(row=min(max(row, 0), len(self.sessions) - 1))
        self._show_row_status()

    @staticmethod
    def _title_width(table: DataTable, rows: list[tuple[Text, ...]]) -> int:
        """What the table's width leaves for titles once the other columns (and a scrollbar) fit."""
        others = sum(
            max([cell_len(label)] + [r[i].cell_len for r in rows]) + 2 * table.cell_padding
            for i, (key, label) in enumerate(_COLUMNS)
            if key != "title"
        )
        room = table.size.width - table.styles.scrollbar_size_vertical - others - 2 * table.cell_padding
        longest = max([cell_len(_COLUMNS[_TITLE][1])] + [r[_TITLE].cell_len for r in rows])
        return max(_MIN_TITLE_WIDTH, min(room, longest))

    def _show_row_status(self) -> None:
        meta = self._highlighted()
        if meta is None:
            self._status("No saved sessions in this workspace yet.")
        elif meta.damaged:
            self._status(meta.damaged, error=True)
        else:
            self._status(f"{meta.id} · {format_updated(meta.updated)} · {_HINT}")

    def _cells(self, meta: SessionMeta) -> tuple[Text, ...]:
        if meta.damaged:
            mark = Text("⚠", style="bold red")
        elif meta.id == self.current_id:
            mark = Text("●", style="green")
        else:
            mark = Text(" ")
        # The whole title and preview: the column's width crops them with an ellipsis when narrow.
        title = Text(meta.title or "untitled", style="red" if meta.damaged else "", no_wrap=True, overflow="ellipsis")
        if meta.forked_from:  # which session a fork came from
            title.append(f" ⑂{fork_origin(meta).strip().removeprefix('(').removesuffix(')')}", style="cyan")
        preview = self.previews.get(meta.id, "")
        if preview and preview != meta.title:
            title.append(f"  › {preview}", style="dim")
        return (
            mark,
            Text(meta.id[:8], style="dim"),
            title,
            Text(format_age(meta.updated, self.now or datetime.now(UTC))),
            Text(str(meta.messages), justify="right"),
            Text(format_tokens(meta.tokens), justify="right"),
            Text(_clip(meta.model, _MODEL_CHARS), style="dim"),
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
        """The status line follows the highlighted session."""
        self._show_row_status()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """A click on a row resumes that session (`action_resume`; Enter is bound to it directly)."""
        # A mouse click on a row.
        event.stop()
        self.action_resume()

    # --- actions -----------------------------------------------------------------------------------

    def action_resume(self) -> None:
        """Close with the highlighted session's id, once it is known to load.

        The check reads what a resume reads (the context and the newest messages, not the whole
        session), off the UI thread with a status line; keys stay live, a second Enter waits for
        the first.
        """
        meta = self._highlighted()
        if meta is None or self.opening is not None:
            return
        self.opening = meta.id
        self._status(f"Opening “{meta.title or meta.id[:8]}”…")
        self.run_worker(self._check_then_resume(meta), group="open", exit_on_error=False)

    async def _check_then_resume(self, meta: SessionMeta) -> None:
        from co_tui.session import StoreError

        try:
            # Check it now, so a damaged session is reported here instead of failing after the switch.
            await asyncio.to_thread(self.store.check, meta.id)
        except StoreError as exc:
            await self._reload()  # the store has flagged it as damaged: show that in the list
            self._status(str(exc), error=True)
            return
        finally:
            self.opening = None
        self.dismiss(meta.id)

    def action_delete(self) -> None:
        """Ask, then delete the highlighted session (not the open one)."""
        meta = self._highlighted()
        if meta is None:
            return
        if meta.id == self.current_id:
            self._status("This is the open session: /clear first to start another, then delete it.", error=True)
            return
        self.app.push_screen(
            ConfirmDeleteScreen(meta.title, meta.messages), callback=lambda delete: self._delete(meta, bool(delete))
        )

    def _delete(self, meta: SessionMeta, confirmed: bool) -> None:
        if confirmed:
            # The delete syncs to disk (~40 ms) and may wait on the store's lock: in a thread.
            self.run_worker(self._delete_then_reload(meta), group="delete")

    async def _delete_then_reload(self, meta: SessionMeta) -> None:
        from co_tui.session import StoreError

        try:
            await asyncio.to_thread(self.store.delete, meta.id)
        except StoreError as exc:
            self._status(str(exc), error=True)
            return
        self.loaded = False
        await self._reload()
        self.notify(f"Deleted “{meta.title or 'untitled'}”.", timeout=3)

    def action_cancel(self) -> None:
        """Close without switching sessions."""
        self.dismiss(None)
