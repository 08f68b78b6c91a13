"""The session store: one SQLite file holding every conversation's transcript, context and ledger.

`SessionStore.open(data_dir)` opens (creating if needed) `<data_dir>/sessions.db`: directory mode
700, file mode 600, WAL journal, a ~3 s busy timeout, schema migrated forward by `PRAGMA
user_version` (see `migrations.py` for the layout and why it makes saving cheap).

Saving a turn (`save_turn`) is one transaction that appends the new transcript rows and ledger rows
and deletes/inserts only the context rows that left/arrived (`context_diff.py`); its cost depends on
the turn, not on the session's length.

Searching (`search`, `store_search.py`) reads two FTS5 indexes over titles and every saved message's
text that the schema's own triggers keep in step with each write (`migrations.SEARCH_MIGRATION`).

Threads: one connection opened with `check_same_thread=False`, every public method serialised by
one lock: saves run in threads (`ChatSession` saves with `asyncio.to_thread`, the TUI clears and
exports in threads) while the UI thread lists sessions. Processes:
SQLite's own locking; a writer that cannot get the lock within the busy timeout gets
`StoreLocked`.

Errors are `StoreError` subclasses whose `str()` is one line for the user: `StoreLocked`,
`StoreFull` (disk full: nothing of that save was written, the caller keeps its in-memory session and
may save again later), `StoreCorrupt` (one damaged session or file), `StoreTooNew` (written by a
newer co-tui; never modified). pydantic-ai is imported only to encode and decode messages, so
listing sessions at TUI start-up stays light, and `load_tail` reads a session's newest rows as
plain JSON (the TUI shows a resumed conversation before pydantic-ai has loaded).
"""

from __future__ import annotations

import enum
import functools
import json
import math
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.tokens import ESTIMATOR_VERSION, prime_message_tokens
from co_tui.paths import ensure_private_dir
from co_tui.session import migrations
from co_tui.session.context_diff import ContextState, plan_context_update
from co_tui.session.context_rows import decode_context
from co_tui.session.conversation_counts import ConversationCounts, keep_counts, record_counts
from co_tui.session.message_codec import decode_bodies, encode_messages
from co_tui.session.redaction import redact_text, secret_env_values
from co_tui.session.saved_session import LoadedSession, SessionHit, SessionMeta
from co_tui.session.search_index import REBUILT_LINE, damaged_indexes, rebuild
from co_tui.session.session_lock import busy_elsewhere, claim_session
from co_tui.session.store_branches import (
    active_branch,
    next_mark,
    read_mark_context,
    read_marks,
    read_tree,
    storage_id,
    switch_rows,
    write_marks,
)
from co_tui.session.store_checkpoints import (
    checkpoint_bytes,
    insert_checkpoint,
    read_branch_checkpoints,
    read_checkpoints,
)
from co_tui.session.store_errors import (
    StoreCorrupt,
    StoreError,
    StoreFull,
    StoreLocked,
    StoreTooNew,
    recovery_hint,
    translate_sqlite_error,
)
from co_tui.session.store_search import search_rows
from co_tui.session.store_steering import (
    read_pins,
    read_undo,
    undo_transcript_refs,
    write_pin,
    write_pins,
    write_undo,
)
from co_tui.session.store_tail import SessionTail, checked_counts, read_ledger, read_preview, read_tail
from co_tui.session.token_counts import prime_from_rows, read_counts, save_counts
from co_tui.text import one_line

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.agent.checkpoints import FileCheckpoint
    from co_tui.session.history import HistorySnapshot, Mark


class KeepType(enum.Enum):
    """The type of `KEEP`."""

    KEEP = "keep"


KEEP = KeepType.KEEP
"""`save_turn(cost_usd=KEEP)`: leave the stored figure as it is (None would store "unknown")."""

DB_NAME = "sessions.db"
# A lazy resume keeps the undo data of this many newest cuts (docs/context-governance.md, "Undo a cut").
UNDO_ON_RESUME = 32
LAZY_TAIL = 64  # transcript messages a lazy load decodes up front: the newest screenful and more
BUSY_TIMEOUT_S = 3.0
DELETE_ADVICE = "quit co-tui there (or switch it to another session) first; nothing was deleted"


@dataclass
class _Saved:
    """What this process knows the database holds for one session, valid while `revision` matches."""

    revision: int
    transcript_len: int
    ledger_len: int
    # The saved context rows with their message objects (None when rebuilt from the database), so
    # an unchanged message is recognised by identity, without serialising it again.
    context: ContextState
    pins: tuple[int, ...] = ()
    next_mark: int = 0  # the position after the newest saved mark


def _now() -> float:
    return time.time()


