"""The health of the search indexes (`migrations.SEARCH_MIGRATION`): find damage, rebuild from the rows.

Both FTS5 indexes are derived data: `transcript_search` from the transcript rows, `title_search`
from the sessions' titles. A damaged one must never cost a save (its triggers write it in the same
transaction as the rows), so when a write fails the store asks `damaged_indexes` and, if one is,
`rebuild`s it and writes again. `PRAGMA integrity_check` cannot see this damage (it reports "ok");
FTS5's own `'integrity-check'` command does, and a write probe (rolled back) catches a damaged
structure record, which passes that check but refuses every insert ("constraint failed").
"""

from __future__ import annotations

import sqlite3

from co_tui.session.migrations import (
    TITLE_SEARCH_FILL,
    TITLE_SEARCH_TABLE,
    TRANSCRIPT_SEARCH_FILL,
    TRANSCRIPT_SEARCH_TABLE,
)

__all__ = ["REBUILT_LINE", "damaged_indexes", "rebuild"]

INDEXES = ("transcript_search", "title_search")

REBUILT_LINE = "the saved sessions' search index was damaged; it was rebuilt from the saved conversations"

# How each index comes back: created (if dropped) and filled from the rows it indexes.
_RECREATE = {
    "transcript_search": (TRANSCRIPT_SEARCH_TABLE, *TRANSCRIPT_SEARCH_FILL),
    "title_search": (TITLE_SEARCH_TABLE, TITLE_SEARCH_FILL),
}
# A probe row: a rowid no real row has (rowids are positive), written and rolled back.
_PROBE = {
    "transcript_search": "INSERT INTO transcript_search (rowid, text) VALUES (-1, 'probe')",
    "title_search": "INSERT INTO title_search (rowid, title) VALUES (-1, 'probe')",
}


def damaged_indexes(conn: sqlite3.Connection) -> list[str]:
    """The names of the search indexes that are damaged (or missing). Runs FTS5's
    `'integrity-check'` and a write probe on each inside a savepoint it rolls back: nothing changes.
    Call with no transaction open or inside a write transaction. Raises nothing of SQLite's for a
    damaged index (that is the answer); other errors (a busy database) propagate."""
    damaged = []
    for name in INDEXES:
        conn.execute("SAVEPOINT search_probe")
        try:
            conn.execute(f"INSERT INTO {name} ({name}) VALUES ('integrity-check')")
            conn.execute(_PROBE[name])
            # FTS5 holds an insert in memory until a savepoint or the commit: this one writes it now.
            conn.execute("SAVEPOINT search_probe_flush")
            conn.execute("RELEASE search_probe_flush")
        except sqlite3.DatabaseError as exc:  # IntegrityError too: a damaged structure record
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise
            damaged.append(name)
        finally:
            conn.execute("ROLLBACK TO search_probe")
            conn.execute("RELEASE search_probe")
    return damaged


def rebuild(conn: sqlite3.Connection, names: list[str]) -> None:
    """Drop the indexes `names` and build them again from the rows (inside the caller's write
    transaction). An index too damaged for SQLite to open it (its structure record unreadable) is
    first given an empty structure, copied from a fresh index of the same definition, so it can be
    dropped."""
    for name in names:
        try:
            conn.execute(f"DROP TABLE IF EXISTS {name}")
        except sqlite3.DatabaseError:  # "vtable constructor failed": make it openable, then drop it
            _reset_shadow_tables(conn, name)
            conn.execute(f"DROP TABLE IF EXISTS {name}")
        for statement in _RECREATE[name]:
            conn.execute(statement)


def _reset_shadow_tables(conn: sqlite3.Connection, name: str) -> None:
    """Give index `name` the shadow rows of an empty index (its `_data` structure and averages
    records), taken from a fresh temporary index made by the same statement."""
    fresh = f"co_tui_fresh_{name}"
    create = _RECREATE[name][0].replace(f"EXISTS {name} USING", f"EXISTS temp.{fresh} USING")
    conn.execute(create)
    try:
        conn.execute(f"DELETE FROM main.{name}_data")
        conn.execute(f"DELETE FROM main.{name}_idx")
        conn.execute(f"INSERT INTO main.{name}_data SELECT * FROM temp.{fresh}_data")
    finally:
        conn.execute(f"DROP TABLE temp.{fresh}")
