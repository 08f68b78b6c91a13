"""Errors of the session store: each `str()` is one line for the user; the subclass says what kind.

Callers tell a disk-full save (`StoreFull`: keep the session in memory, try again later) from a
lock held by another process (`StoreLocked`) or damaged data (`StoreCorrupt`) by class or `.kind`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from co_tui.text import one_line

# SQLite primary result codes (the low byte of `sqlite_errorcode`).
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_NOTADB = 5, 6, 11, 13, 26


class StoreError(Exception):
    """A session storage failure. `str(err)` is the one line shown to the user."""

    kind = "storage"


class StoreLocked(StoreError):
    """Another co-tui process held the write lock for longer than the busy timeout."""

    kind = "locked"


class StoreFull(StoreError):
    """The disk (or the database's size limit) is full; the failed save wrote nothing."""

    kind = "disk_full"


class StoreCorrupt(StoreError):
    """A damaged session (bad row, undecodable message) or a damaged database file."""

    kind = "corrupt"


class StoreTooNew(StoreError):
    """The database was written by a newer co-tui schema; it is left untouched."""

    kind = "too_new"


def translate_sqlite_error(exc: sqlite3.Error, path: Path, action: str) -> StoreError:
    """One user-facing line for a sqlite3 error, as the `StoreError` subclass that fits."""
    code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    text = str(exc)
    if code in (_SQLITE_BUSY, _SQLITE_LOCKED) or "locked" in text:
        return StoreLocked(f"cannot {action}: session database is locked by another co-tui process")
    if code == _SQLITE_FULL or "database or disk is full" in text:
        return StoreFull(f"cannot {action}: the disk is full (database or disk is full)")
    if code in (_SQLITE_CORRUPT, _SQLITE_NOTADB) or "malformed" in text or "not a database" in text:
        return StoreCorrupt(f"session database {path} is damaged ({one_line(text, 200)}); {recovery_hint(path)}")
    return StoreError(f"cannot {action}: session database error ({one_line(text, 200)})")


def recovery_hint(path: Path) -> str:
    """How to recover a damaged database file, in one line (docs/architecture.md, "Sessions on disk")."""
    return (
        f"to recover: copy it aside first (cp {path} {path}.bak), check it with "
        f"sqlite3 {path} 'PRAGMA integrity_check' and salvage with sqlite3 {path} .recover; "
        "or move it aside to start afresh"
    )
