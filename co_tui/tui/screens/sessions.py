"""The sessions picker (`/sessions`): saved sessions of this workspace, newest first.

Each row shows the short id, the title with a dim preview (the newest prompt, or the newest answer
of a one-prompt session), and how long ago it was used, so four sessions that all began with
`hello` can be told apart.

Enter resumes (the screen dismisses with the session id), Delete deletes after a confirm, Esc cancels
(dismisses with None). A session that cannot be read shows its one-line error in the list and in
the status line; the picker stays open and nothing crashes.

Typing searches: `/` or any character moves to the search field (the character typed into it), so
a word typed at the list never acts as keys — `daily` once opened the delete question with its `d`
and answered it with its `y`. As the user types, the list becomes the workspace's sessions whose
title or saved text has every word (`SessionCatalog.search`: a bare word matches as a prefix, a
quoted phrase as a phrase), each row two lines — the title, then the words around the hit in its
newest matching message, the hit in bold. Up/Down move through the results and Enter resumes the
highlighted one without leaving the field; Esc clears the search (a second Esc closes the picker).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from co_tui.session import fork_origin, format_updated, hit_segments
from co_tui.text import escape_controls, format_tokens, one_line, plural
from co_tui.tui.screens.confirm_delete import ConfirmDeleteScreen
from co_tui.tui.type_ahead import types_text
from co_tui.tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from co_tui.session import SessionCatalog, SessionHit, SessionMeta

_MIN_TITLE_WIDTH = 16
_MODEL_CHARS = 18
_HINT = "Enter resume · Del delete · / search · Esc cancel"
_SEARCH_HINT = "↑↓ choose · Enter resume · Esc clear the search"
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
_SEARCH_HIDES = ("tokens", "model")  # a search's rows give their room to the words around the hit


def _width(text: Text) -> int:
    """The cells the widest line of `text` takes."""
    return max(cell_len(line) for line in text.plain.split("\n"))


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
        Binding("delete", "delete", "Delete"),
        Binding("slash", "search", "Search"),
        Binding("escape", "cancel", "Close (with a search: clear it)"),
        # The search field has no use for Up/Down: they move through the results (the table's own
        # bindings take them first when it has focus).
        Binding("down", "cursor(1)", "Next session (also from the search field)", show=False),
        Binding("up", "cursor(-1)", "Previous session (also from the search field)", show=False),
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
        self.searched = ""  # the search on show ("" : the whole list)
        self.hits: dict[str, SessionHit] = {}  # by session id, while a search is on show
        self._search_pending = False  # `/` pressed, the field not focused yet (`action_search`)

    def compose(self) -> ComposeResult:
        """The workspace's sessions as a table (filled by `reload`), a status line, the keys."""
        with Vertical(id="sessions-dialog"):
            yield Static(f"Sessions in {self.workspace.name or self.workspace}", id="sessions-title")
            # Not selected on focus: the character that moved focus here is the search's first.
            yield Input(placeholder="type to search titles and saved text", id="sessions-search", select_on_focus=False)
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

        query = self.query_one("#sessions-search", Input).value
        try:
            # The list, then one preview query per session: SQLite work, which may wait on the store's
            # lock while a large session loads (docs/architecture.md, "Nothing blocks the UI loop").
            sessions, previews, hits = await asyncio.to_thread(self._read_list, query)
        except StoreError as exc:
            self._status(str(exc), error=True)
        else:
            self.sessions, self.previews, self.hits, self.searched = sessions, previews, hits, query
            self._fill()
        self.loaded = True

    def _read_list(self, query: str) -> tuple[list[SessionMeta], dict[str, str], dict[str, SessionHit]]:
        """(in a thread) The workspace's sessions — those that match `query` when it is not blank,
        with their hits — and the preview line of each one shown without a snippet."""
        if not query.strip():
            sessions = self.store.list_sessions(self.workspace)
            return sessions, {meta.id: self.store.preview(meta.id) for meta in sessions}, {}
        hits = {hit.meta.id: hit for hit in self.store.search(query, self.workspace)}
        previews = {sid: self.store.preview(sid) for sid, hit in hits.items() if not hit.snippet}
        return [hit.meta for hit in hits.values()], previews, hits

    def on_input_changed(self, event: Input.Changed) -> None:
        """Each change of the search field reads the list again (the newest read wins: `reload`)."""
        event.stop()
        self.reload()

    def _fill(self) -> None:
        """(Re)build the table from `self.sessions`, sizing the title column to the room left."""
        table = self.query_one("#sessions-table", DataTable)
        row = table.cursor_row
        shown = [i for i, (key, _label) in enumerate(_COLUMNS) if not (self.hits and key in _SEARCH_HIDES)]
        columns = [_COLUMNS[i] for i in shown]
        rows = [tuple(cells[i] for i in shown) for cells in (self._cells(meta) for meta in self.sessions)]
        table.clear(columns=True)
        for i, (key, label) in enumerate(columns):
            if key == "title":
                table.add_column(label, key=key, width=self._title_width(table, columns, rows))
            else:
                table.add_column(label, key=key, width=max([cell_len(label)] + [_width(r[i]) for r in rows]))
        for meta, cells in zip(self.sessions, rows, strict=False):
            # A search's row has two lines: the title, then the words around the hit.
            table.add_row(*cells, key=meta.id, height=2 if self.hits else 1)
        if self.sessions:
            table.move_cursor(row=min(max(row, 0), len(self.sessions) - 1))
        self._show_row_status()

    @staticmethod
    def _title_width(table: DataTable, columns: list[tuple[str, str]], rows: list[tuple[Text, ...]]) -> int:
        """What the table's width leaves for titles once the other columns (and a scrollbar) fit."""
        others = sum(
            max([cell_len(label)] + [_width(r[i]) for r in rows]) + 2 * table.cell_padding
            for i, (key, label) in enumerate(columns)
            if key != "title"
        )
        room = table.size.width - table.styles.scrollbar_size_vertical - others - 2 * table.cell_padding
        longest = max([cell_len(_COLUMNS[_TITLE][1])] + [_width(r[_TITLE]) for r in rows])
        return max(_MIN_TITLE_WIDTH, min(room, longest))

    def _show_row_status(self) -> None:
        meta = self._highlighted()
        searching = bool(self.searched.strip())
        if meta is None and searching:
            self._status(
                f"No session in this workspace matches “{one_line(self.searched, 60)}”. Esc clears the search."
            )
        elif meta is None:
            self._status("No saved sessions in this workspace yet.")
        elif meta.damaged:
            self._status(meta.damaged, error=True)
        elif (refused := getattr(self, "_refused", None)) is not None and refused[0] == meta.id:
            self._status(refused[1], error=True)
        elif searching:
            found = plural(len(self.sessions), "session")
            self._status(
                f"{found} {'matches' if len(self.sessions) == 1 else 'match'} · {meta.id[:8]} · {_SEARCH_HINT}"
            )
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
        # Saved text, escaped: a control character in it would retitle the terminal or skew the columns.
        title = Text(
            escape_controls(meta.title) or "untitled",
            style="red" if meta.damaged else "",
            no_wrap=True,
            overflow="ellipsis",
        )
        if meta.forked_from:  # which session a fork came from
            title.append(f" ⑂{fork_origin(meta).strip().removeprefix('(').removesuffix(')')}", style="cyan")
        hit = self.hits.get(meta.id)
        preview = escape_controls(self.previews.get(meta.id, ""))
        if hit is not None and hit.snippet:
            title.append("\n  › ", style="dim")
            for text, is_hit in hit_segments(hit.snippet):
                title.append(text, style="bold reverse" if is_hit else "dim")
        elif hit is not None:  # the title matched: its preview on the second line
            title.append(f"\n  › {preview}", style="dim")
        elif preview and preview != escape_controls(meta.title):
            title.append(f"  › {preview}", style="dim")
        return (
            mark,
            Text(meta.id[:8], style="dim"),
            title,
            Text(format_age(meta.updated, self.now or datetime.now(UTC))),
            Text(str(meta.messages), justify="right"),
            Text(format_tokens(meta.tokens), justify="right"),
            Text(_clip(escape_controls(meta.model), _MODEL_CHARS), style="dim"),
        )

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#sessions-status", Static)
        status.update(Text(escape_controls(text), style="bold red" if error else ""))
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

    def action_search(self) -> None:
        """Move to the search field (`/`). Focus moves a callback later: the keys typed with the `/`
        (a fast typist's burst) are already queued for the table, so until the field has focus they
        are typed into it here (`on_key`) — in order, none lost, and a `d` among them is a letter of
        the search, not a delete."""
        self._search_pending = True
        self.query_one("#sessions-search", Input).focus()

    def on_key(self, event: events.Key) -> None:
        """`/` or a character typed at the list, and the keys after it while the search field is on
        its way to focus (typed into the field: see `action_search`). Taken here, as the table lets
        them through: the `/` binding would act only once the event has bubbled up to the app,
        after the keys queued behind it. Delete (the key) stays the table's: it deletes."""
        search = self.query_one("#sessions-search", Input)
        if not types_text(event):
            return
        if search.has_focus and not (self._search_pending and event.is_printable):
            return
        # With the field focused but its focus event not handled yet, a character that still
        # reaches here was forwarded to the table before focus moved (the field stops the ones it
        # types): it is typed into the field, or it would be lost.
        if not self._search_pending:
            if event.key == "delete" or event.key == "backspace":
                return
            event.stop()
            event.prevent_default()
            self.action_search()
            if event.key != "slash" and event.character:
                search.insert_text_at_cursor(event.character)
            return
        if not self._search_pending:
            return
        event.stop()
        event.prevent_default()
        if event.key == "backspace":
            search.action_delete_left()
        elif event.key == "delete":
            search.action_delete_right()
        elif event.character:
            search.insert_text_at_cursor(event.character)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Once anything has focus after `/`, keys go where focus is."""
        self._search_pending = False

    def action_cursor(self, step: int) -> None:
        """Move the table's cursor `step` rows (Up/Down while the search field has focus)."""
        table = self.query_one("#sessions-table", DataTable)
        if self.sessions:
            table.move_cursor(row=min(max(table.cursor_row + step, 0), len(self.sessions) - 1))

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
        refusal = self.store.delete_refusal(meta.id)  # open elsewhere: say so now, not after "for good?"
        if refusal is not None:
            self._refused: tuple[str, str] | None = (
                meta.id,
                refusal,
            )  # stays while this row is highlighted (a redraw re-highlights it)
            self._status(refusal, error=True)
            return
        self._refused = None
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
        self.notify(f"Deleted “{escape_controls(meta.title) or 'untitled'}”.", timeout=3)

    def action_cancel(self) -> None:
        """Clear the search if there is one (the whole list comes back, the table takes the keys);
        else close without switching sessions."""
        search = self.query_one("#sessions-search", Input)
        if search.value:
            search.value = ""  # Input.Changed reads the whole list again
            self.query_one("#sessions-table", DataTable).focus()
            return
        self.dismiss(None)
