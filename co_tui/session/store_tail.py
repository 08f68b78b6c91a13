"""The light read of a saved session (`SessionStore.load_tail`): its newest transcript rows as
parsed JSON, an outline of the whole transcript, and the ledger — with no pydantic-ai.

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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed

if TYPE_CHECKING:
    from co_tui.session.store import SessionMeta

Damaged = Callable[[str], Exception]
"""`damaged("what is wrong")` → the `StoreCorrupt` naming the session."""

FIRST_CHUNK = 64  # rows read first; each further read back doubles


@dataclass(frozen=True)
class SessionTail:
    """The newest part of a saved session, and the shape of the whole.

    `rows[i]` is transcript message `start + i` as parsed JSON; the rows run to the transcript's
    end. `messages` is the transcript's length. `outline` is the whole transcript reduced to what
    counting its turns and answers needs: in order, every response and every request holding a
    user prompt, as `{"kind", "parts": [{"part_kind", "content"}]}` with the content of text parts
    only (the rest, tool results above all, is left out: it is most of a transcript's bytes).
    `ledger[i]` happened when the transcript was `ledger_positions[i]` messages long (where its
    banner goes), as in `LoadedSession`.
    """

    meta: SessionMeta
    start: int
    rows: list[dict[str, Any]]
    messages: int
    outline: list[dict[str, Any]]
    ledger: list[HistoryTrimmed]
    ledger_positions: list[int]


def read_tail(
    conn: sqlite3.Connection,
    meta: SessionMeta,
    enough: Callable[[SessionTail], bool],
    damaged: Damaged,
    *,
    first_chunk: int = FIRST_CHUNK,
    ledger: Callable[[], tuple[list[HistoryTrimmed], list[int]]] | None = None,
) -> SessionTail:
    """Read transcript rows backwards from the end, a chunk at a time (each twice the last), until
    `enough(tail)` says the rows so far suffice or the first message is reached.

    Run inside one read transaction, so every figure comes from the same snapshot. Raises
    `damaged(...)` for a gap in the transcript, a row that is not JSON (or, in the rows read, not a
    JSON object), or a bad ledger row. `ledger`: how to read the ledger (default `read_ledger`).
    """
    sid = meta.id
    count, last = conn.execute("SELECT count(*), max(seq) FROM transcript WHERE session_id = ?", (sid,)).fetchone()
    if count and last != count - 1:
        raise damaged("a transcript message is missing")
    try:
        outline = _read_outline(conn, sid)
    except sqlite3.OperationalError as exc:
        if "JSON" not in str(exc):
            raise
        raise damaged(f"a transcript message cannot be decoded ({exc})") from None
    events, positions = ledger() if ledger is not None else read_ledger(conn, sid, damaged)
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
        tail = SessionTail(meta, start, rows, count, outline, events, positions)
        if start == 0 or enough(tail):
            return tail


def _read_outline(conn: sqlite3.Connection, session_id: str) -> list[dict[str, Any]]:
    """`SessionTail.outline`. SQLite's JSON functions pick the fields, and request rows are parsed
    only when a substring test finds a user prompt in them: tool results are never parsed."""
    outline: list[dict[str, Any]] = []
    last = None
    for seq, kind, part_kind, text in conn.execute(
        """SELECT t.seq, t.kind, json_extract(p.value, '$.part_kind'),
                  CASE json_extract(p.value, '$.part_kind') WHEN 'text' THEN json_extract(p.value, '$.content') END
           FROM transcript AS t, json_each(t.body, '$.parts') AS p
           WHERE t.session_id = ? AND (t.kind = 'response' OR instr(t.body, '"user-prompt"') > 0)
           ORDER BY t.seq, p.key""",
        (session_id,),
    ):
        if seq != last:
            outline.append({"kind": kind, "parts": []})
            last = seq
        outline[-1]["parts"].append({"part_kind": part_kind, "content": text})
    return outline


def _parse_row(seq: int, body: Any, damaged: Damaged) -> dict[str, Any]:
    try:
        parsed = json.loads(body)
    except (TypeError, ValueError) as exc:
        raise damaged(f"transcript message {seq} cannot be decoded ({exc})") from None
    if not isinstance(parsed, dict):
        raise damaged(f"transcript message {seq} cannot be decoded (not a message)")
    return parsed


def read_ledger(conn: sqlite3.Connection, session_id: str, damaged: Damaged) -> tuple[list[HistoryTrimmed], list[int]]:
    """Every `history_trimmed` event of the session in order, with its transcript position.
    Raises `damaged("ledger entry N cannot be decoded (…)")` for a bad row."""
    ledger: list[HistoryTrimmed] = []
    positions: list[int] = []
    for seq, at, event in conn.execute(
        "SELECT seq, at_message, event FROM ledger WHERE session_id = ? ORDER BY seq", (session_id,)
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
