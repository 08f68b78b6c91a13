"""The light read of a saved session (`SessionStore.load_tail`): its newest transcript rows as
parsed JSON, the whole transcript's counts (kept with the session row) and the newest ledger
events — with no pydantic-ai.

Decoding a whole transcript into pydantic-ai messages needs pydantic-ai itself (about a second to
import) plus a pass over every message; a resumed conversation can be on screen long before that.
Rows are `ModelMessagesTypeAdapter` JSON (`message_codec.py`), so the parsed dicts carry the
message field names (`kind`, `parts`, `part_kind`, `content`, `tool_name`, `tool_call_id`,
`args`). The full, validated load (`SessionStore.load`) stays the authority on whether a session
is intact.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.conversation_counts import ConversationCounts, stored_counts

if TYPE_CHECKING:
    from co_tui.session.saved_session import SessionMeta

Damaged = Callable[[str], Exception]
"""`damaged("what is wrong")` → the `StoreCorrupt` naming the session."""

FIRST_CHUNK = 64  # rows read first; each further read back doubles


@dataclass(frozen=True)
class SessionTail:
    """The newest part of a saved session, and the shape of the whole.

    `rows[i]` is transcript message `start + i` as parsed JSON; the rows run to the transcript's
    end. `messages` is the transcript's length and `counts` its turns and chat-log items
    (`conversation_counts.py`), from the session row. `ledger_positions[i]`: the transcript length
    when ledger entry `i` happened (where its banner goes), for every entry; `banners` are the
    (position, event) pairs of the entries at or after `start` — the only events parsed.
    `counted` says the counts were counted from rows (worth storing, `keep_counts`).
    """

    meta: SessionMeta
    start: int
    rows: list[dict[str, Any]]
    messages: int
    counts: ConversationCounts
    ledger_positions: list[int]
    banners: list[tuple[int, HistoryTrimmed]] = field(default_factory=list)
    counted: bool = False

    @property
    def cuts(self) -> int:
        """How many `history_trimmed` events the session's ledger holds."""
        return len(self.ledger_positions)


def checked_counts(
    conn: sqlite3.Connection, sid: str, damaged: Callable[[str], Exception]
) -> tuple[int, ConversationCounts, bool]:
    """The session's transcript length, its conversation counts and whether they had to be counted
    from rows (`stored_counts`), after checking the transcript has no gap. Raises `damaged(...)` for
    a missing message or a row that is not JSON."""
    count, last = conn.execute("SELECT count(*), max(seq) FROM transcript WHERE session_id = ?", (sid,)).fetchone()
    if count and last != count - 1:
        raise damaged("a transcript message is missing")
    try:
        counts, counted = stored_counts(conn, sid, count)
    except sqlite3.OperationalError as exc:
        if "JSON" not in str(exc):
            raise
        raise damaged(f"a transcript message cannot be decoded ({exc})") from None
    return count, counts, counted


def read_tail(
    conn: sqlite3.Connection,
    meta: SessionMeta,
    enough: Callable[[SessionTail], bool],
    damaged: Damaged,
    *,
    first_chunk: int = FIRST_CHUNK,
) -> SessionTail:
    """Read transcript rows backwards from the end, a chunk at a time (each twice the last), until
    `enough(tail)` says the rows so far suffice or the first message is reached; then parse the
    ledger events from `start` on. What it reads does not grow with the session beyond the ledger's
    positions (integers) and the rows `enough` asks for.

    Run inside one read transaction, so every figure comes from the same snapshot. Raises
    `damaged(...)` for a gap in the transcript, a row that is not JSON (or, in the rows read, not a
    JSON object), or a bad ledger row among those parsed.
    """
    sid = meta.id
    count, counts, counted = checked_counts(conn, sid, damaged)
    positions = [
        int(at) for (at,) in conn.execute("SELECT at_message FROM ledger WHERE session_id = ? ORDER BY seq", (sid,))
    ]
    rows: list[dict[str, Any]] = []
    start, size = count, first_chunk
    while True:
        lower = max(0, start - size)
        chunk = conn.execute(
            "SELECT seq, body FROM transcript WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq",
            (sid, lower, start),
        ).fetchall()
        rows = [_parse_row(seq, body, damaged) for seq, body in chunk] + rows
        start, size = lower, size * 2
        tail = SessionTail(meta, start, rows, count, counts, positions, counted=counted)
        if start == 0 or enough(tail):
            break
    first = next((i for i, at in enumerate(positions) if at >= start), len(positions))
    events, _ = read_ledger(conn, sid, damaged, first=first)
    return replace(tail, banners=list(zip(positions[first:], events, strict=False)))


def _parse_row(seq: int, body: Any, damaged: Damaged) -> dict[str, Any]:
    try:
        parsed = json.loads(body)
    except (TypeError, ValueError) as exc:
        raise damaged(f"transcript message {seq} cannot be decoded ({exc})") from None
    if not isinstance(parsed, dict):
        raise damaged(f"transcript message {seq} cannot be decoded (not a message)")
    return parsed


def read_ledger(
    conn: sqlite3.Connection, session_id: str, damaged: Damaged, *, first: int = 0
) -> tuple[list[HistoryTrimmed], list[int]]:
    """Every `history_trimmed` event of the session in order (from entry `first` on), with its
    transcript position. Raises `damaged("ledger entry N cannot be decoded (…)")` for a bad row."""
    ledger: list[HistoryTrimmed] = []
    positions: list[int] = []
    for seq, at, event in conn.execute(
        "SELECT seq, at_message, event FROM ledger WHERE session_id = ? AND seq >= ? ORDER BY seq",
        (session_id, first),
    ):
        try:
            ledger.append(HistoryTrimmed.from_dict(json.loads(event)))
        except (TypeError, ValueError, AttributeError) as exc:
            raise damaged(f"ledger entry {seq} cannot be decoded ({exc})") from None
        positions.append(int(at))
    return ledger, positions


def read_preview(conn: sqlite3.Connection, session_id: str) -> str:
    """One line that tells a session from others of the same title (the sessions picker): the
    newest user prompt when the session has two or more, else the start of the newest answer.
    Reads backwards from the end and stops at the second prompt, so a long session costs no more
    than a short one; tool results are never parsed. '' when there is nothing readable."""
    prompts: list[str] = []
    answer = ""
    rows = conn.execute(
        """SELECT kind, body FROM transcript
           WHERE session_id = ? AND (kind = 'response' OR instr(body, '"user-prompt"') > 0)
           ORDER BY seq DESC""",
        (session_id,),
    )
    for kind, body in rows:
        try:
            parts = json.loads(body).get("parts") or []
        except (TypeError, ValueError, AttributeError):
            continue  # the full load reports damage; a preview just skips it
        if kind == "response":
            text = " ".join(str(p.get("content") or "") for p in parts if p.get("part_kind") == "text")
            answer = answer or text
            continue
        prompt = next((p.get("content") for p in parts if p.get("part_kind") == "user-prompt"), None)
        if isinstance(prompt, str):
            prompts.append(prompt)
            if len(prompts) == 2:
                break
    line = prompts[0] if len(prompts) == 2 else answer or (prompts[0] if prompts else "")
    return " ".join(line.split())
