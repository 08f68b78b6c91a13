"""`Database`: the connection to one sessions.db — opening it (private files, the schema migrated
forward), the one lock every public call of the store takes, write transactions, and what this
process knows the database holds (`SavedState`, per session, for cheap saves).

`SessionStore` (session_store.py) is a `Database` with the store's operations, each in its module
(writer.py, reader.py, catalog.py, branches.py, checkpoints.py). See the package docstring.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Self

from co_tui.paths import ensure_private_dir
from co_tui.session import migrations
from co_tui.store.errors import StoreError, StoreTooNew, translate_sqlite_error
from co_tui.store.search_index import REBUILT_LINE, damaged_indexes, rebuild

if TYPE_CHECKING:
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.session.context_diff import ContextState  # a save's (writer.py), not an opening's

__all__ = ["BUSY_TIMEOUT_S", "DB_NAME", "Database", "SavedState", "now"]

DB_NAME = "sessions.db"
BUSY_TIMEOUT_S = 3.0


@dataclass
class SavedState:
    """What this process knows the database holds for one session, valid while `revision` matches."""

    revision: int
    transcript_len: int
    ledger_len: int
    # The saved context rows with their message objects (None when rebuilt from the database), so
    # an unchanged message is recognised by identity, without serialising it again.
    context: ContextState
    pins: tuple[int, ...] = ()
    next_mark: int = 0  # the position after the newest saved mark


def now() -> float:
    """The time a write records (epoch seconds); tests set the clock here."""
    return time.time()


def too_new(path: Path, version: int, *, writing: bool) -> StoreTooNew:
    refusal = "; refusing to modify it" if writing else ""
    return StoreTooNew(f"session database {path} was created by a newer co-tui (schema {version}){refusal}")


class Database:
    """One sessions.db connection (module docstring). Build with `open(data_dir)`."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self.lock = threading.RLock()
        self.saved: dict[str, SavedState] = {}
        # The newest session's parsed ledger, keyed by (rows, newest seq), so loading the same
        # session again (another /sessions switch, a reload) does not parse thousands of entries
        # again; the resume preview parses only its own banners. Ledger events are append-only.
        self.ledger_memo: tuple[str, tuple[int, int], tuple[HistoryTrimmed, ...], tuple[int, ...]] | None = None
        # One line when other users can read the data dir (set by `commands.open_store_at`): the
        # front end shows it — print mode on stderr, the TUI in the chat (docs/configuration.md).
        self.warning: str | None = None
        # Lines about repairs the store made on its own (a damaged search index rebuilt): the front
        # end shows them once (`take_notices`).
        self.notices: list[str] = []
        self.search_checked = False  # whether a search that found nothing had the index checked

    @classmethod
    def open(cls, data_dir: Path, *, read_only: bool = False) -> Self:
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
                raise too_new(path, version, writing=not read_only)
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
    def open_read_only(cls, data_dir: Path) -> Self:
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
                    raise too_new(path, current, writing=True)
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
        with self.lock:
            self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def rebuild_damaged_search(self) -> bool:
        """After a failed write: whether a search index was damaged, and is now rebuilt from the rows
        (`search_index.py`; one notice says so). False when none is, or the check itself failed."""
        try:
            with self.transaction("repair the search index") as conn:
                damaged = damaged_indexes(conn)
                if damaged:
                    rebuild(conn, damaged)
        except StoreError:
            return False
        if damaged:
            self.notices.append(REBUILT_LINE)
        return bool(damaged)

    def take_notices(self) -> list[str]:
        """The lines about repairs made since the last call (a rebuilt search index), once each."""
        with self.lock:
            notices, self.notices = self.notices, []
        return notices

    @contextmanager
    def guard(self, action: str) -> Iterator[sqlite3.Connection]:
        """Hold the lock and turn sqlite3 errors into one-line `StoreError`s."""
        with self.lock:
            try:
                yield self.conn
            except sqlite3.Error as exc:
                raise translate_sqlite_error(exc, self.path, action) from None

    @contextmanager
    def transaction(self, action: str) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken up front (`BEGIN IMMEDIATE`) so the busy timeout applies."""
        with self.guard(action) as conn:
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
