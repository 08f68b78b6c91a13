"""The store's rows for the conversation tree: the marks (what the model was about to be sent before
each prompt), the branches, and moving a branch's rows in and out of the session's own.

Layout and why in `migrations.py` (version 7). The branch in use keeps the session's own rows, so
every other query of the store reads them as it always did; another branch's rows are kept under a
`sessions` row of their own (`storage_id`, `branch_of` set, never listed). A switch moves rows
(`UPDATE … SET session_id`) inside the caller's save transaction: a crash leaves either branch
whole. Every function runs inside the caller's transaction; pydantic-ai is imported only to decode.
"""

from __future__ import annotations

import json
import sqlite3
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from co_tui.session.context_diff import shared_prefix
from co_tui.session.context_rows import decode_context
from co_tui.session.message_codec import encode_messages

if TYPE_CHECKING:
    from co_tui.session.context_diff import ContextState
    from co_tui.session.history import BranchInfo, Mark

__all__ = [
    "home_of",
    "read_mark_context",
    "read_marks",
    "read_tree",
    "storage_id",
    "switch_rows",
    "write_marks",
]

# The tables whose rows belong to one branch (token_counts is a cache by digest: it stays shared).
_BRANCH_TABLES = ("transcript", "context", "ledger", "pins", "marks", "mark_bodies")
# The figures of a session row that describe its branch's rows.
_FIGURES = "messages, context_messages, tokens, conversation_counts"


def storage_id(session_id: str, branch: int) -> str:
    """The `sessions` row that keeps branch `branch`'s rows while another branch is in use."""
    return f"{session_id}.b{branch}"


