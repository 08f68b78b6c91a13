"""The store's rows of file checkpoints (table `file_checkpoints`, schema version 6, `migrations.py`):
one per edit the agent made, the file's previous content included (`agent/checkpoints.py`).
Every function runs inside the caller's transaction or lock.
"""

from __future__ import annotations

import sqlite3

from co_tui.agent.checkpoints import FileCheckpoint


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
