"""The store's rows for steering the context: what undoing each ledger row needs, and the pins.

`ledger.undo` (schema version 3, see `migrations.py`) holds JSON per ledger row: `{"before": [...]}`
— the context before the cut, each item a transcript index (the message is verbatim in the
transcript) or a message body of the context's own (a marker, a summary, a trimmed copy) —
`{"same": true}` when the row shares the row before's context (two events of one pass), or
`{"undoes": k}` for a restore. NULL: nothing to undo (a /clear, or a row saved before version 3).
The `pins` table holds the transcript index of each pinned turn's user prompt.
Every function runs inside the caller's transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from co_tui.session.context_rows import decode_context
from co_tui.session.message_codec import encode_messages

if TYPE_CHECKING:  # pydantic-ai stays out of the store's import (listing sessions at start-up)
    from co_tui.governance.undo import CutRecord


def write_undo(
    conn: sqlite3.Connection,
    session_id: str,
    first_seq: int,
    records: Sequence[CutRecord],
    secrets: tuple[str, ...],
) -> None:
    """Fill `ledger.undo` for the rows `first_seq`… just appended, one per record."""
    rows = []
    previous: Any = None
    for i, record in enumerate(records):
        value: dict[str, Any] | None = None
        if record.undoes is not None:
            value = {"undoes": record.undoes}
        elif record.before is not None and record.before is previous:
            value = {"same": True}
        elif record.before is not None:
            value = {"before": _refs(conn, session_id, record.before, secrets)}
        previous = record.before
        if value is not None:
            rows.append((json.dumps(value), session_id, first_seq + i))
    conn.executemany("UPDATE ledger SET undo = ? WHERE session_id = ? AND seq = ?", rows)


def _refs(conn: sqlite3.Connection, session_id: str, messages: Sequence[Any], secrets: tuple[str, ...]) -> list[Any]:
    out: list[Any] = []
    for _kind, body, digest in encode_messages(messages, secrets):
        ref = conn.execute(
            "SELECT seq FROM transcript WHERE session_id = ? AND digest = ? ORDER BY seq DESC LIMIT 1",
            (session_id, digest),
        ).fetchone()
        out.append(int(ref[0]) if ref else body)
    return out


def read_undo(
    conn: sqlite3.Connection,
    session_id: str,
    transcript: Sequence[Any],
    ledger_len: int,
    damaged: Callable[[str], Exception],
    newest: int | None = None,
) -> list[CutRecord]:
    """One `CutRecord` per ledger row (rows of one pass share their `before` object). `newest`: only
    the newest that many rows keep their undo data (a lazy resume: older cuts read as not undoable,
    so what is decoded stays flat in the session's length)."""
    from co_tui.governance.undo import CutRecord

    records = [CutRecord()] * ledger_len
    first = 0 if newest is None else max(0, ledger_len - newest)
    for seq, raw in _undo_rows(conn, session_id, first):
        if not 0 <= seq < ledger_len:
            continue
        try:
            value = json.loads(raw)
            if "undoes" in value:
                records[seq] = CutRecord(undoes=int(value["undoes"]))
            elif value.get("same") and seq > 0:
                records[seq] = CutRecord(before=records[seq - 1].before)
            elif "before" in value:
                records[seq] = CutRecord(before=_messages(value["before"], transcript, seq, damaged))
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            raise damaged(f"ledger entry {seq}'s undo data cannot be decoded ({exc})") from None
    return records


def _undo_rows(conn: sqlite3.Connection, session_id: str, first: int) -> list[tuple[int, str]]:
    return conn.execute(
        "SELECT seq, undo FROM ledger WHERE session_id = ? AND seq >= ? AND undo IS NOT NULL ORDER BY seq",
        (session_id, first),
    ).fetchall()


def undo_transcript_refs(conn: sqlite3.Connection, session_id: str, ledger_len: int, newest: int) -> set[int]:
    """The transcript indices the newest `newest` ledger rows' undo data points at (what a lazy
    resume decodes up front for `read_undo`); unreadable rows are left to `read_undo` to report."""
    refs: set[int] = set()
    for _seq, raw in _undo_rows(conn, session_id, max(0, ledger_len - newest)):
        with suppress(TypeError, ValueError, AttributeError):
            value = json.loads(raw)
            if isinstance(value, dict) and isinstance(value.get("before"), list):
                refs.update(item for item in value["before"] if isinstance(item, int))
    return refs


def _messages(
    items: list[Any], transcript: Sequence[Any], seq: int, damaged: Callable[[str], Exception]
) -> tuple[Any, ...]:
    """A ledger row's `before`: its own bodies (strings) and transcript indices, by the one decoder
    of stored contexts (`context_rows.decode_context`)."""
    return tuple(
        decode_context(
            [(None, None, item) if isinstance(item, str) else (item, None, None) for item in items],
            referenced=lambda ref: transcript[ref] if isinstance(ref, int) and 0 <= ref < len(transcript) else None,
            damaged=damaged,
            label=lambda i: f"ledger entry {seq}'s context message {i}",
            missing=lambda _i: f"ledger entry {seq} points at a missing transcript message",
        )
    )


def read_pins(conn: sqlite3.Connection, session_id: str) -> list[int]:
    """The transcript indices of the pinned turns' prompts, in order."""
    return [
        int(seq)
        for (seq,) in conn.execute(
            "SELECT transcript_seq FROM pins WHERE session_id = ? ORDER BY transcript_seq", (session_id,)
        )
    ]


def write_pin(conn: sqlite3.Connection, session_id: str, transcript_seq: int, pinned: bool) -> None:
    """Pin (or unpin) the turn whose prompt is transcript message `transcript_seq`."""
    if pinned:
        conn.execute(
            "INSERT OR IGNORE INTO pins (session_id, transcript_seq) VALUES (?, ?)", (session_id, transcript_seq)
        )
    else:
        conn.execute("DELETE FROM pins WHERE session_id = ? AND transcript_seq = ?", (session_id, transcript_seq))


def write_pins(conn: sqlite3.Connection, session_id: str, transcript_seqs: Sequence[int]) -> None:
    """Make the pinned prompts exactly `transcript_seqs`."""
    conn.execute("DELETE FROM pins WHERE session_id = ?", (session_id,))
    conn.executemany(
        "INSERT OR IGNORE INTO pins (session_id, transcript_seq) VALUES (?, ?)",
        [(session_id, seq) for seq in transcript_seqs],
    )
