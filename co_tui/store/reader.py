"""Reading a session back: whole (`load`), lazily for a resume (the context and the newest rows now,
the rest when read), what can be read of a damaged one (`load_readable`), its newest rows as plain
JSON (`load_tail`, no pydantic-ai), and the failed summary's time. Damage is `StoreCorrupt` naming
the session; the session list flags it. Functions over a `Database`.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from co_tui.governance.tokens import ESTIMATOR_VERSION, prime_message_tokens
from co_tui.session.context_diff import ContextState
from co_tui.session.context_rows import decode_context
from co_tui.session.conversation_counts import ConversationCounts, keep_counts
from co_tui.session.message_codec import decode_bodies
from co_tui.session.saved_session import LoadedSession, SessionMeta
from co_tui.session.token_counts import prime_from_rows, read_counts
from co_tui.store.branch_rows import active_branch, read_marks, read_tree, storage_id
from co_tui.store.catalog import META_COLUMNS, meta_from_row
from co_tui.store.database import Database, SavedState
from co_tui.store.errors import StoreCorrupt, StoreError
from co_tui.store.steering_rows import read_pins, read_undo, undo_transcript_refs
from co_tui.store.tail import SessionTail, checked_counts, read_ledger, read_tail
from co_tui.text import one_line

if TYPE_CHECKING:
    from co_tui.governance.events import HistoryTrimmed

__all__ = ["DAMAGED_KEY", "LAZY_TAIL", "UNDO_ON_RESUME", "check", "load", "load_readable", "load_tail", "read_lazy"]

# A lazy resume keeps the undo data of this many newest cuts (docs/context-governance.md, "Undo a cut").
UNDO_ON_RESUME = 32
LAZY_TAIL = 64  # transcript messages a lazy load decodes up front: the newest screenful and more

DAMAGED_KEY = "co_tui_damaged"
"""The metadata key of a stand-in for a transcript row that cannot be decoded (its value: the error)."""


def load(db: Database, session_id: str, *, lazy: bool = False) -> LoadedSession:
    """Read one session back. Raises `StoreError` for an unknown id and `StoreCorrupt` (naming the
    session) when any of its rows cannot be decoded; other sessions are unaffected.

    `lazy` (resume): the context and the newest `LAZY_TAIL` transcript messages are decoded now;
    the transcript is a `LazyTranscript` that decodes the rest from this store when read, so
    time and memory do not grow with the session. Damage in rows not decoded yet is reported
    (`StoreCorrupt`) when they are read.
    """
    with db.guard("read the session") as conn:
        row = conn.execute(f"SELECT {META_COLUMNS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise StoreError(f"no session with id {session_id}")
        meta = meta_from_row(row)
        try:
            loaded, saved = read_lazy(db, conn, meta) if lazy else read_whole(db, conn, meta)
        except StoreCorrupt as exc:
            mark_damaged(conn, session_id, str(exc))
            raise
        if meta.damaged and reads_whole(db, conn, meta, lazy):
            mark_damaged(conn, session_id, None)  # a repaired session is listed as fine again
        db.saved[session_id] = saved
        return loaded


def load_readable(db: Database, session_id: str) -> tuple[LoadedSession, list[str]]:
    """`load` for an export, which gives what can be read rather than nothing: a session with
    damaged rows comes back with each transcript row that cannot be decoded replaced by a
    stand-in naming it (`DAMAGED_KEY` in its metadata), an empty context, and the problems,
    one line each (none: `load` succeeded). Raises `StoreError` for an unknown id."""
    try:
        return load(db, session_id), []
    except StoreCorrupt:
        pass
    with db.guard("read the session") as conn:
        row = conn.execute(f"SELECT {META_COLUMNS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise StoreError(f"no session with id {session_id}")
        meta = meta_from_row(row)
        last = conn.execute("SELECT MAX(seq) FROM transcript WHERE session_id = ?", (session_id,)).fetchone()[0]
        problems: list[str] = []
        transcript: list[Any] = []
        for seq in range(last + 1 if last is not None else 0):  # one row at a time: the damage stays local
            try:
                transcript.append(decode_rows(conn, meta, [seq])[seq])
            except StoreCorrupt as exc:
                problems.append(str(exc))
                transcript.append(damaged_stand_in(str(exc)))
        try:
            ledger, positions = read_ledger_memo(db, conn, session_id, lambda what: damaged_error(meta, what))
        except StoreCorrupt as exc:
            problems.append(str(exc))
            ledger, positions = [], []
    return LoadedSession(meta, transcript, [], ledger, positions), problems


def check(db: Database, session_id: str) -> None:
    """Read the session as a resume reads it (`load(lazy=True)`: the context, the newest
    messages, the ledger and its newest undo data), without decoding the rest: the sessions
    picker checks a session before switching to it. Raises `StoreError` for an unknown id,
    `StoreCorrupt` for damage it meets (the session is flagged as damaged, as `load` does)."""
    load(db, session_id, lazy=True)


def load_tail(db: Database, session_id: str, enough: Callable[[SessionTail], bool]) -> SessionTail:
    """The newest transcript rows of a session as parsed JSON, with its metadata, its counts and
    the ledger events among those rows, read without pydantic-ai (see `tail.py`): rows
    backwards from the end in growing chunks until `enough(tail)` or the first message. One
    snapshot; the only write is the counts of a session saved before they were kept.

    Raises `StoreError` for an unknown id and `StoreCorrupt` for damage it meets on the way
    (what it does not read, or cannot judge without decoding, is `load`'s to report).
    """
    with db.guard("read the session") as conn:
        conn.execute("BEGIN")  # a read transaction: every figure from the same snapshot
        try:
            row = conn.execute(f"SELECT {META_COLUMNS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                raise StoreError(f"no session with id {session_id}")
            meta = meta_from_row(row)
            tail = read_tail(conn, meta, enough, lambda what: damaged_error(meta, what))
        finally:
            conn.execute("COMMIT")
        if tail.counted:  # a session saved before counts were kept: counted once, from now on kept
            keep_counts(conn, session_id, tail.counts)
        return tail


def read_lazy(
    db: Database, conn: sqlite3.Connection, meta: SessionMeta, root: str | None = None
) -> tuple[LoadedSession, SavedState]:
    """`load(lazy=True)`: decode the context (with the transcript rows it points at) and the newest
    `LAZY_TAIL` transcript rows; the transcript is a `LazyTranscript` over the rest. `root`: the
    session whose branch `meta` keeps (`load_branch`); the transcript reads its branch's rows
    wherever they are then (a branch switch moves them)."""
    from co_tui.session.lazy_transcript import LazyTranscript

    sid = meta.id
    owner = root or sid

    def damaged(what: str) -> StoreCorrupt:
        return damaged_error(meta, what)

    conn.execute("BEGIN")  # one snapshot for every figure below
    try:
        revision, cost = conn.execute("SELECT revision, cost_usd FROM sessions WHERE id = ?", (sid,)).fetchone()
        count, counts, counted = checked_counts(conn, sid, damaged)
        ctx_rows = conn.execute(
            "SELECT ord, transcript_seq, digest, body FROM context WHERE session_id = ? ORDER BY ord", (sid,)
        ).fetchall()
        refs = {ref for _o, ref, _d, _b in ctx_rows if isinstance(ref, int) and 0 <= ref < count}
        known = decode_rows(conn, meta, sorted(refs | set(range(max(0, count - LAZY_TAIL), count))))
        context = decode_saved_context(
            ctx_rows,
            lambda ref: known.get(ref) if isinstance(ref, int) else None,
            damaged,
            lambda digests: read_counts(conn, sid, digests),
        )
        ledger, positions = read_ledger_memo(db, conn, sid, damaged)
        # Undo data of the newest cuts (older ones read as not undoable): the rows they point at
        # are decoded now, as the transcript's own objects (`known`).
        undo_refs = undo_transcript_refs(conn, sid, len(ledger), UNDO_ON_RESUME)
        missing = sorted(r for r in undo_refs if 0 <= r < count and r not in known)
        if missing:
            known.update(decode_rows(conn, meta, missing))
        rows_view: list[Any] = [None] * count
        for seq, message in known.items():
            rows_view[seq] = message
        records = read_undo(conn, sid, rows_view, len(ledger), damaged, newest=UNDO_ON_RESUME)
        pins = read_pins(conn, sid)
        marks = read_marks(conn, sid, damaged)
        active, tree = read_tree(conn, owner)
        branch = active if root is None else int(sid.rsplit(".b", 1)[1])
    finally:
        conn.execute("COMMIT")
    if counted and root is None:
        keep_counts(conn, sid, counts)

    def load_rows(start: int, stop: int) -> list[Any]:
        with db.guard("read the session") as conn:
            home = replace(meta, id=owner if active_branch(conn, owner) == branch else storage_id(owner, branch))
            try:
                rows = decode_rows(conn, home, list(range(start, stop)))
            except StoreCorrupt as exc:
                # Read later, from the inspector or an export: a damaged old row must not take the
                # screen down. It reads as a one-line notice in its place (never saved back: only
                # messages after the saved ones are), and the session list flags the session.
                mark_damaged(conn, sid, str(exc))
                rows = {}
                for seq in range(start, stop):
                    try:
                        rows.update(decode_rows(conn, home, [seq]))
                    except StoreCorrupt as one:
                        rows[seq] = damaged_stand_in(str(one))
        return [rows[seq] for seq in range(start, stop)]

    cost_known = cost is not None and isinstance(cost, (int, float)) and math.isfinite(cost) and cost >= 0
    # The saved cost covers the transcript and the ledger's summariser calls; the transcript keeps
    # its own share, since the session adds the (whole, loaded) ledger's again (`transcript_cost`).
    from co_tui.session.cost import ledger_cost

    cuts_cost = ledger_cost(ledger)
    transcript_share = max(0.0, float(cost) - cuts_cost) if cost_known and cuts_cost is not None else None
    transcript = LazyTranscript(load_rows, count, known, saved_cost=transcript_share)
    saved = SavedState(
        revision=revision,
        transcript_len=count,
        ledger_len=len(ledger),
        context=ContextState.from_rows([r[0] for r in ctx_rows], [bytes(r[2]) for r in ctx_rows], context),
        pins=tuple(pins),
        next_mark=marks[-1].position + 1 if marks else 0,
    )
    loaded = LoadedSession(meta, transcript, context, ledger, positions, records, pins, counts)
    loaded.marks, loaded.branch, loaded.tree = marks, branch, tree
    return loaded, saved


def read_ledger_memo(
    db: Database, conn: sqlite3.Connection, session_id: str, damaged: Callable[[str], Exception]
) -> tuple[list[HistoryTrimmed], list[int]]:
    """`read_ledger`, memoised for the newest session read while its ledger keeps the same rows
    (new lists each call; the events are frozen)."""
    rows, newest = conn.execute(
        "SELECT count(*), coalesce(max(seq), -1) FROM ledger WHERE session_id = ?", (session_id,)
    ).fetchone()
    key = (int(rows), int(newest))
    memo = db.ledger_memo
    if memo is not None and memo[0] == session_id and memo[1] == key:
        return list(memo[2]), list(memo[3])
    ledger, positions = read_ledger(conn, session_id, damaged)
    db.ledger_memo = (session_id, key, tuple(ledger), tuple(positions))
    return ledger, positions


def decode_rows(conn: sqlite3.Connection, meta: SessionMeta, seqs: list[int]) -> dict[int, Any]:
    """Transcript messages `seqs` decoded (token estimates primed from their saved counts)."""
    out: dict[int, Any] = {}
    for at in range(0, len(seqs), 500):  # SQLite's bound-parameter limit
        batch = seqs[at : at + 500]
        rows = conn.execute(
            f"""SELECT t.seq, t.body, t.digest, c.tokens FROM transcript AS t
                LEFT JOIN token_counts AS c
                  ON c.session_id = t.session_id AND c.digest = t.digest AND c.estimator = ?
                WHERE t.session_id = ? AND t.seq IN ({",".join("?" * len(batch))}) ORDER BY t.seq""",
            (ESTIMATOR_VERSION, meta.id, *batch),
        ).fetchall()
        if len(rows) != len(batch):
            missing = sorted(set(batch) - {r[0] for r in rows})[0]
            raise damaged_error(meta, f"transcript message {missing} is missing")
        messages = decode_bodies(
            [r[1] for r in rows], [f"transcript message {r[0]}" for r in rows], lambda what: damaged_error(meta, what)
        )
        prime_message_tokens(messages, [r[3] for r in rows])
        out.update(zip((r[0] for r in rows), messages, strict=False))
    return out


def read_whole(db: Database, conn: sqlite3.Connection, meta: SessionMeta) -> tuple[LoadedSession, SavedState]:
    sid = meta.id

    def damaged(what: str) -> StoreCorrupt:
        return damaged_error(meta, what)

    revision = conn.execute("SELECT revision FROM sessions WHERE id = ?", (sid,)).fetchone()[0]
    rows = conn.execute("SELECT seq, body, digest FROM transcript WHERE session_id = ? ORDER BY seq", (sid,)).fetchall()
    for expected, (seq, _body, _digest) in enumerate(rows):
        if seq != expected:
            raise damaged(f"transcript message {expected} is missing")
    transcript = decode_bodies([r[1] for r in rows], [f"transcript message {r[0]}" for r in rows], damaged)
    counts = read_counts(conn, sid)
    prime_from_rows(transcript, [r[2] for r in rows], counts)

    ctx_rows = conn.execute(
        "SELECT ord, transcript_seq, digest, body FROM context WHERE session_id = ? ORDER BY ord", (sid,)
    ).fetchall()
    context = decode_saved_context(
        ctx_rows,
        lambda ref: transcript[ref] if isinstance(ref, int) and 0 <= ref < len(transcript) else None,
        damaged,
        lambda _digests: counts,
    )
    ledger, positions = read_ledger_memo(db, conn, sid, damaged)
    records = read_undo(conn, sid, transcript, len(ledger), damaged)

    pins = read_pins(conn, sid)
    marks = read_marks(conn, sid, damaged)
    saved = SavedState(
        revision=revision,
        transcript_len=len(transcript),
        ledger_len=len(ledger),
        context=ContextState.from_rows([r[0] for r in ctx_rows], [bytes(r[2]) for r in ctx_rows], context),
        pins=tuple(pins),
        next_mark=marks[-1].position + 1 if marks else 0,
    )
    loaded = LoadedSession(meta, transcript, context, ledger, positions, records, pins)
    loaded.counts = ConversationCounts().add(transcript)
    loaded.marks = marks
    loaded.branch, loaded.tree = read_tree(conn, sid)
    return loaded, saved


def reads_whole(db: Database, conn: sqlite3.Connection, meta: SessionMeta, lazy: bool) -> bool:
    """Whether every row of a session flagged damaged reads back now: a full load has just read
    them; after a lazy one (a resume, the picker's check) they are read here, for flagged
    sessions only, so a repaired row does not leave the session flagged for good."""
    if not lazy:
        return True
    try:
        read_whole(db, conn, meta)
    except StoreCorrupt:
        return False
    return True


def mark_damaged(conn: sqlite3.Connection, session_id: str, reason: str | None) -> None:
    # Best effort, so the list can flag it (None: clear the flag); a read-only or locked database
    # just skips this.
    try:
        conn.execute("UPDATE sessions SET damaged = ? WHERE id = ?", (reason, session_id))
    except sqlite3.Error:
        pass


def last_summary_failure(db: Database, session_id: str) -> float | None:
    """When (epoch seconds) the session's newest failed summary happened — its newest
    `static_marker` ledger entry — or None. The summariser cooldown outlives the process with it."""
    with db.guard("read the session") as conn:
        # Only rows that name the strategy are parsed: a resume must not parse a long ledger.
        rows = conn.execute(
            """SELECT created, event FROM ledger
               WHERE session_id = ? AND instr(event, 'static_marker') > 0 ORDER BY seq DESC""",
            (session_id,),
        )
        for created, event in rows:
            try:
                if json.loads(event).get("strategy") == "static_marker":
                    return float(created)
            except (ValueError, TypeError, AttributeError):
                continue
    return None


def decode_saved_context(
    rows: Sequence[Any],
    referenced: Callable[[Any], Any | None],
    damaged: Callable[[str], Exception],
    counts_of: Callable[[list[bytes]], dict[bytes, int]],
) -> list[Any]:
    """The context from its rows (`ord, transcript_seq, digest, body`), by the one decoder of stored
    contexts (`context_rows.decode_context`)."""
    return decode_context(
        [(ref, digest, body) for _ord, ref, digest, body in rows],
        referenced=referenced,
        damaged=damaged,
        label=lambda i: f"context message {i}",
        missing=lambda i: f"context message {i} points at a missing transcript message",
        counts_of=counts_of,
    )


def damaged_stand_in(error: str) -> Any:
    """What a lazily read transcript (or an export) shows for a row that cannot be decoded: the
    error, as a request marked with `DAMAGED_KEY`."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    return ModelRequest(parts=[UserPromptPart(f"[{error}]")], metadata={DAMAGED_KEY: error})


def damaged_error(meta: SessionMeta, what: str) -> StoreCorrupt:
    """The one-line error for a damaged session, naming it (and its title)."""
    title = f" ({meta.title})" if meta.title else ""
    return StoreCorrupt(one_line(f"session {meta.id}{title} is damaged: {what}", 200))