def _to_datetime(value: Any) -> datetime:
    try:
        return datetime.fromtimestamp(float(value), tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return datetime.fromtimestamp(0, tz=UTC)


def _too_new(path: Path, version: int, *, writing: bool) -> StoreTooNew:
    refusal = "; refusing to modify it" if writing else ""
    return StoreTooNew(f"session database {path} was created by a newer co-tui (schema {version}){refusal}")


def _is_user_prompt(message: Any) -> bool:
    return getattr(message, "kind", None) == "request" and any(
        getattr(p, "part_kind", None) == "user-prompt" for p in message.parts
    )


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _search_derived(method: _Method) -> _Method:
    """A store method that writes or searches: when it fails on a damaged search index, the index
    is rebuilt from the rows and the method runs again (once). The index is derived data: its
    damage never blocks a save (`search_index.py`)."""

    @functools.wraps(method)
    def run(self: SessionStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except StoreError:
            if not self._rebuild_damaged_search():
                raise
        return method(self, *args, **kwargs)

    return cast(_Method, run)


class SessionStore:
    """Sessions in one SQLite file. Build with `SessionStore.open(data_dir)`; see module docstring."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._lock = threading.RLock()
        self._saved: dict[str, _Saved] = {}
        # The newest session's parsed ledger, keyed by (rows, newest seq), so loading the same
        # session again (another /sessions switch, a reload) does not parse thousands of entries
        # again; the resume preview parses only its own banners. Ledger events are append-only.
        self._ledger_memo: tuple[str, tuple[int, int], tuple[HistoryTrimmed, ...], tuple[int, ...]] | None = None
        # One line when other users can read the data dir (set by `commands.open_store_at`): the
        # front end shows it — print mode on stderr, the TUI in the chat (docs/configuration.md).
        self.warning: str | None = None
        # Lines about repairs the store made on its own (a damaged search index rebuilt): the front
        # end shows them once (`take_notices`).
        self._notices: list[str] = []
        self._search_checked = False  # whether a search that found nothing had the index checked

    # --- opening ---------------------------------------------------------------------------------

    @classmethod
    def open(cls, data_dir: Path, *, read_only: bool = False) -> SessionStore:
        """Open or create `<data_dir>/sessions.db` and bring its schema up to date.

        Raises `StoreTooNew` for a database from a newer co-tui (left untouched), `StoreLocked` if
        another process holds it through the busy timeout, `StoreCorrupt` for a file that is not a
        readable database, `StoreError` for anything else (permissions, a missing disk).

        `read_only` (`--list-sessions`, `--export`): no directory or file is created or chmod-ed, no
        migration, no journal-mode change, and SQLite's `mode=ro` makes any write fail, so a read-only
        data dir (or one owned by another user) still works. Then also `FileNotFoundError` when
        there is no database yet, and `StoreError` for an older schema (it needs one writable open to
        migrate).
        """
        data_dir = Path(data_dir).expanduser()
        path = data_dir / DB_NAME
        if read_only and not path.is_file():
            raise FileNotFoundError(path)
        if not read_only:
            cls._create_private_file(data_dir, path)
        conn: sqlite3.Connection | None = None
        try:
            conn, version = cls._connect_ro(path) if read_only else cls._connect(path)
            if version > migrations.SCHEMA_VERSION:
                raise _too_new(path, version, writing=not read_only)
            if read_only and version < migrations.SCHEMA_VERSION:
                raise StoreError(
                    f"session database {path} has an older schema ({version}); "
                    "run co-tui once with a writable data dir to upgrade it"
                )
            if not read_only:
                cls._prepare_writable(conn, path, version)
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            raise translate_sqlite_error(exc, path, "open") from None
        except StoreError:
            if conn is not None:
                conn.close()
            raise
        return cls(conn, path)

    @classmethod
    def open_read_only(cls, data_dir: Path) -> SessionStore:
        """`open(data_dir, read_only=True)`."""
        return cls.open(data_dir, read_only=True)

    @staticmethod
    def _create_private_file(data_dir: Path, path: Path) -> None:
        try:
            ensure_private_dir(data_dir)
            # Create the file ourselves so it never exists with a looser mode, even for an instant.
            os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
            os.chmod(path, 0o600)
        except OSError as exc:
            raise StoreError(f"cannot open session database {path}: {exc.strerror or exc}") from None

    @classmethod
    def _prepare_writable(cls, conn: sqlite3.Connection, path: Path, version: int) -> None:
        conn.execute("PRAGMA journal_mode = WAL")
        # FULL: a committed turn survives power loss too, for one fsync per turn.
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        if version < migrations.SCHEMA_VERSION:
            conn.execute("BEGIN IMMEDIATE")
            try:
                current = migrations.schema_version(conn)  # another process may have just done it
                if current > migrations.SCHEMA_VERSION:
                    raise _too_new(path, current, writing=True)
                if current < migrations.SCHEMA_VERSION:
                    migrations.migrate(conn, current)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        cls._private_files(path)

    @classmethod
    def _connect_ro(cls, path: Path) -> tuple[sqlite3.Connection, int]:
        # No -wal file: no writer is live and everything is in the main file, which a writer
        # arriving now changes only at a checkpoint; `mode=ro` would create -wal/-shm here. With
        # one, `mode=ro` shares the writer's WAL, falling back to `immutable` when the `-shm`
        # cannot be opened.
        wal = path.with_name(path.name + "-wal").exists()
        try:
            return cls._connect(path, "mode=ro" if wal else "immutable=1")
        except sqlite3.OperationalError:
            return cls._connect(path, "immutable=1")

    @staticmethod
    def _connect(path: Path, read_only_flag: str | None = None) -> tuple[sqlite3.Connection, int]:
        """A connection to `path` and its schema version; read-only (`query_only`, through a URI
        with `read_only_flag`, e.g. `mode=ro`) when a flag is given."""
        from urllib.parse import quote

        database = str(path) if read_only_flag is None else f"file:{quote(str(path))}?{read_only_flag}"
        conn = sqlite3.connect(
            database,
            uri=read_only_flag is not None,
            timeout=BUSY_TIMEOUT_S,
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            if read_only_flag is not None:
                conn.execute("PRAGMA query_only = ON")
            return conn, migrations.schema_version(conn)
        except BaseException:
            conn.close()
            raise

    @staticmethod
    def _private_files(path: Path) -> None:
        # SQLite gives -wal/-shm the database file's mode; make sure anyway (an older file may be looser).
        for suffix in ("", "-wal", "-shm"):
            sidecar = path.with_name(path.name + suffix)
            if sidecar.exists():
                os.chmod(sidecar, 0o600)

    def close(self) -> None:
        """Close the connection. The store is unusable afterwards."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- plumbing --------------------------------------------------------------------------------

    @contextmanager
    def _guard(self, action: str) -> Iterator[sqlite3.Connection]:
        """Hold the lock and turn sqlite3 errors into one-line `StoreError`s."""
        with self._lock:
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise translate_sqlite_error(exc, self.path, action) from None

    @contextmanager
    def _transaction(self, action: str) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken up front (`BEGIN IMMEDIATE`) so the busy timeout applies."""
        with self._guard(action) as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                # Also after a failed COMMIT (busy, disk full): never leave the transaction open.
                if conn.in_transaction:
                    with suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise

    def _rebuild_damaged_search(self) -> bool:
        """After a failed write: whether a search index was damaged, and is now rebuilt from the rows
        (`search_index.py`; one notice says so). False when none is, or the check itself failed."""
        try:
            with self._transaction("repair the search index") as conn:
                damaged = damaged_indexes(conn)
                if damaged:
                    rebuild(conn, damaged)
        except StoreError:
            return False
        if damaged:
            self._notices.append(REBUILT_LINE)
        return bool(damaged)

    def take_notices(self) -> list[str]:
        """The lines about repairs made since the last call (a rebuilt search index), once each."""
        with self._lock:
            notices, self._notices = self._notices, []
        return notices

    # --- sessions --------------------------------------------------------------------------------

    @_search_derived
    def create_session(self, *, model: str, workspace: Path, title: str = "", session_id: str | None = None) -> str:
        """Add an empty session; return its id (a uuid4 hex string unless `session_id` is given)."""
        sid = session_id or uuid.uuid4().hex
        now = _now()
        with self._transaction("create a session") as conn:
            try:
                conn.execute(
                    "INSERT INTO sessions (id, title, created, updated, model, workspace) VALUES (?, ?, ?, ?, ?, ?)",
                    (sid, title, now, now, model, str(Path(workspace).expanduser().resolve())),
                )
            except sqlite3.IntegrityError:
                raise StoreError(f"a session with id {sid} already exists") from None
            self._saved[sid] = _Saved(revision=0, transcript_len=0, ledger_len=0, context=ContextState())
        return sid

    @_search_derived
    def save_turn(
        self,
        session_id: str,
        *,
        new_transcript: Sequence[ModelMessage],
        context: Sequence[ModelMessage] | None,
        new_events: Sequence[HistoryTrimmed],
        title: str | None = None,
        model: str | None = None,
        tokens: int | None = None,
        event_positions: Sequence[int] | None = None,
        cost_usd: float | None | KeepType = KEEP,
        event_records: Sequence[Any] | None = None,
        pins: Sequence[int] | None = None,
    ) -> None:
        """Append `new_transcript` and `new_events`, store `context` (None: unchanged), update metadata.

        One transaction: on any error nothing of this call is written, so the caller can pass the
        same (still unsaved) messages again next time. Context rows that did not change are not
        touched; context messages equal to a transcript message are stored as a reference to it.
        `event_positions` (transcript indices) place each event's banner; by default an event sits right after this turn's user prompt (or at the end if there is none).
        `cost_usd` is the session's cost so far (None: unknown); `KEEP` leaves the stored figure.
        `event_records` (`governance.undo.CutRecord`, one per event): what undoing each needs.
        `pins`: the pinned prompts' transcript indices, all of them (None: unchanged).
        Raises `StoreLocked`, `StoreFull`, or `StoreError` (unknown session, other failures).
        """
        with self._lock:  # the cache below is shared with other threads too
            try:
                with self._transaction("save the session") as conn:
                    saved = self._saved_state(conn, session_id)
                    self._saved[session_id] = self._write_rows(
                        conn,
                        session_id,
                        saved,
                        new_transcript=new_transcript,
                        context=context,
                        new_events=new_events,
                        title=title,
                        model=model,
                        tokens=tokens,
                        event_positions=event_positions,
                        cost_usd=cost_usd,
                        event_records=event_records,
                        pins=pins,
                    )
            except BaseException:
                # The context indexes may describe a write that did not happen: rebuild them next time.
                self._saved.pop(session_id, None)
                raise

    def _write_rows(
        self,
        conn: sqlite3.Connection,
        session_id: str,
        saved: _Saved,
        *,
        new_transcript: Sequence[ModelMessage],
        context: Sequence[ModelMessage] | None,
        new_events: Sequence[HistoryTrimmed],
        title: str | None,
        model: str | None,
        tokens: int | None,
        event_positions: Sequence[int] | None,
        cost_usd: float | None | KeepType,
        event_records: Sequence[Any] | None,
        pins: Sequence[int] | None,
        marks: Sequence[Mark] = (),
    ) -> _Saved:
        """`save_turn`'s rows, inside the caller's transaction; returns what the store then holds."""
        secrets = secret_env_values()
        encoded = encode_messages(new_transcript, secrets)
        # A context message that is one of this turn's new transcript messages is serialised once.
        by_identity = {id(m): enc for m, enc in zip(new_transcript, encoded, strict=False)}
        now = _now()
        base = saved.transcript_len
        conn.executemany(
            "INSERT INTO transcript (session_id, seq, kind, digest, body) VALUES (?, ?, ?, ?, ?)",
            [(session_id, base + i, kind, digest, body) for i, (kind, body, digest) in enumerate(encoded)],
        )
        transcript_len = base + len(encoded)
        record_counts(conn, session_id, base, new_transcript)
        # Before the context rows change: a mark's context is the one saved last (found by identity).
        marks_after = write_marks(
            conn,
            session_id,
            marks,
            first=saved.next_mark,
            transcript_len=transcript_len,
            saved_context=saved.context,
            secrets=secrets,
        )
        counted = [(enc[2], m) for m, enc in zip(new_transcript, encoded, strict=False)]
        context_state = saved.context
        if context is not None:
            context_state = self._save_context(conn, session_id, saved, context, by_identity, secrets, counted)
        save_counts(conn, session_id, counted)
        self._append_ledger(
            conn,
            session_id,
            saved.ledger_len,
            new_events,
            event_positions,
            now,
            secrets,
            default_at=min(base + (1 if new_transcript and _is_user_prompt(new_transcript[0]) else 0), transcript_len),
        )
        if event_records:
            write_undo(conn, session_id, saved.ledger_len, event_records, secrets)
        if pins is not None and tuple(pins) != saved.pins:
            write_pins(conn, session_id, pins)
        if cost_usd is not KEEP:
            conn.execute("UPDATE sessions SET cost_usd = ? WHERE id = ?", (cost_usd, session_id))
        conn.execute(
            """UPDATE sessions SET updated = ?, messages = ?, revision = revision + 1,
                   title = COALESCE(?, title), model = COALESCE(?, model), tokens = COALESCE(?, tokens),
                   context_messages = COALESCE(?, context_messages)
               WHERE id = ?""",
            (now, transcript_len, title, model, tokens, None if context is None else len(context), session_id),
        )
        return _Saved(
            revision=saved.revision + 1,
            transcript_len=transcript_len,
            ledger_len=saved.ledger_len + len(new_events),
            context=context_state,
            pins=saved.pins if pins is None else tuple(pins),
            next_mark=marks_after,
        )

    @_search_derived
    def save_history(
        self,
        session_id: str,
        history: HistorySnapshot,
        *,
        context: Sequence[ModelMessage] | None = None,
        title: str | None = None,
        model: str | None = None,
        tokens: int | None = None,
        cost_usd: float | None | KeepType = KEEP,
    ) -> None:
        """Save what `history` (a `session.history.HistorySnapshot`) holds that the store does not:
        the transcript messages and ledger rows after the ones saved (the store knows how many it
        holds), the context (`context` given: that one instead), the pins and the marks. One
        transaction, as `save_turn`: after a failure the next call writes the same rows again.
        A snapshot of another branch than the store's (a rewind, a branch switch) first moves the
        branches' rows (`store_branches.switch_rows`), in the same transaction: a crash leaves the
        session on one branch or the other, whole.
        """
        with self._lock:
            try:
                with self._transaction("save the session") as conn:
                    if switch_rows(conn, session_id, history.branch, history.tree):
                        self._saved.pop(session_id, None)
                    saved = self._saved_state(conn, session_id)
                    entries = history.entries[saved.ledger_len :]
                    self._saved[session_id] = self._write_rows(
                        conn,
                        session_id,
                        saved,
                        new_transcript=history.transcript[saved.transcript_len : history.transcript_len],
                        context=history.context if context is None else context,
                        new_events=[entry.event for entry in entries],
                        event_positions=[entry.position for entry in entries],
                        event_records=[entry.record for entry in entries],
                        pins=history.pins,
                        title=title,
                        model=model,
                        tokens=tokens,
                        cost_usd=cost_usd,
                        marks=history.marks,
                    )
            except BaseException:
                self._saved.pop(session_id, None)
                raise

    def saved_figures(self, session_id: str) -> tuple[int, int, tuple[int, ...]]:
        """What the store holds of a session: (transcript messages, ledger rows, pinned prompts).
        The one record of how much is saved: a session compares its history with it (`unsaved`)."""
        with self._guard("read the session") as conn:
            saved = self._saved_state(conn, session_id)
            return saved.transcript_len, saved.ledger_len, saved.pins

    @staticmethod
    def _append_ledger(
        conn: sqlite3.Connection,
        session_id: str,
        first_seq: int,
        events: Sequence[HistoryTrimmed],
        positions: Sequence[int] | None,
        now: float,
        secrets: tuple[str, ...],
        *,
        default_at: int,
    ) -> None:
        at = list(positions) if positions is not None else [default_at] * len(events)
        if len(at) != len(events):
            raise StoreError("save_turn: event_positions must match new_events")
        conn.executemany(
            "INSERT INTO ledger (session_id, seq, at_message, created, event) VALUES (?, ?, ?, ?, ?)",
            [
                (session_id, first_seq + i, pos, now, redact_text(json.dumps(ev.to_dict()), secrets))
                for i, (ev, pos) in enumerate(zip(events, at, strict=False))
            ],
        )

    def _saved_state(self, conn: sqlite3.Connection, session_id: str) -> _Saved:
        """Our cached picture of the session, rebuilt from the database if another process wrote it."""
        row = conn.execute("SELECT revision FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise StoreError(f"no session with id {session_id}")
        cached = self._saved.get(session_id)
        if cached is not None and cached.revision == row[0]:
            return cached
        transcript_len = conn.execute(
            "SELECT COALESCE(MAX(seq) + 1, 0) FROM transcript WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
        ledger_len = conn.execute(
            "SELECT COALESCE(MAX(seq) + 1, 0) FROM ledger WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
        rows = conn.execute(
            "SELECT ord, digest FROM context WHERE session_id = ? ORDER BY ord", (session_id,)
        ).fetchall()
        return _Saved(
            revision=row[0],
            transcript_len=transcript_len,
            ledger_len=ledger_len,
            context=ContextState.from_rows([key for key, _d in rows], [bytes(d) for _k, d in rows]),
            pins=tuple(read_pins(conn, session_id)),
            next_mark=next_mark(conn, session_id),
        )

    def _save_context(
        self,
        conn: sqlite3.Connection,
        session_id: str,
        saved: _Saved,
        context: Sequence[Any],
        by_identity: dict[int, tuple[str, str, bytes]],
        secrets: tuple[str, ...],
        counted: list[tuple[bytes, Any]],
    ) -> ContextState:
        """Delete the context rows that left, insert the ones that arrived; return the new state.

        An inserted message equal to a transcript message is stored as a reference to it. Every
        message encoded here goes to `counted` (digest, message) for its token estimate.
        """

        def encode(message: Any) -> tuple[str, str, bytes]:
            encoded = by_identity.get(id(message)) or encode_messages([message], secrets)[0]
            counted.append((encoded[2], message))
            return encoded

        plan = plan_context_update(saved.context, context, encode)
        conn.executemany(
            "DELETE FROM context WHERE session_id = ? AND ord BETWEEN ? AND ?",
            [(session_id, low, high) for low, high in plan.delete_ranges],
        )
        rows = []
        for key, (_kind, body, digest) in plan.inserts:
            ref = conn.execute(
                "SELECT seq FROM transcript WHERE session_id = ? AND digest = ? ORDER BY seq DESC LIMIT 1",
                (session_id, digest),
            ).fetchone()
            rows.append((session_id, key, ref[0] if ref else None, digest, None if ref else body))
        conn.executemany(
            "INSERT INTO context (session_id, ord, transcript_seq, digest, body) VALUES (?, ?, ?, ?, ?)", rows
        )
        return plan.state

    def load(self, session_id: str, *, lazy: bool = False) -> LoadedSession:
        """Read one session back. Raises `StoreError` for an unknown id and `StoreCorrupt` (naming the
        session) when any of its rows cannot be decoded; other sessions are unaffected.

        `lazy` (resume): the context and the newest `LAZY_TAIL` transcript messages are decoded now;
        the transcript is a `LazyTranscript` that decodes the rest from this store when read, so
        time and memory do not grow with the session. Damage in rows not decoded yet is reported
        (`StoreCorrupt`) when they are read.
        """
        with self._guard("read the session") as conn:
            row = conn.execute(f"SELECT {_META_COLUMNS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                raise StoreError(f"no session with id {session_id}")
            meta = _meta_from_row(row)
            try:
                loaded, saved = self._read_lazy(conn, meta) if lazy else self._read(conn, meta)
            except StoreCorrupt as exc:
                self._mark_damaged(conn, session_id, str(exc))
                raise
            if meta.damaged and self._reads_whole(conn, meta, lazy):
                self._mark_damaged(conn, session_id, None)  # a repaired session is listed as fine again
            self._saved[session_id] = saved
            return loaded

    def load_readable(self, session_id: str) -> tuple[LoadedSession, list[str]]:
        """`load` for an export, which gives what can be read rather than nothing: a session with
        damaged rows comes back with each transcript row that cannot be decoded replaced by a
        stand-in naming it (`DAMAGED_KEY` in its metadata), an empty context, and the problems,
        one line each (none: `load` succeeded). Raises `StoreError` for an unknown id."""
        try:
            return self.load(session_id), []
        except StoreCorrupt:
            pass
        with self._guard("read the session") as conn:
            row = conn.execute(f"SELECT {_META_COLUMNS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                raise StoreError(f"no session with id {session_id}")
            meta = _meta_from_row(row)
            last = conn.execute("SELECT MAX(seq) FROM transcript WHERE session_id = ?", (session_id,)).fetchone()[0]
            problems: list[str] = []
            transcript: list[Any] = []
            for seq in range(last + 1 if last is not None else 0):  # one row at a time: the damage stays local
                try:
                    transcript.append(self._decode_rows(conn, meta, [seq])[seq])
                except StoreCorrupt as exc:
                    problems.append(str(exc))
                    transcript.append(_damaged_stand_in(str(exc)))
            try:
                ledger, positions = self._read_ledger(conn, session_id, lambda what: _damaged(meta, what))
            except StoreCorrupt as exc:
                problems.append(str(exc))
                ledger, positions = [], []
        return LoadedSession(meta, transcript, [], ledger, positions), problems

    def check(self, session_id: str) -> None:
        """Read the session as a resume reads it (`load(lazy=True)`: the context, the newest
        messages, the ledger and its newest undo data), without decoding the rest: the sessions
        picker checks a session before switching to it. Raises `StoreError` for an unknown id,
        `StoreCorrupt` for damage it meets (the session is flagged as damaged, as `load` does)."""
        self.load(session_id, lazy=True)

    def load_tail(self, session_id: str, enough: Callable[[SessionTail], bool]) -> SessionTail:
        """The newest transcript rows of a session as parsed JSON, with its metadata, its counts and
        the ledger events among those rows, read without pydantic-ai (see `store_tail.py`): rows
        backwards from the end in growing chunks until `enough(tail)` or the first message. One
        snapshot; the only write is the counts of a session saved before they were kept.

        Raises `StoreError` for an unknown id and `StoreCorrupt` for damage it meets on the way
        (what it does not read, or cannot judge without decoding, is `load`'s to report).
        """
        with self._guard("read the session") as conn:
            conn.execute("BEGIN")  # a read transaction: every figure from the same snapshot
            try:
                row = conn.execute(f"SELECT {_META_COLUMNS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
                if row is None:
                    raise StoreError(f"no session with id {session_id}")
                meta = _meta_from_row(row)
                tail = read_tail(conn, meta, enough, lambda what: _damaged(meta, what))
            finally:
                conn.execute("COMMIT")
            if tail.counted:  # a session saved before counts were kept: counted once, from now on kept
                keep_counts(conn, session_id, tail.counts)
            return tail

    def _read_lazy(
        self, conn: sqlite3.Connection, meta: SessionMeta, root: str | None = None
    ) -> tuple[LoadedSession, _Saved]:
        """`load(lazy=True)`: decode the context (with the transcript rows it points at) and the newest
        `LAZY_TAIL` transcript rows; the transcript is a `LazyTranscript` over the rest. `root`: the
        session whose branch `meta` keeps (`load_branch`); the transcript reads its branch's rows
        wherever they are then (a branch switch moves them)."""
        from co_tui.session.lazy_transcript import LazyTranscript

        sid = meta.id
        owner = root or sid

        def damaged(what: str) -> StoreCorrupt:
            return _damaged(meta, what)

        conn.execute("BEGIN")  # one snapshot for every figure below
        try:
            revision, cost = conn.execute("SELECT revision, cost_usd FROM sessions WHERE id = ?", (sid,)).fetchone()
            count, counts, counted = checked_counts(conn, sid, damaged)
            ctx_rows = conn.execute(
                "SELECT ord, transcript_seq, digest, body FROM context WHERE session_id = ? ORDER BY ord", (sid,)
            ).fetchall()
            refs = {ref for _o, ref, _d, _b in ctx_rows if isinstance(ref, int) and 0 <= ref < count}
            known = self._decode_rows(conn, meta, sorted(refs | set(range(max(0, count - LAZY_TAIL), count))))
            context = _decode_context(
                ctx_rows,
                lambda ref: known.get(ref) if isinstance(ref, int) else None,
                damaged,
                lambda digests: read_counts(conn, sid, digests),
            )
            ledger, positions = self._read_ledger(conn, sid, damaged)
            # Undo data of the newest cuts (older ones read as not undoable): the rows they point at
            # are decoded now, as the transcript's own objects (`known`).
            undo_refs = undo_transcript_refs(conn, sid, len(ledger), UNDO_ON_RESUME)
            missing = sorted(r for r in undo_refs if 0 <= r < count and r not in known)
            if missing:
                known.update(self._decode_rows(conn, meta, missing))
            rows_view: list[Any] = [None] * count
            for seq, message in known.items():
                rows_view[seq] = message
            records = read_undo(conn, sid, rows_view, len(ledger), damaged, newest=UNDO_ON_RESUME)
            pins = read_pins(conn, sid)
            marks = read_marks(conn, sid, damaged)
            active, tree = read_tree(conn, owner)
            branch = active if root is None else int(sid.rsplit(".b", 1)[1])
        finally:
            conn.execute("COMMIT")
        if counted and root is None:
            keep_counts(conn, sid, counts)

        def load_rows(start: int, stop: int) -> list[Any]:
            with self._guard("read the session") as conn:
                home = replace(meta, id=owner if active_branch(conn, owner) == branch else storage_id(owner, branch))
                try:
                    rows = self._decode_rows(conn, home, list(range(start, stop)))
                except StoreCorrupt as exc:
                    # Read later, from the inspector or an export: a damaged old row must not take the
                    # screen down. It reads as a one-line notice in its place (never saved back: only
                    # messages after the saved ones are), and the session list flags the session.
                    self._mark_damaged(conn, sid, str(exc))
                    rows = {}
                    for seq in range(start, stop):
                        try:
                            rows.update(self._decode_rows(conn, home, [seq]))
                        except StoreCorrupt as one:
                            rows[seq] = _damaged_stand_in(str(one))
            return [rows[seq] for seq in range(start, stop)]

        cost_known = cost is not None and isinstance(cost, (int, float)) and math.isfinite(cost) and cost >= 0
        # The saved cost covers the transcript and the ledger's summariser calls; the transcript keeps
        # its own share, since the session adds the (whole, loaded) ledger's again (`transcript_cost`).
        from co_tui.session.cost import ledger_cost

        cuts_cost = ledger_cost(ledger)
        transcript_share = max(0.0, float(cost) - cuts_cost) if cost_known and cuts_cost is not None else None
        transcript = LazyTranscript(load_rows, count, known, saved_cost=transcript_share)
        saved = _Saved(
            revision=revision,
            transcript_len=count,
            ledger_len=len(ledger),
            context=ContextState.from_rows([r[0] for r in ctx_rows], [bytes(r[2]) for r in ctx_rows], context),
            pins=tuple(pins),
            next_mark=marks[-1].position + 1 if marks else 0,
        )
        loaded = LoadedSession(meta, transcript, context, ledger, positions, records, pins, counts)
        loaded.marks, loaded.branch, loaded.tree = marks, branch, tree
        return loaded, saved

    def _read_ledger(
        self, conn: sqlite3.Connection, session_id: str, damaged: Callable[[str], Exception]
    ) -> tuple[list[HistoryTrimmed], list[int]]:
        """`read_ledger`, memoised for the newest session read while its ledger keeps the same rows
        (new lists each call; the events are frozen)."""
        rows, newest = conn.execute(
            "SELECT count(*), coalesce(max(seq), -1) FROM ledger WHERE session_id = ?", (session_id,)
        ).fetchone()
        key = (int(rows), int(newest))
        memo = self._ledger_memo
        if memo is not None and memo[0] == session_id and memo[1] == key:
            return list(memo[2]), list(memo[3])
        ledger, positions = read_ledger(conn, session_id, damaged)
        self._ledger_memo = (session_id, key, tuple(ledger), tuple(positions))
        return ledger, positions

    @staticmethod
    def _decode_rows(conn: sqlite3.Connection, meta: SessionMeta, seqs: list[int]) -> dict[int, Any]:
        """Transcript messages `seqs` decoded (token estimates primed from their saved counts)."""
        out: dict[int, Any] = {}
        for at in range(0, len(seqs), 500):  # SQLite's bound-parameter limit
            batch = seqs[at : at + 500]
            rows = conn.execute(
                f"""SELECT t.seq, t.body, t.digest, c.tokens FROM transcript AS t
                    LEFT JOIN token_counts AS c
                      ON c.session_id = t.session_id AND c.digest = t.digest AND c.estimator = ?
                    WHERE t.session_id = ? AND t.seq IN ({",".join("?" * len(batch))}) ORDER BY t.seq""",
                (ESTIMATOR_VERSION, meta.id, *batch),
            ).fetchall()
            if len(rows) != len(batch):
                missing = sorted(set(batch) - {r[0] for r in rows})[0]
                raise _damaged(meta, f"transcript message {missing} is missing")
            messages = decode_bodies(
                [r[1] for r in rows], [f"transcript message {r[0]}" for r in rows], lambda what: _damaged(meta, what)
            )
            prime_message_tokens(messages, [r[3] for r in rows])
            out.update(zip((r[0] for r in rows), messages, strict=False))
        return out

    def _read(self, conn: sqlite3.Connection, meta: SessionMeta) -> tuple[LoadedSession, _Saved]:
        sid = meta.id

        def damaged(what: str) -> StoreCorrupt:
            return _damaged(meta, what)

        revision = conn.execute("SELECT revision FROM sessions WHERE id = ?", (sid,)).fetchone()[0]
        rows = conn.execute(
            "SELECT seq, body, digest FROM transcript WHERE session_id = ? ORDER BY seq", (sid,)
        ).fetchall()
        for expected, (seq, _body, _digest) in enumerate(rows):
            if seq != expected:
                raise damaged(f"transcript message {expected} is missing")
        transcript = decode_bodies([r[1] for r in rows], [f"transcript message {r[0]}" for r in rows], damaged)
        counts = read_counts(conn, sid)
        prime_from_rows(transcript, [r[2] for r in rows], counts)

        ctx_rows = conn.execute(
            "SELECT ord, transcript_seq, digest, body FROM context WHERE session_id = ? ORDER BY ord", (sid,)
        ).fetchall()
        context = _decode_context(
            ctx_rows,
            lambda ref: transcript[ref] if isinstance(ref, int) and 0 <= ref < len(transcript) else None,
            damaged,
            lambda _digests: counts,
        )
        ledger, positions = self._read_ledger(conn, sid, damaged)
        records = read_undo(conn, sid, transcript, len(ledger), damaged)

        pins = read_pins(conn, sid)
        marks = read_marks(conn, sid, damaged)
        saved = _Saved(
            revision=revision,
            transcript_len=len(transcript),
            ledger_len=len(ledger),
            context=ContextState.from_rows([r[0] for r in ctx_rows], [bytes(r[2]) for r in ctx_rows], context),
            pins=tuple(pins),
            next_mark=marks[-1].position + 1 if marks else 0,
        )
        loaded = LoadedSession(meta, transcript, context, ledger, positions, records, pins)
        loaded.counts = ConversationCounts().add(transcript)
        loaded.marks = marks
        loaded.branch, loaded.tree = read_tree(conn, sid)
        return loaded, saved

    def set_pin(self, session_id: str, transcript_seq: int, pinned: bool) -> None:
        """Pin (or unpin) the turn whose user prompt is transcript message `transcript_seq`."""
        with self._lock, self._transaction("save the pin") as conn:
            write_pin(conn, session_id, transcript_seq, pinned)
            self._saved.pop(session_id, None)  # its pins changed: read them again

    def _reads_whole(self, conn: sqlite3.Connection, meta: SessionMeta, lazy: bool) -> bool:
        """Whether every row of a session flagged damaged reads back now: a full load has just read
        them; after a lazy one (a resume, the picker's check) they are read here, for flagged
        sessions only, so a repaired row does not leave the session flagged for good."""
        if not lazy:
            return True
        try:
            self._read(conn, meta)
        except StoreCorrupt:
            return False
        return True

    def _mark_damaged(self, conn: sqlite3.Connection, session_id: str, reason: str | None) -> None:
        # Best effort, so the list can flag it (None: clear the flag); a read-only or locked database
        # just skips this.
        try:
            conn.execute("UPDATE sessions SET damaged = ? WHERE id = ?", (reason, session_id))
        except sqlite3.Error:
            pass

    def last_summary_failure(self, session_id: str) -> float | None:
        """When (epoch seconds) the session's newest failed summary happened — its newest
        `static_marker` ledger entry — or None. The summariser cooldown outlives the process with it."""
        with self._guard("read the session") as conn:
            # Only rows that name the strategy are parsed: a resume must not parse a long ledger.
            rows = conn.execute(
                """SELECT created, event FROM ledger
                   WHERE session_id = ? AND instr(event, 'static_marker') > 0 ORDER BY seq DESC""",
                (session_id,),
            )
            for created, event in rows:
                try:
                    if json.loads(event).get("strategy") == "static_marker":
                        return float(created)
                except (ValueError, TypeError, AttributeError):
                    continue
        return None

    def list_sessions(self, workspace: Path | None = None) -> list[SessionMeta]:
        """Every session (or those of `workspace`), newest first. Reads metadata only, so a session
        with damaged messages still lists (with `damaged` set once a load has found it).
        `StoreCorrupt` when the file is damaged, also when a damaged index hides the workspace's rows."""
        with self._guard("list sessions") as conn:
            if workspace is None:
                rows = conn.execute(
                    f"SELECT {_META_COLUMNS} FROM sessions WHERE branch_of IS NULL ORDER BY updated DESC, rowid DESC"
                )
            else:
                where = str(Path(workspace).expanduser().resolve())
                found = conn.execute(
                    f"SELECT {_META_COLUMNS} FROM sessions WHERE workspace = ? AND branch_of IS NULL "
                    "ORDER BY updated DESC, rowid DESC",
                    (where,),
                ).fetchall()
                # A damaged index answers "no rows" without an error (then --continue said "no saved
                # session"): an empty answer is checked against the table itself, which is small.
                if (
                    not found
                    and conn.execute(
                        "SELECT 1 FROM sessions NOT INDEXED WHERE workspace = ? AND branch_of IS NULL LIMIT 1", (where,)
                    ).fetchone()
                ):
                    raise StoreCorrupt(
                        f"session database {self.path} is damaged (an index disagrees with its table); "
                        f"{recovery_hint(self.path)}"
                    )
                return [_meta_from_row(r) for r in found]
            return [_meta_from_row(r) for r in rows.fetchall()]

    @_search_derived
    def search(self, query: str, workspace: Path | None = None, *, limit: int = 200) -> list[SessionHit]:
        """The sessions (of `workspace`, or all) whose title or saved text matches `query`'s words,
        most recently updated first, at most `limit`, each with a snippet of its newest matching
        message (`store_search.py`: every word is quoted, so no query text raises; one without
        words finds nothing). `StoreError` when the store fails. A damaged index is rebuilt
        (`search_index.py`): when the search fails, and once per store when it finds nothing."""
        where = None if workspace is None else str(Path(workspace).expanduser().resolve())

        def run() -> list[SessionHit]:
            with self._guard("search sessions") as conn:
                return search_rows(
                    conn, query, workspace=where, limit=limit, meta_columns=_META_COLUMNS, meta_from_row=_meta_from_row
                )

        hits = run()
        # Finding nothing may be a damaged index that raises nothing: checked once per store.
        if not hits and not self._search_checked:
            self._search_checked = True
            if self._rebuild_damaged_search():
                hits = run()
        return hits

    def latest(self, workspace: Path) -> SessionMeta | None:
        """The most recently updated session of `workspace`, or None."""
        sessions = self.list_sessions(workspace)
        return sessions[0] if sessions else None

    def delete_refusal(self, session_id: str) -> str | None:
        """The line `delete` would refuse with now (the session is open in another process), else
        None: asked before the "removed for good" question, so that question is not asked in vain."""
        return busy_elsewhere(self.path.parent, session_id, advice=DELETE_ADVICE)

    @_search_derived
    def delete(self, session_id: str) -> None:
        """Remove a session with its transcript, context, ledger and file checkpoints. Unknown id:
        `StoreError`. `SessionBusy` (one line) while another process has it open: deleting it under
        that process made its next save fail, its conversation left only in a rescue copy."""
        claim = claim_session(self.path.parent, session_id, advice=DELETE_ADVICE)
        try:
            with self._transaction("delete the session") as conn:
                if conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount == 0:
                    raise StoreError(f"no session with id {session_id}")
                conn.execute("DELETE FROM sessions WHERE branch_of = ?", (session_id,))  # its other branches
                conn.execute("DELETE FROM file_checkpoints WHERE session_id = ?", (session_id,))
                self._saved.pop(session_id, None)
        finally:
            claim.release()

    # --- the conversation tree (store_branches.py) ----------------------------------------------

    def branch_in_use(self, session_id: str) -> int:
        """The branch whose rows are the session's own (the one a resume opens)."""
        with self._guard("read the session") as conn:
            return active_branch(conn, session_id)

    def mark_context(self, session_id: str, position: int, transcript: Sequence[Any]) -> tuple[Any, ...] | None:
        """What the model was about to be sent before the prompt at `position` of the branch in use
        (its transcript messages taken from `transcript`, which may decode them), or None when no mark
        was saved there. `StoreCorrupt` for a damaged mark."""
        with self._guard("read the session") as conn:
            meta = self._meta(conn, session_id)
            return read_mark_context(conn, session_id, position, transcript, lambda what: _damaged(meta, what))

    def load_branch(self, session_id: str, branch: int) -> LoadedSession:
        """Branch `branch` of a session as `load(lazy=True)` reads the branch in use (its transcript
        reads the branch's rows wherever a later switch puts them). `StoreError` when the store does
        not keep that branch apart (it is the one in use, or unknown)."""
        with self._guard("read the branch") as conn:
            row = conn.execute(
                f"SELECT {_META_COLUMNS} FROM sessions WHERE id = ? AND branch_of = ?",
                (storage_id(session_id, branch), session_id),
            ).fetchone()
            if row is None:
                raise StoreError(f"session {session_id} keeps no branch {branch} apart")
            loaded, _saved = self._read_lazy(conn, _meta_from_row(row), root=session_id)
            return loaded

    def branch_figures(self, session_id: str) -> dict[int, tuple[int, float, str]]:
        """For each branch kept apart: (its turns, last change in epoch s, its newest prompt)."""
        from co_tui.session.conversation_counts import stored_counts

        with self._guard("read the branches") as conn:
            rows = conn.execute(
                "SELECT id, messages, updated FROM sessions WHERE branch_of = ?", (session_id,)
            ).fetchall()
            return {
                int(str(sid).rsplit(".b", 1)[1]): (
                    stored_counts(conn, sid, int(messages or 0))[0].turns,
                    float(updated or 0),
                    _newest_prompt(conn, sid),
                )
                for sid, messages, updated in rows
            }

    def fork_whole(self, source_id: str, title: str | None = None) -> str:
        """A new session copied from `source_id`'s branch in use as it is saved now — transcript,
        context, ledger, pins, marks — marked as forked from it (`--fork-session`, `/fork`); returns
        its id. Reads no message (pydantic-ai stays unloaded). `StoreError` for an unknown id."""
        from co_tui.session.conversation_counts import stored_counts

        new_id = uuid.uuid4().hex
        with self._guard("fork the session") as conn:
            meta = self._meta(conn, source_id)
            transcript_len, ledger_len, _pins = self.saved_figures(source_id)
            turns = stored_counts(conn, source_id, transcript_len)[0].turns
        name = one_line(title or (f"fork of {meta.title}" if meta.title else "fork"), 60)
        self.fork_session(
            source_id,
            new_id,
            transcript_len=transcript_len,
            ledger_len=ledger_len,
            turns=turns,
            title=name,
            whole=True,
        )
        return new_id

    def fork_session(
        self,
        source_id: str,
        new_id: str,
        *,
        transcript_len: int,
        ledger_len: int,
        turns: int,
        title: str,
        whole: bool = False,
    ) -> None:
        """A new session `new_id` holding the first `transcript_len` transcript rows, `ledger_len`
        ledger rows and the marks before them of `source_id`'s branch in use (`/fork`,
        `--fork-session`), marked as forked from it after `turns` turns. `whole`: the branch as
        saved, its context and pins copied too; else they are the caller's to save next
        (`save_history`). One transaction; the source is not changed."""
        now = _now()
        with self._transaction("fork the session") as conn:
            conn.execute(
                """INSERT INTO sessions (id, title, created, updated, model, workspace, messages, tokens,
                       forked_from, forked_at)
                   SELECT ?, ?, ?, ?, model, workspace, ?, tokens, id, ? FROM sessions WHERE id = ?""",
                (new_id, title, now, now, transcript_len, turns, source_id),
            )
            conn.execute(
                """INSERT INTO transcript (session_id, seq, kind, digest, body)
                   SELECT ?, seq, kind, digest, body FROM transcript WHERE session_id = ? AND seq < ?""",
                (new_id, source_id, transcript_len),
            )
            conn.execute(
                """INSERT INTO ledger (session_id, seq, at_message, created, event, undo)
                   SELECT ?, seq, at_message, created, event, undo FROM ledger WHERE session_id = ? AND seq < ?""",
                (new_id, source_id, ledger_len),
            )
            conn.execute(
                """INSERT INTO marks (session_id, position, ledger_len, tokens, created, pins, context)
                   SELECT ?, position, ledger_len, tokens, created, pins, context FROM marks
                   WHERE session_id = ? AND position < ?""",
                (new_id, source_id, transcript_len),
            )
            copied = [("mark_bodies", "digest, body"), ("token_counts", "digest, estimator, tokens")]
            if whole:
                copied += [("context", "ord, transcript_seq, digest, body"), ("pins", "transcript_seq")]
                conn.execute(
                    """UPDATE sessions SET (context_messages, cost_usd, conversation_counts) =
                       (SELECT context_messages, cost_usd, conversation_counts FROM sessions WHERE id = ?)
                       WHERE id = ?""",
                    (source_id, new_id),
                )
            for table, columns in copied:
                conn.execute(
                    f"INSERT OR IGNORE INTO {table} (session_id, {columns}) SELECT ?, {columns} FROM {table} "  # noqa: S608
                    "WHERE session_id = ?",
                    (new_id, source_id),
                )

    def _meta(self, conn: sqlite3.Connection, session_id: str) -> SessionMeta:
        row = conn.execute(f"SELECT {_META_COLUMNS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise StoreError(f"no session with id {session_id}")
        return _meta_from_row(row)

    # --- file checkpoints (store_checkpoints.py) --------------------------------------------------

    def add_file_checkpoint(
        self, session_id: str, checkpoint: FileCheckpoint, *, at_message: int, branch: int = 0
    ) -> int:
        """Keep one edit's checkpoint (before the edit is written), made at transcript length
        `at_message` of branch `branch`; returns its `seq`. `StoreError` on failure."""
        with self._transaction("save a file checkpoint") as conn:
            return insert_checkpoint(conn, session_id, checkpoint, at_message, branch)

    def file_checkpoint_bytes(self, session_id: str) -> int:
        """Bytes of previous file content the session's checkpoints keep."""
        with self._guard("read the file checkpoints") as conn:
            return checkpoint_bytes(conn, session_id)

    def file_checkpoints(self, session_id: str) -> list[tuple[int, FileCheckpoint]]:
        """(transcript length then, checkpoint) for every edit of the session, oldest first."""
        with self._guard("read the file checkpoints") as conn:
            return read_checkpoints(conn, session_id)

    def branch_file_checkpoints(self, session_id: str) -> list[tuple[int, int, FileCheckpoint]]:
        """(branch, transcript length then, checkpoint) for every edit of the session, oldest first."""
        with self._guard("read the file checkpoints") as conn:
            return read_branch_checkpoints(conn, session_id)

    def preview(self, session_id: str) -> str:
        """One line for the sessions picker: the newest prompt, or the newest answer of a session
        with a single prompt (`store_tail.read_preview`). `StoreError` when the store fails."""
        with self._guard("read the session") as conn:
            return read_preview(conn, session_id)

    def resolve_id(self, prefix: str) -> str:
        """The one session id starting with `prefix` (case-insensitive); else `StoreError`."""
        wanted = prefix.strip().lower()
        if not wanted or any(c not in "0123456789abcdef" for c in wanted):
            raise StoreError(f"not a session id: {prefix!r}")
        with self._guard("look up the session") as conn:
            rows = conn.execute(
                "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? AND branch_of IS NULL ORDER BY updated DESC",
                (len(wanted), wanted),
            ).fetchall()
        if len(rows) == 1:
            return str(rows[0][0])
        if not rows:
            raise StoreError(f"no session matches {prefix!r}")
        if any(r[0] == wanted for r in rows):
            return wanted
        raise StoreError(f"{prefix!r} matches {len(rows)} sessions; give more of the id")


def _newest_prompt(conn: sqlite3.Connection, session_id: str) -> str:
    """The newest user prompt of a session's rows, on one line ('' when none reads)."""
    rows = conn.execute(
        """SELECT body FROM transcript WHERE session_id = ? AND kind = 'request'
           AND instr(body, '"user-prompt"') > 0 ORDER BY seq DESC LIMIT 8""",
        (session_id,),
    )
    for (body,) in rows:
        try:
            parts = json.loads(body).get("parts") or []
        except (TypeError, ValueError, AttributeError):
            continue
        prompt = next((p.get("content") for p in parts if p.get("part_kind") == "user-prompt"), None)
        if isinstance(prompt, str):
            return " ".join(prompt.split())
    return ""


DAMAGED_KEY = "co_tui_damaged"
"""The metadata key of a stand-in for a transcript row that cannot be decoded (its value: the error)."""


def _decode_context(
    rows: Sequence[Any],
    referenced: Callable[[Any], Any | None],
    damaged: Callable[[str], Exception],
    counts_of: Callable[[list[bytes]], dict[bytes, int]],
) -> list[Any]:
    """The context from its rows (`ord, transcript_seq, digest, body`), by the one decoder of stored
    contexts (`context_rows.decode_context`)."""
    return decode_context(
        [(ref, digest, body) for _ord, ref, digest, body in rows],
        referenced=referenced,
        damaged=damaged,
        label=lambda i: f"context message {i}",
        missing=lambda i: f"context message {i} points at a missing transcript message",
        counts_of=counts_of,
    )


def _damaged_stand_in(error: str) -> Any:
    """What a lazily read transcript (or an export) shows for a row that cannot be decoded: the
    error, as a request marked with `DAMAGED_KEY`."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    return ModelRequest(parts=[UserPromptPart(f"[{error}]")], metadata={DAMAGED_KEY: error})


def _damaged(meta: SessionMeta, what: str) -> StoreCorrupt:
    """The one-line error for a damaged session, naming it (and its title)."""
    title = f" ({meta.title})" if meta.title else ""
    return StoreCorrupt(one_line(f"session {meta.id}{title} is damaged: {what}", 200))


_META_COLUMNS = (
    "id, title, created, updated, model, workspace, messages, context_messages, tokens, damaged, cost_usd,"
    " forked_from, forked_at"
)


def _meta_from_row(row: Sequence[Any]) -> SessionMeta:
    """Tolerant of odd values, so one bad metadata row never breaks the whole list."""

    def as_int(value: Any) -> int:
        try:
            return int(value)
        except (TypeError, ValueError):
            return 0

    def as_cost(value: Any) -> float | None:
        try:
            cost = float(value)
        except (TypeError, ValueError):
            return None
        return cost if cost >= 0 and math.isfinite(cost) else None

    sid, title, created, updated, model, workspace, messages, context_messages, tokens, damaged, cost, origin, at = row
    return SessionMeta(
        id=str(sid),
        title=str(title or ""),
        created=_to_datetime(created),
        updated=_to_datetime(updated),
        model=str(model or ""),
        workspace=Path(str(workspace or "")),
        messages=as_int(messages),
        context_messages=as_int(context_messages),
        tokens=as_int(tokens),
        damaged=str(damaged) if damaged else None,
        cost_usd=as_cost(cost),
        forked_from=str(origin) if origin else None,
        forked_at=as_int(at) if at is not None else None,
    )


__all__ = [
    "LoadedSession",
    "SessionHit",
    "SessionMeta",
    "SessionTail",
    "SessionStore",
    "StoreCorrupt",
    "StoreError",
    "StoreFull",
    "StoreLocked",
    "StoreTooNew",
]