def active_branch(conn: sqlite3.Connection, session_id: str) -> int:
    """The branch in use of `session_id` (0 for a session never rewound)."""
    row = conn.execute("SELECT branch FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return int(row[0]) if row is not None and row[0] is not None else 0


def home_of(conn: sqlite3.Connection, session_id: str, branch: int) -> str:
    """Where branch `branch`'s rows are now: the session's own while in use, else its storage row."""
    return session_id if active_branch(conn, session_id) == branch else storage_id(session_id, branch)


# --- the tree ---------------------------------------------------------------------------------------


def read_tree(conn: sqlite3.Connection, session_id: str) -> tuple[int, list[BranchInfo]]:
    """(the branch in use, every branch by id); no rows: (0, []) — one branch."""
    from co_tui.session.history import BranchInfo

    tree = [
        BranchInfo(int(i), None if parent is None else int(parent), int(at), int(ledger), float(created), int(turn))
        for i, parent, at, ledger, created, turn in conn.execute(
            "SELECT id, parent, fork_at, fork_ledger, created, fork_turn FROM branches WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
    ]
    return active_branch(conn, session_id), tree


def _write_tree(conn: sqlite3.Connection, session_id: str, tree: Sequence[BranchInfo]) -> None:
    conn.executemany(
        """INSERT OR IGNORE INTO branches (session_id, id, parent, fork_at, fork_ledger, fork_turn, created)
           VALUES (?, ?, ?, ?, ?, ?, COALESCE(NULLIF(?, 0), (SELECT created FROM sessions WHERE id = ?)))""",
        [(session_id, b.id, b.parent, b.fork_at, b.fork_ledger, b.fork_turn, b.created, session_id) for b in tree],
    )


def switch_rows(conn: sqlite3.Connection, session_id: str, to: int, tree: Sequence[BranchInfo]) -> bool:
    """Make branch `to` the session's own rows (the one in use), keeping the branch left under its
    storage row. A branch new to the store (a rewind's) starts as a copy of its parent's first
    `fork_at` transcript rows, `fork_ledger` ledger rows and the marks before `fork_at`; its context
    and pins are the caller's to write. A branch in use that `tree` no longer holds (left before
    anything was sent on it) is deleted instead. Returns whether anything moved."""
    current = active_branch(conn, session_id)
    if current == to:
        return False
    left = storage_id(session_id, current)
    if any(b.id == current for b in tree) or not tree:
        conn.execute(
            f"""INSERT INTO sessions (id, title, created, updated, model, workspace, cost_usd, branch, branch_of, {_FIGURES})
                SELECT ?, title, created, updated, model, workspace, cost_usd, branch, id, {_FIGURES}
                FROM sessions WHERE id = ?""",
            (left, session_id),
        )
        for table in _BRANCH_TABLES:
            conn.execute(f"UPDATE {table} SET session_id = ? WHERE session_id = ?", (left, session_id))  # noqa: S608
    else:  # left before anything was sent on it: dropped (its parent holds all it had)
        for table in _BRANCH_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))  # noqa: S608
        conn.execute("DELETE FROM branches WHERE session_id = ? AND id = ?", (session_id, current))
    _write_tree(conn, session_id, tree)
    kept = storage_id(session_id, to)
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (kept,)).fetchone():
        for table in _BRANCH_TABLES:
            conn.execute(f"UPDATE {table} SET session_id = ? WHERE session_id = ?", (session_id, kept))  # noqa: S608
        conn.execute(
            f"UPDATE sessions SET ({_FIGURES}) = (SELECT {_FIGURES} FROM sessions WHERE id = ?) WHERE id = ?",
            (kept, session_id),
        )
        conn.execute("DELETE FROM sessions WHERE id = ?", (kept,))
    else:
        info = next((b for b in tree if b.id == to), None)
        if info is None or info.parent is None:
            raise sqlite3.IntegrityError(f"branch {to} is not in the tree")
        parent = left if info.parent == current else storage_id(session_id, info.parent)
        conn.execute(
            """INSERT INTO transcript (session_id, seq, kind, digest, body)
               SELECT ?, seq, kind, digest, body FROM transcript WHERE session_id = ? AND seq < ?""",
            (session_id, parent, info.fork_at),
        )
        conn.execute(
            """INSERT INTO ledger (session_id, seq, at_message, created, event, undo)
               SELECT ?, seq, at_message, created, event, undo FROM ledger WHERE session_id = ? AND seq < ?""",
            (session_id, parent, info.fork_ledger),
        )
        conn.execute(
            """INSERT INTO marks (session_id, position, ledger_len, tokens, created, pins, context)
               SELECT ?, position, ledger_len, tokens, created, pins, context FROM marks
               WHERE session_id = ? AND position < ?""",
            (session_id, parent, info.fork_at),
        )
        conn.execute(
            "INSERT INTO mark_bodies (session_id, digest, body) SELECT ?, digest, body FROM mark_bodies WHERE session_id = ?",
            (session_id, parent),
        )
        # The counts are counted from the rows at the next resume (`stored_counts`).
        conn.execute(
            "UPDATE sessions SET messages = ?, context_messages = 0, conversation_counts = NULL WHERE id = ?",
            (info.fork_at, session_id),
        )
    conn.execute("UPDATE sessions SET branch = ? WHERE id = ?", (to, session_id))
    return True


# --- marks ------------------------------------------------------------------------------------------


def next_mark(conn: sqlite3.Connection, session_id: str) -> int:
    """The position after the newest saved mark (marks come in position order)."""
    return int(
        conn.execute("SELECT COALESCE(MAX(position) + 1, 0) FROM marks WHERE session_id = ?", (session_id,)).fetchone()[
            0
        ]
    )


# A mark is stored as the mark before it plus what changed at the end (between two cuts the context
# only grows there, so a turn adds a few items), with a whole one at least every `_MAX_CHAIN` marks.
_MAX_CHAIN = 32
_SCAN_FROM = 64  # from this many new items on, the context rows are read in one scan, not one by one


