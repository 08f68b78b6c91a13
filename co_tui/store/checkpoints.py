"""The store's file checkpoints (table `file_checkpoints`, schema version 6, `migrations.py`): one
per edit the agent made, the file's previous content included (`agent/checkpoints.py`). The row
functions run inside the caller's transaction or lock; the last four are the `SessionStore`'s
operations over a `Database`.
"""

from __future__ import annotations

import sqlite3

from co_tui.agent.checkpoints import FileCheckpoint
from co_tui.store.database import Database


def insert_checkpoint(
    conn: sqlite3.Connection, session_id: str, checkpoint: FileCheckpoint, at_message: int, branch: int = 0
) -> int:
    """Append `checkpoint` to the session's; returns its `seq`. `at_message`: the transcript's length
    then, in branch `branch` (the one in use, schema 7)."""
    row = conn.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM file_checkpoints WHERE session_id = ?", (session_id,))
    seq = int(row.fetchone()[0])
    conn.execute(
        "INSERT INTO file_checkpoints (session_id, seq, created, at_message, tool, tool_call_id, path, before,"
        " before_bytes, after_sha256, branch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            session_id,
            seq,
            checkpoint.created,
            at_message,
            checkpoint.tool,
            checkpoint.tool_call_id,
            checkpoint.path,
            checkpoint.before,
            checkpoint.size,
            checkpoint.after_sha256,
            branch,
        ),
    )
    return seq


def checkpoint_bytes(conn: sqlite3.Connection, session_id: str) -> int:
    """Bytes of previous content the session's checkpoints keep (what `checkpoint_max_bytes` caps)."""
    row = conn.execute(
        "SELECT COALESCE(SUM(before_bytes), 0) FROM file_checkpoints WHERE session_id = ?", (session_id,)
    )
    return int(row.fetchone()[0])


def read_checkpoints(conn: sqlite3.Connection, session_id: str) -> list[tuple[int, FileCheckpoint]]:
    """(at_message, checkpoint) for each of the session's checkpoints, in order."""
    return [(at, checkpoint) for _branch, at, checkpoint in read_branch_checkpoints(conn, session_id)]


def read_branch_checkpoints(conn: sqlite3.Connection, session_id: str) -> list[tuple[int, int, FileCheckpoint]]:
    """(branch, at_message, checkpoint) for each of the session's checkpoints, in order."""
    rows = conn.execute(
        "SELECT seq, created, at_message, tool, tool_call_id, path, before, after_sha256, branch"
        " FROM file_checkpoints WHERE session_id = ? ORDER BY seq",
        (session_id,),
    ).fetchall()
    return [
        (
            int(branch),
            int(at),
            FileCheckpoint(
                path=str(path),
                before=bytes(before) if before is not None else None,
                after_sha256=str(after),
                tool=str(tool),
                tool_call_id=str(call_id),
                created=float(created),
                seq=int(seq),
            ),
        )
        for seq, created, at, tool, call_id, path, before, after, branch in rows
    ]


def add_file_checkpoint(
    db: Database, session_id: str, checkpoint: FileCheckpoint, *, at_message: int, branch: int = 0
) -> int:
    """Keep one edit's checkpoint (before the edit is written), made at transcript length
    `at_message` of branch `branch`; returns its `seq`. `StoreError` on failure."""
    with db.transaction("save a file checkpoint") as conn:
        return insert_checkpoint(conn, session_id, checkpoint, at_message, branch)


def file_checkpoint_bytes(db: Database, session_id: str) -> int:
    """Bytes of previous file content the session's checkpoints keep."""
    with db.guard("read the file checkpoints") as conn:
        return checkpoint_bytes(conn, session_id)


def file_checkpoints(db: Database, session_id: str) -> list[tuple[int, FileCheckpoint]]:
    """(transcript length then, checkpoint) for every edit of the session, oldest first."""
    with db.guard("read the file checkpoints") as conn:
        return read_checkpoints(conn, session_id)


def branch_file_checkpoints(db: Database, session_id: str) -> list[tuple[int, int, FileCheckpoint]]:
    """(branch, transcript length then, checkpoint) for every edit of the session, oldest first."""
    with db.guard("read the file checkpoints") as conn:
        return read_branch_checkpoints(conn, session_id)
