"""Saving a session: one transaction appends the new transcript and ledger rows and deletes/inserts
only the context rows that left or arrived (`context_diff.py`), so a save's cost depends on the
turn, not on the session's length; after a failure nothing of that save is written and the next
call writes the same rows again. Functions over a `Database` (the `SessionStore` calls them).
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.redaction import redact_text, secret_env_values
from co_tui.session.context_diff import ContextState, plan_context_update
from co_tui.session.conversation_counts import record_counts
from co_tui.session.message_codec import encode_messages
from co_tui.session.token_counts import save_counts
from co_tui.store import database
from co_tui.store.branch_rows import next_mark, switch_rows, write_marks
from co_tui.store.database import Database, SavedState
from co_tui.store.errors import StoreError
from co_tui.store.keep import KEEP, KeepType
from co_tui.store.steering_rows import read_pins, write_pin, write_pins, write_undo

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.governance.events import HistoryTrimmed
    from co_tui.session.history import HistorySnapshot, Mark

__all__ = ["KEEP", "KeepType", "create_session", "save_history", "save_turn", "saved_figures", "set_pin"]


def is_user_prompt(message: Any) -> bool:
    return getattr(message, "kind", None) == "request" and any(
        getattr(p, "part_kind", None) == "user-prompt" for p in message.parts
    )


def create_session(db: Database, *, model: str, workspace: Path, title: str = "", session_id: str | None = None) -> str:
    """Add an empty session; return its id (a uuid4 hex string unless `session_id` is given)."""
    sid = session_id or uuid.uuid4().hex
    now = database.now()
    with db.transaction("create a session") as conn:
        try:
            conn.execute(
                "INSERT INTO sessions (id, title, created, updated, model, workspace) VALUES (?, ?, ?, ?, ?, ?)",
                (sid, title, now, now, model, str(Path(workspace).expanduser().resolve())),
            )
        except sqlite3.IntegrityError:
            raise StoreError(f"a session with id {sid} already exists") from None
        db.saved[sid] = SavedState(revision=0, transcript_len=0, ledger_len=0, context=ContextState())
    return sid


def save_turn(
    db: Database,
    session_id: str,
    *,
    new_transcript: Sequence[ModelMessage],
    context: Sequence[ModelMessage] | None,
    new_events: Sequence[HistoryTrimmed],
    title: str | None = None,
    model: str | None = None,
    tokens: int | None = None,
    event_positions: Sequence[int] | None = None,
    cost_usd: float | None | KeepType = KEEP,
    event_records: Sequence[Any] | None = None,
    pins: Sequence[int] | None = None,
) -> None:
    """Append `new_transcript` and `new_events`, store `context` (None: unchanged), update metadata.

    One transaction: on any error nothing of this call is written, so the caller can pass the
    same (still unsaved) messages again next time. Context rows that did not change are not
    touched; context messages equal to a transcript message are stored as a reference to it.
    `event_positions` (transcript indices) place each event's banner; by default an event sits right after this turn's user prompt (or at the end if there is none).
    `cost_usd` is the session's cost so far (None: unknown); `KEEP` leaves the stored figure.
    `event_records` (`governance.undo.CutRecord`, one per event): what undoing each needs.
    `pins`: the pinned prompts' transcript indices, all of them (None: unchanged).
    Raises `StoreLocked`, `StoreFull`, or `StoreError` (unknown session, other failures).
    """
    with db.lock:  # the cache below is shared with other threads too
        try:
            with db.transaction("save the session") as conn:
                saved = saved_state(db, conn, session_id)
                db.saved[session_id] = write_rows(
                    db,
                    conn,
                    session_id,
                    saved,
                    new_transcript=new_transcript,
                    context=context,
                    new_events=new_events,
                    title=title,
                    model=model,
                    tokens=tokens,
                    event_positions=event_positions,
                    cost_usd=cost_usd,
                    event_records=event_records,
                    pins=pins,
                )
        except BaseException:
            # The context indexes may describe a write that did not happen: rebuild them next time.
            db.saved.pop(session_id, None)
            raise


def write_rows(
    db: Database,
    conn: sqlite3.Connection,
    session_id: str,
    saved: SavedState,
    *,
    new_transcript: Sequence[ModelMessage],
    context: Sequence[ModelMessage] | None,
    new_events: Sequence[HistoryTrimmed],
    title: str | None,
    model: str | None,
    tokens: int | None,
    event_positions: Sequence[int] | None,
    cost_usd: float | None | KeepType,
    event_records: Sequence[Any] | None,
    pins: Sequence[int] | None,
    marks: Sequence[Mark] = (),
) -> SavedState:
    """`save_turn`'s rows, inside the caller's transaction; returns what the store then holds."""
    secrets = secret_env_values()
    encoded = encode_messages(new_transcript, secrets)
    # A context message that is one of this turn's new transcript messages is serialised once.
    by_identity = {id(m): enc for m, enc in zip(new_transcript, encoded, strict=False)}
    now = database.now()
    base = saved.transcript_len
    conn.executemany(
        "INSERT INTO transcript (session_id, seq, kind, digest, body) VALUES (?, ?, ?, ?, ?)",
        [(session_id, base + i, kind, digest, body) for i, (kind, body, digest) in enumerate(encoded)],
    )
    transcript_len = base + len(encoded)
    record_counts(conn, session_id, base, new_transcript)
    # Before the context rows change: a mark's context is the one saved last (found by identity).
    marks_after = write_marks(
        conn,
        session_id,
        marks,
        first=saved.next_mark,
        transcript_len=transcript_len,
        saved_context=saved.context,
        secrets=secrets,
    )
    counted = [(enc[2], m) for m, enc in zip(new_transcript, encoded, strict=False)]
    context_state = saved.context
    if context is not None:
        context_state = save_context(conn, session_id, saved, context, by_identity, secrets, counted)
    save_counts(conn, session_id, counted)
    append_ledger(
        conn,
        session_id,
        saved.ledger_len,
        new_events,
        event_positions,
        now,
        secrets,
        default_at=min(base + (1 if new_transcript and is_user_prompt(new_transcript[0]) else 0), transcript_len),
    )
    if event_records:
        write_undo(conn, session_id, saved.ledger_len, event_records, secrets)
    if pins is not None and tuple(pins) != saved.pins:
        write_pins(conn, session_id, pins)
    if cost_usd is not KEEP:
        conn.execute("UPDATE sessions SET cost_usd = ? WHERE id = ?", (cost_usd, session_id))
    conn.execute(
        """UPDATE sessions SET updated = ?, messages = ?, revision = revision + 1,
               title = COALESCE(?, title), model = COALESCE(?, model), tokens = COALESCE(?, tokens),
               context_messages = COALESCE(?, context_messages)
           WHERE id = ?""",
        (now, transcript_len, title, model, tokens, None if context is None else len(context), session_id),
    )
    return SavedState(
        revision=saved.revision + 1,
        transcript_len=transcript_len,
        ledger_len=saved.ledger_len + len(new_events),
        context=context_state,
        pins=saved.pins if pins is None else tuple(pins),
        next_mark=marks_after,
    )


def save_history(
    db: Database,
    session_id: str,
    history: HistorySnapshot,
    *,
    context: Sequence[ModelMessage] | None = None,
    title: str | None = None,
    model: str | None = None,
    tokens: int | None = None,
    cost_usd: float | None | KeepType = KEEP,
) -> None:
    """Save what `history` (a `session.history.HistorySnapshot`) holds that the store does not:
    the transcript messages and ledger rows after the ones saved (the store knows how many it
    holds), the context (`context` given: that one instead), the pins and the marks. One
    transaction, as `save_turn`: after a failure the next call writes the same rows again.
    A snapshot of another branch than the store's (a rewind, a branch switch) first moves the
    branches' rows (`store_branches.switch_rows`), in the same transaction: a crash leaves the
    session on one branch or the other, whole.
    """
    with db.lock:
        try:
            with db.transaction("save the session") as conn:
                if switch_rows(conn, session_id, history.branch, history.tree):
                    db.saved.pop(session_id, None)
                saved = saved_state(db, conn, session_id)
                entries = history.entries[saved.ledger_len :]
                db.saved[session_id] = write_rows(
                    db,
                    conn,
                    session_id,
                    saved,
                    new_transcript=history.transcript[saved.transcript_len : history.transcript_len],
                    context=history.context if context is None else context,
                    new_events=[entry.event for entry in entries],
                    event_positions=[entry.position for entry in entries],
                    event_records=[entry.record for entry in entries],
                    pins=history.pins,
                    title=title,
                    model=model,
                    tokens=tokens,
                    cost_usd=cost_usd,
                    marks=history.marks,
                )
        except BaseException:
            db.saved.pop(session_id, None)
            raise


def saved_figures(db: Database, session_id: str) -> tuple[int, int, tuple[int, ...]]:
    """What the store holds of a session: (transcript messages, ledger rows, pinned prompts).
    The one record of how much is saved: a session compares its history with it (`unsaved`)."""
    with db.guard("read the session") as conn:
        saved = saved_state(db, conn, session_id)
        return saved.transcript_len, saved.ledger_len, saved.pins


def append_ledger(
    conn: sqlite3.Connection,
    session_id: str,
    first_seq: int,
    events: Sequence[HistoryTrimmed],
    positions: Sequence[int] | None,
    now: float,
    secrets: tuple[str, ...],
    *,
    default_at: int,
) -> None:
    at = list(positions) if positions is not None else [default_at] * len(events)
    if len(at) != len(events):
        raise StoreError("save_turn: event_positions must match new_events")
    conn.executemany(
        "INSERT INTO ledger (session_id, seq, at_message, created, event) VALUES (?, ?, ?, ?, ?)",
        [
            (session_id, first_seq + i, pos, now, redact_text(json.dumps(ev.to_dict()), secrets))
            for i, (ev, pos) in enumerate(zip(events, at, strict=False))
        ],
    )


def saved_state(db: Database, conn: sqlite3.Connection, session_id: str) -> SavedState:
    """Our cached picture of the session, rebuilt from the database if another process wrote it."""
    row = conn.execute("SELECT revision FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        raise StoreError(f"no session with id {session_id}")
    cached = db.saved.get(session_id)
    if cached is not None and cached.revision == row[0]:
        return cached
    transcript_len = conn.execute(
        "SELECT COALESCE(MAX(seq) + 1, 0) FROM transcript WHERE session_id = ?", (session_id,)
    ).fetchone()[0]
    ledger_len = conn.execute(
        "SELECT COALESCE(MAX(seq) + 1, 0) FROM ledger WHERE session_id = ?", (session_id,)
    ).fetchone()[0]
    rows = conn.execute("SELECT ord, digest FROM context WHERE session_id = ? ORDER BY ord", (session_id,)).fetchall()
    return SavedState(
        revision=row[0],
        transcript_len=transcript_len,
        ledger_len=ledger_len,
        context=ContextState.from_rows([key for key, _d in rows], [bytes(d) for _k, d in rows]),
        pins=tuple(read_pins(conn, session_id)),
        next_mark=next_mark(conn, session_id),
    )


def save_context(
    conn: sqlite3.Connection,
    session_id: str,
    saved: SavedState,
    context: Sequence[Any],
    by_identity: dict[int, tuple[str, str, bytes]],
    secrets: tuple[str, ...],
    counted: list[tuple[bytes, Any]],
) -> ContextState:
    """Delete the context rows that left, insert the ones that arrived; return the new state.

    An inserted message equal to a transcript message is stored as a reference to it. Every
    message encoded here goes to `counted` (digest, message) for its token estimate.
    """

    def encode(message: Any) -> tuple[str, str, bytes]:
        encoded = by_identity.get(id(message)) or encode_messages([message], secrets)[0]
        counted.append((encoded[2], message))
        return encoded

    plan = plan_context_update(saved.context, context, encode)
    conn.executemany(
        "DELETE FROM context WHERE session_id = ? AND ord BETWEEN ? AND ?",
        [(session_id, low, high) for low, high in plan.delete_ranges],
    )
    rows = []
    for key, (_kind, body, digest) in plan.inserts:
        ref = conn.execute(
            "SELECT seq FROM transcript WHERE session_id = ? AND digest = ? ORDER BY seq DESC LIMIT 1",
            (session_id, digest),
        ).fetchone()
        rows.append((session_id, key, ref[0] if ref else None, digest, None if ref else body))
    conn.executemany("INSERT INTO context (session_id, ord, transcript_seq, digest, body) VALUES (?, ?, ?, ?, ?)", rows)
    return plan.state


def set_pin(db: Database, session_id: str, transcript_seq: int, pinned: bool) -> None:
    """Pin (or unpin) the turn whose user prompt is transcript message `transcript_seq`."""
    with db.lock, db.transaction("save the pin") as conn:
        write_pin(conn, session_id, transcript_seq, pinned)
        db.saved.pop(session_id, None)  # its pins changed: read them again