def write_marks(
    conn: sqlite3.Connection,
    session_id: str,
    marks: Sequence[Mark],
    *,
    first: int,
    transcript_len: int,
    saved_context: ContextState,
    secrets: tuple[str, ...],
) -> int:
    """Save the marks at positions `first`… whose prompt is saved (before `transcript_len`); call it
    before the context rows change: a mark's context is usually the context saved last, found there
    by identity (no serialisation). A mark whose context starts with the previous mark's is stored
    as `{"base": position, "keep": n, "add": [...], "depth": d}`: work and bytes in proportion to
    the turn, not to the context. Returns the position after the newest mark saved."""
    pending = [m for m in marks if first <= m.position < transcript_len and m.context is not None]
    if not pending:
        return first
    by_position = {m.position: m for m in marks}
    before = [m for m in marks if m.position < pending[0].position]
    previous = before[-1] if before else None
    for mark in pending:
        context = mark.context
        assert context is not None
        value: Any = None
        if previous is not None and previous.context is not None and previous.position in by_position:
            depth = _depth(conn, session_id, previous.position)
            keep = shared_prefix(previous.context, context)
            if depth is not None and depth < _MAX_CHAIN and keep * 2 >= len(previous.context):
                added = _items(conn, session_id, context[keep:], saved_context, secrets)
                value = {"base": previous.position, "keep": keep, "add": _runs(added), "depth": depth + 1}
        if value is None:
            value = _runs(_items(conn, session_id, context, saved_context, secrets))
        conn.execute(
            """INSERT OR REPLACE INTO marks (session_id, position, ledger_len, tokens, created, pins, context)
               VALUES (?, ?, ?, ?, ?, ?, ?)""",
            (
                session_id,
                mark.position,
                mark.ledger_len,
                mark.tokens,
                mark.created,
                json.dumps(list(mark.pins)),
                json.dumps(value),
            ),
        )
        previous = mark
    return pending[-1].position + 1


def _depth(conn: sqlite3.Connection, session_id: str, position: int) -> int | None:
    """How many marks the saved mark at `position` stands on (0: a whole one); None: none saved."""
    row = conn.execute(
        "SELECT context FROM marks WHERE session_id = ? AND position = ?", (session_id, position)
    ).fetchone()
    if row is None:
        return None
    try:
        value = json.loads(row[0])
    except (TypeError, ValueError):
        return None
    return int(value.get("depth", 0)) if isinstance(value, dict) else 0


def _items(
    conn: sqlite3.Connection,
    session_id: str,
    messages: Sequence[Any],
    state: ContextState,
    secrets: tuple[str, ...],
) -> list[int | str]:
    """`messages` as mark items (`_item`): many at once read the context rows in one scan."""
    rows: dict[int, tuple[Any, bytes]] | None = None
    if len(messages) >= _SCAN_FROM:
        rows = {
            int(key): (ref, bytes(digest))
            for key, ref, digest in conn.execute(
                "SELECT ord, transcript_seq, digest FROM context WHERE session_id = ?", (session_id,)
            )
        }
    return [_item(conn, session_id, message, rows, state, secrets) for message in messages]


def _item(
    conn: sqlite3.Connection,
    session_id: str,
    message: Any,
    rows: dict[int, tuple[Any, bytes]] | None,
    state: ContextState,
    secrets: tuple[str, ...],
) -> int | str:
    """A context message as a mark item: its transcript index, or the hex digest of its body (kept
    once in `mark_bodies`). `rows`: the context rows by key (None: each read by its key)."""
    key = state.by_id.get(id(message))
    found = None
    if key is not None:
        i = bisect_left(state.keys, key)
        if i < len(state.keys) and state.keys[i] == key and state.messages[i] is message:
            if rows is not None:
                found = rows.get(key)
            else:
                row = conn.execute(
                    "SELECT transcript_seq, digest FROM context WHERE session_id = ? AND ord = ?", (session_id, key)
                ).fetchone()
                found = None if row is None else (row[0], bytes(row[1]))
    if found is not None:
        ref, saved_digest = found
        if ref is not None:
            return int(ref)
        conn.execute(
            """INSERT OR IGNORE INTO mark_bodies (session_id, digest, body)
               SELECT session_id, digest, body FROM context WHERE session_id = ? AND ord = ?""",
            (session_id, key),
        )
        return saved_digest.hex()
    _kind, body, digest = encode_messages([message], secrets)[0]
    seq = conn.execute(
        "SELECT seq FROM transcript WHERE session_id = ? AND digest = ? ORDER BY seq DESC LIMIT 1",
        (session_id, digest),
    ).fetchone()
    if seq is not None:
        return int(seq[0])
    conn.execute(
        "INSERT OR IGNORE INTO mark_bodies (session_id, digest, body) VALUES (?, ?, ?)", (session_id, digest, body)
    )
    return digest.hex()


