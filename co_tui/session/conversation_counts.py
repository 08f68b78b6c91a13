"""How many turns and chat-log items a saved conversation holds, kept with the session row so a
resume can say "N turns · M messages" and count the entries it does not show without reading
every transcript row (docs/architecture.md, Sessions).

The figures follow the chat log's rules (`co_tui.tui.transcript_view.transcript_items`, which the
tests hold this module to): every user prompt is an item (and a turn), every tool call is an item,
and a run of assistant text is one item — text continues the previous item when that item is
assistant text. So the counts of a transcript are a fold over its messages whose only state is
whether the newest item is an open answer, and a save adds its new messages to the stored figures.

Messages are pydantic-ai objects or the store's JSON dicts (`ModelMessagesTypeAdapter` field names);
nothing here imports pydantic-ai.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any


def field_of(obj: Any, name: str) -> Any:
    """A field of a message or part: a key of its stored JSON, or an attribute of the object."""
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


@dataclass(frozen=True)
class ConversationCounts:
    """Counts over the first `messages` transcript messages: `turns` (user prompts), `items`
    (chat-log items: prompts, answers, tool calls) and `open_answer` (the newest item is assistant
    text, which the next text part continues rather than starting a new item)."""

    messages: int = 0
    turns: int = 0
    items: int = 0
    open_answer: bool = False
    # The subagents' contexts at their end, summed (docs/subagents.md): what they held apart from
    # the main context, for the session list. 0 in figures stored before subagents.
    subagent_tokens: int = 0

    def add(self, messages: Iterable[Any]) -> ConversationCounts:
        """These counts with `messages` (the transcript's next ones) folded in; a new value."""
        count, turns, items, open_answer = self.messages, self.turns, self.items, self.open_answer
        children = self.subagent_tokens
        for message in messages:
            count += 1
            kind = field_of(message, "kind")
            for part in field_of(message, "parts") or ():
                part_kind = field_of(part, "part_kind")
                if kind == "request" and part_kind == "tool-return":
                    children += _child_context(field_of(part, "metadata"))
                elif kind == "request" and part_kind == "user-prompt":
                    turns, items, open_answer = turns + 1, items + 1, False
                elif kind == "response" and part_kind == "tool-call":
                    items, open_answer = items + 1, False
                elif kind == "response" and part_kind == "text":
                    content = field_of(part, "content")
                    if isinstance(content, str) and content.strip() and not open_answer:
                        items, open_answer = items + 1, True
        return replace(
            self, messages=count, turns=turns, items=items, open_answer=open_answer, subagent_tokens=children
        )

    def to_json(self) -> str:
        """The figures as the store keeps them: `[messages, turns, items, open_answer]`, then
        `subagent_tokens` when there is any (see `from_json`)."""
        figures = [self.messages, self.turns, self.items, int(self.open_answer)]
        return json.dumps([*figures, self.subagent_tokens] if self.subagent_tokens else figures)

    @classmethod
    def from_json(cls, text: Any) -> ConversationCounts | None:
        """The stored figures, or None when absent or unreadable (they are counted again)."""
        try:
            messages, turns, items, open_answer, *more = json.loads(text)
            children = int(more[0]) if more else 0
            return cls(int(messages), int(turns), int(items), bool(open_answer), children)
        except (TypeError, ValueError, IndexError):
            return None


def _child_context(metadata: Any) -> int:
    """A `delegate` result's child's context at its end (`child_record.SUBAGENT_KEY`), else 0."""
    record = metadata.get("co_tui_subagent") if isinstance(metadata, dict) else None
    finished = record.get("finished") if isinstance(record, dict) else None
    tokens = finished.get("context_tokens") if isinstance(finished, dict) else 0
    return tokens if isinstance(tokens, int) and tokens > 0 else 0


def read_outline(conn: sqlite3.Connection, session_id: str, since: int = 0) -> Iterator[dict[str, Any]]:
    """Transcript messages `since`… reduced to what counting needs, in order: every response and
    every request holding a user prompt, as `{"kind", "parts": [{"part_kind", "content"}]}` with the
    content of text parts only. SQLite's JSON functions pick the fields; request rows are parsed only
    when a substring test finds a user prompt in them, so tool results (most of the bytes) never
    are. Raises `sqlite3.OperationalError` ("malformed JSON") for a row that is not JSON."""
    message: dict[str, Any] | None = None
    last = None
    for seq, kind, part_kind, text in conn.execute(
        """SELECT t.seq, t.kind, json_extract(p.value, '$.part_kind'),
                  CASE json_extract(p.value, '$.part_kind') WHEN 'text' THEN json_extract(p.value, '$.content') END
           FROM transcript AS t, json_each(t.body, '$.parts') AS p
           WHERE t.session_id = ? AND t.seq >= ? AND (t.kind = 'response' OR instr(t.body, '"user-prompt"') > 0)
           ORDER BY t.seq, p.key""",
        (session_id, since),
    ):
        if seq != last:
            if message is not None:
                yield message
            message = {"kind": kind, "parts": []}
            last = seq
        assert message is not None
        message["parts"].append({"part_kind": part_kind, "content": text})
    if message is not None:
        yield message


def stored_counts(conn: sqlite3.Connection, session_id: str, messages: int) -> tuple[ConversationCounts, bool]:
    """The counts over the session's `messages` transcript messages, and whether they had to be
    counted from rows: the stored figures, with the messages they do not cover yet (a session saved
    before they were kept) counted from the rows — then worth `keep_counts`. Raises
    `sqlite3.OperationalError` for a row that is not JSON."""
    row = conn.execute("SELECT conversation_counts FROM sessions WHERE id = ?", (session_id,)).fetchone()
    counts = ConversationCounts.from_json(row[0]) if row is not None else None
    if counts is not None and counts.messages == messages:
        return counts, False
    if counts is None or counts.messages > messages:
        counts = ConversationCounts()
    return counts.add(_outline_padded(conn, session_id, counts.messages, messages)), True


def keep_counts(conn: sqlite3.Connection, session_id: str, counts: ConversationCounts) -> None:
    """Store counts `stored_counts` had to count, unless the stored ones already cover as many
    messages (a save may have come in between). Best effort: a read-only or busy database skips it."""
    try:
        conn.execute(
            """UPDATE sessions SET conversation_counts = ?
               WHERE id = ? AND coalesce(json_extract(conversation_counts, '$[0]'), -1) < ?""",
            (counts.to_json(), session_id, counts.messages),
        )
    except (sqlite3.Error, ValueError):
        pass  # counted again next time


def _outline_padded(conn: sqlite3.Connection, session_id: str, since: int, until: int) -> Iterator[Any]:
    """`read_outline` from `since` up to `until`, with an empty message for every row it skips (a
    request without a prompt), so the fold counts every transcript message."""
    at = since
    for message in read_outline(conn, session_id, since):
        yield message
        at += 1
    yield from ({} for _ in range(at, until))


def record_counts(conn: sqlite3.Connection, session_id: str, before: int, new_messages: Iterable[Any]) -> None:
    """(Inside a save's transaction.) Fold a turn's new messages into the stored counts when those
    cover exactly the `before` messages saved until now; else leave them to
    `stored_counts`."""
    row = conn.execute("SELECT conversation_counts FROM sessions WHERE id = ?", (session_id,)).fetchone()
    counts = ConversationCounts.from_json(row[0]) if row is not None else None
    if counts is None and before == 0:
        counts = ConversationCounts()
    if counts is None or counts.messages != before:
        return
    conn.execute(
        "UPDATE sessions SET conversation_counts = ? WHERE id = ?",
        (counts.add(new_messages).to_json(), session_id),
    )
