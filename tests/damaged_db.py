"""Damage a real session database the way a bad disk does, for tests of what co-tui then says."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def damage_workspace_index(db: Path, workspace: Path) -> None:
    """Change one byte of `workspace`'s key in the `sessions_by_workspace` index page (after folding
    the WAL into the file): the table still holds the sessions, but a lookup by workspace through the
    index finds none, without an SQLite error."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sessions_by_workspace'").fetchone()[0]
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with db.open("r+b") as handle:
        handle.seek((root - 1) * page_size)
        page = handle.read(page_size)
        key = str(workspace.resolve()).encode()
        at = page.index(key) + len(key) - 1
        handle.seek((root - 1) * page_size + at)
        handle.write(bytes([page[at] ^ 0x01]))
