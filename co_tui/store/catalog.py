"""The catalog of saved sessions: list, search, the newest of a workspace, delete, the picker's
preview line, an id from its prefix, and the metadata row of one. Functions over a `Database`.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from co_tui.session.conversation_counts import ConversationCounts
from co_tui.session.saved_session import SessionHit, SessionMeta
from co_tui.session.session_lock import busy_elsewhere, claim_session
from co_tui.store.database import Database
from co_tui.store.errors import StoreCorrupt, StoreError, recovery_hint
from co_tui.store.search import search_rows
from co_tui.store.tail import read_preview

__all__ = [
    "META_COLUMNS",
    "delete",
    "latest",
    "list_sessions",
    "meta_from_row",
    "meta_of",
    "preview",
    "resolve_id",
    "search",
]

DELETE_ADVICE = "quit co-tui there (or switch it to another session) first; nothing was deleted"

META_COLUMNS = (
    "id, title, created, updated, model, workspace, messages, context_messages, tokens, damaged, cost_usd,"
    " forked_from, forked_at, conversation_counts"
)


def list_sessions(db: Database, workspace: Path | None = None) -> list[SessionMeta]:
    """Every session (or those of `workspace`), newest first. Reads metadata only, so a session
    with damaged messages still lists (with `damaged` set once a load has found it).
    `StoreCorrupt` when the file is damaged, also when a damaged index hides the workspace's rows."""
    with db.guard("list sessions") as conn:
        if workspace is None:
            rows = conn.execute(
                f"SELECT {META_COLUMNS} FROM sessions WHERE branch_of IS NULL ORDER BY updated DESC, rowid DESC"
            )
        else:
            where = str(Path(workspace).expanduser().resolve())
            found = conn.execute(
                f"SELECT {META_COLUMNS} FROM sessions WHERE workspace = ? AND branch_of IS NULL "
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
                    f"session database {db.path} is damaged (an index disagrees with its table); "
                    f"{recovery_hint(db.path)}"
                )
            return [meta_from_row(r) for r in found]
        return [meta_from_row(r) for r in rows.fetchall()]


def search(db: Database, query: str, workspace: Path | None = None, *, limit: int = 200) -> list[SessionHit]:
    """The sessions (of `workspace`, or all) whose title or saved text matches `query`'s words,
    most recently updated first, at most `limit`, each with a snippet of its newest matching
    message (`search.py`: every word is quoted, so no query text raises; one without
    words finds nothing). `StoreError` when the store fails. A damaged index is rebuilt
    (`search_index.py`): when the search fails (the `SessionStore` retries it), and once per store
    when it finds nothing."""
    where = None if workspace is None else str(Path(workspace).expanduser().resolve())

    def run() -> list[SessionHit]:
        with db.guard("search sessions") as conn:
            return search_rows(
                conn, query, workspace=where, limit=limit, meta_columns=META_COLUMNS, meta_from_row=meta_from_row
            )

    hits = run()
    # Finding nothing may be a damaged index that raises nothing: checked once per store.
    if not hits and not db.search_checked:
        db.search_checked = True
        if db.rebuild_damaged_search():
            hits = run()
    return hits


def delete_refusal(db: Database, session_id: str) -> str | None:
    """The line `delete` would refuse with now (the session is open in another process), else
    None: asked before the "removed for good" question, so that question is not asked in vain."""
    return busy_elsewhere(db.path.parent, session_id, advice=DELETE_ADVICE)


def latest(db: Database, workspace: Path) -> SessionMeta | None:
    """The most recently updated session of `workspace`, or None."""
    sessions = list_sessions(db, workspace)
    return sessions[0] if sessions else None


def delete(db: Database, session_id: str) -> None:
    """Remove a session with its transcript, context, ledger and file checkpoints. Unknown id:
    `StoreError`. `SessionBusy` (one line) while another process has it open: deleting it under
    that process made its next save fail, its conversation left only in a rescue copy."""
    claim = claim_session(db.path.parent, session_id, advice=DELETE_ADVICE)
    try:
        with db.transaction("delete the session") as conn:
            if conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount == 0:
                raise StoreError(f"no session with id {session_id}")
            conn.execute("DELETE FROM sessions WHERE branch_of = ?", (session_id,))  # its other branches
            conn.execute("DELETE FROM file_checkpoints WHERE session_id = ?", (session_id,))
            db.saved.pop(session_id, None)
    finally:
        claim.release()


def preview(db: Database, session_id: str) -> str:
    """One line for the sessions picker: the newest prompt, or the newest answer of a session
    with a single prompt (`store_tail.read_preview`). `StoreError` when the store fails."""
    with db.guard("read the session") as conn:
        return read_preview(conn, session_id)


def resolve_id(db: Database, prefix: str) -> str:
    """The one session id starting with `prefix` (case-insensitive); else `StoreError`."""
    wanted = prefix.strip().lower()
    if not wanted or any(c not in "0123456789abcdef" for c in wanted):
        raise StoreError(f"not a session id: {prefix!r}")
    with db.guard("look up the session") as conn:
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


def meta_of(conn: sqlite3.Connection, session_id: str) -> SessionMeta:
    """The metadata of session `session_id`; `StoreError` for an unknown id."""
    row = conn.execute(f"SELECT {META_COLUMNS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        raise StoreError(f"no session with id {session_id}")
    return meta_from_row(row)


def to_datetime(value: Any) -> datetime:
    """A stored epoch figure as a UTC datetime (the epoch itself for a value that is not one)."""
    try:
        return datetime.fromtimestamp(float(value), tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return datetime.fromtimestamp(0, tz=UTC)


def meta_from_row(row: Sequence[Any]) -> SessionMeta:
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

    sid, title, created, updated, model, workspace, messages, context_messages, tokens, damaged, cost, origin, at = row[
        :13
    ]
    counts = ConversationCounts.from_json(row[13]) if len(row) > 13 else None
    return SessionMeta(
        id=str(sid),
        title=str(title or ""),
        created=to_datetime(created),
        updated=to_datetime(updated),
        model=str(model or ""),
        workspace=Path(str(workspace or "")),
        messages=as_int(messages),
        context_messages=as_int(context_messages),
        tokens=as_int(tokens),
        damaged=str(damaged) if damaged else None,
        cost_usd=as_cost(cost),
        forked_from=str(origin) if origin else None,
        forked_at=as_int(at) if at is not None else None,
        subagent_tokens=counts.subagent_tokens if counts is not None else 0,
    )


def newest_prompt(conn: sqlite3.Connection, session_id: str) -> str:
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
