"""The conversation tree as the store keeps it: the branch in use, a mark's context, another
branch's history, the branches' figures, and forks (a branch copied into a new session). The rows
themselves are branch_rows.py's. Functions over a `Database`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from co_tui.session.saved_session import LoadedSession
from co_tui.store import database
from co_tui.store.branch_rows import active_branch, read_mark_context, storage_id
from co_tui.store.catalog import META_COLUMNS, meta_from_row, meta_of, newest_prompt
from co_tui.store.database import Database
from co_tui.store.errors import StoreError
from co_tui.store.reader import damaged_error, read_lazy
from co_tui.store.writer import saved_figures
from co_tui.text import one_line

__all__ = ["branch_figures", "branch_in_use", "fork_session", "fork_whole", "load_branch", "mark_context"]


def branch_in_use(db: Database, session_id: str) -> int:
    """The branch whose rows are the session's own (the one a resume opens)."""
    with db.guard("read the session") as conn:
        return active_branch(conn, session_id)


def mark_context(db: Database, session_id: str, position: int, transcript: Sequence[Any]) -> tuple[Any, ...] | None:
    """What the model was about to be sent before the prompt at `position` of the branch in use
    (its transcript messages taken from `transcript`, which may decode them), or None when no mark
    was saved there. `StoreCorrupt` for a damaged mark."""
    with db.guard("read the session") as conn:
        meta = meta_of(conn, session_id)
        return read_mark_context(conn, session_id, position, transcript, lambda what: damaged_error(meta, what))


def load_branch(db: Database, session_id: str, branch: int) -> LoadedSession:
    """Branch `branch` of a session as `load(lazy=True)` reads the branch in use (its transcript
    reads the branch's rows wherever a later switch puts them). `StoreError` when the store does
    not keep that branch apart (it is the one in use, or unknown)."""
    with db.guard("read the branch") as conn:
        row = conn.execute(
            f"SELECT {META_COLUMNS} FROM sessions WHERE id = ? AND branch_of = ?",
            (storage_id(session_id, branch), session_id),
        ).fetchone()
        if row is None:
            raise StoreError(f"session {session_id} keeps no branch {branch} apart")
        loaded, _saved = read_lazy(db, conn, meta_from_row(row), root=session_id)
        return loaded


def branch_figures(db: Database, session_id: str) -> dict[int, tuple[int, float, str]]:
    """For each branch kept apart: (its turns, last change in epoch s, its newest prompt)."""
    from co_tui.session.conversation_counts import stored_counts

    with db.guard("read the branches") as conn:
        rows = conn.execute("SELECT id, messages, updated FROM sessions WHERE branch_of = ?", (session_id,)).fetchall()
        return {
            int(str(sid).rsplit(".b", 1)[1]): (
                stored_counts(conn, sid, int(messages or 0))[0].turns,
                float(updated or 0),
                newest_prompt(conn, sid),
            )
            for sid, messages, updated in rows
        }


def fork_whole(db: Database, source_id: str, title: str | None = None) -> str:
    """A new session copied from `source_id`'s branch in use as it is saved now — transcript,
    context, ledger, pins, marks — marked as forked from it (`--fork-session`, `/fork`); returns
    its id. Reads no message (pydantic-ai stays unloaded). `StoreError` for an unknown id."""
    from co_tui.session.conversation_counts import stored_counts

    new_id = uuid.uuid4().hex
    with db.guard("fork the session") as conn:
        meta = meta_of(conn, source_id)
        transcript_len, ledger_len, _pins = saved_figures(db, source_id)
        turns = stored_counts(conn, source_id, transcript_len)[0].turns
    name = one_line(title or (f"fork of {meta.title}" if meta.title else "fork"), 60)
    fork_session(
        db,
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
    db: Database,
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
    now = database.now()
    with db.transaction("fork the session") as conn:
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