def _runs(items: list[int | str]) -> list[Any]:
    """Consecutive transcript indices as `[first, last]` runs (a context is mostly long runs)."""
    out: list[Any] = []
    for item in items:
        last = out[-1] if out else None
        if isinstance(item, int) and isinstance(last, list) and last[1] + 1 == item:
            last[1] = item
        elif isinstance(item, int) and isinstance(last, int) and last + 1 == item:
            out[-1] = [last, item]
        else:
            out.append(item)
    return out


def _expand(items: list[Any]) -> list[int | str]:
    out: list[int | str] = []
    for item in items:
        if isinstance(item, list):
            out.extend(range(int(item[0]), int(item[1]) + 1))
        elif isinstance(item, (int, str)):
            out.append(item)
        else:
            raise ValueError(f"not a mark item: {item!r}")
    return out


def read_marks(conn: sqlite3.Connection, session_id: str, damaged: Callable[[str], Exception]) -> list[Mark]:
    """Every mark of the branch in use, by position, without their contexts (`read_mark_context`)."""
    from co_tui.session.history import Mark

    marks = []
    for position, ledger_len, tokens, created, pins in conn.execute(
        "SELECT position, ledger_len, tokens, created, pins FROM marks WHERE session_id = ? ORDER BY position",
        (session_id,),
    ):
        try:
            marks.append(Mark(int(position), int(ledger_len), tuple(json.loads(pins)), int(tokens), float(created)))
        except (TypeError, ValueError) as exc:
            raise damaged(f"the mark of message {position} cannot be decoded ({exc})") from None
    return marks


def read_mark_context(
    conn: sqlite3.Connection,
    session_id: str,
    position: int,
    transcript: Sequence[Any],
    damaged: Callable[[str], Exception],
) -> tuple[Any, ...] | None:
    """The context of the mark at `position` (its transcript messages read from `transcript`), or
    None when there is no such mark. Raises `damaged(...)` for a row that cannot be decoded."""
    items = _mark_items(conn, session_id, position, damaged)
    if items is None:
        return None
    digests = sorted({item for item in items if isinstance(item, str)})
    bodies: dict[str, str] = {}
    for digest in digests:
        try:
            key = bytes.fromhex(digest)
        except ValueError:
            raise damaged(f"the mark of message {position} cannot be decoded (bad digest)") from None
        found = conn.execute(
            "SELECT body FROM mark_bodies WHERE session_id = ? AND digest = ?", (session_id, key)
        ).fetchone()
        if found is None:
            raise damaged(f"the mark of message {position} names a missing message")
        bodies[digest] = found[0]
    return tuple(
        decode_context(
            [(None, None, bodies[item]) if isinstance(item, str) else (item, None, None) for item in items],
            referenced=lambda ref: transcript[ref] if isinstance(ref, int) and 0 <= ref < len(transcript) else None,
            damaged=damaged,
            label=lambda i: f"the mark of message {position}'s context message {i}",
            missing=lambda _i: f"the mark of message {position} points at a missing transcript message",
        )
    )


def _mark_items(
    conn: sqlite3.Connection, session_id: str, position: int, damaged: Callable[[str], Exception]
) -> list[int | str] | None:
    """The items of the mark at `position`, its chain of earlier marks followed back to a whole one."""
    chain: list[dict[str, Any]] = []
    at = position
    while True:
        row = conn.execute(
            "SELECT context FROM marks WHERE session_id = ? AND position = ?", (session_id, at)
        ).fetchone()
        if row is None:
            if at == position:
                return None
            raise damaged(f"the mark of message {position} stands on a missing mark")
        try:
            value = json.loads(row[0])
            if isinstance(value, list):
                items = _expand(value)
                break
            chain.append(value)
            at = int(value["base"])
            if at >= position or len(chain) > _MAX_CHAIN + 1:
                raise ValueError("a mark that does not stand on an earlier one")
        except (TypeError, ValueError, KeyError, IndexError) as exc:
            raise damaged(f"the mark of message {position} cannot be decoded ({exc})") from None
    try:
        for step in reversed(chain):
            items = items[: int(step["keep"])] + _expand(step["add"])
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        raise damaged(f"the mark of message {position} cannot be decoded ({exc})") from None
    return items
