"""A session's turns and chat-log items, kept with its row (`conversation_counts.py`): the chat
log's own counts (`transcript_items`) for real transcripts, kept by every save, and counted once
from the rows for a session saved before they were kept (an older database)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from governance.corpus import load_transcript, transcript_files
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, ModelResponse, TextPart, UserPromptPart
from support.builders import saved_tool_turn

from co_tui.session import migrations
from co_tui.session.conversation_counts import ConversationCounts
from co_tui.store.session_store import SessionStore
from co_tui.tui.transcript_view import transcript_items

FILES = transcript_files()


def _expected(messages: list) -> tuple[int, int]:
    items = transcript_items(messages)
    return sum(1 for item in items if item.kind == "user"), len(items)


def _awkward() -> list:
    """Answers split over responses (one item), empty text (none), two prompts in one request."""
    return [
        ModelRequest(parts=[UserPromptPart("one"), UserPromptPart("two")]),
        ModelResponse(parts=[TextPart("Part one, ")]),
        ModelResponse(parts=[TextPart("   "), TextPart("part two.")]),
        *saved_tool_turn(1),
        ModelResponse(parts=[TextPart("")]),
        ModelRequest(parts=[UserPromptPart("three")]),
    ]


@pytest.mark.skipif(not FILES, reason="the shared corpus is absent")
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem[:40])
def test_the_counts_are_the_chat_logs_in_any_split(path: Path) -> None:
    messages = load_transcript(path)
    rows = json.loads(ModelMessagesTypeAdapter.dump_json(messages))
    whole = ConversationCounts().add(messages)
    assert (whole.messages, whole.turns, whole.items) == (len(messages), *_expected(messages))
    assert ConversationCounts().add(rows) == whole  # the store's JSON rows count the same
    for cut in (1, len(messages) // 3, len(messages) - 1):
        assert ConversationCounts().add(messages[:cut]).add(rows[cut:]) == whole


def test_the_awkward_shapes_count_as_the_chat_log_shows_them() -> None:
    messages = _awkward()
    counts = ConversationCounts().add(messages)
    assert (counts.turns, counts.items) == _expected(messages) == (4, 8)
    assert ConversationCounts.from_json(counts.to_json()) == counts
    assert ConversationCounts.from_json("[1, 2") is None and ConversationCounts.from_json(None) is None


def _stored(store: SessionStore, sid: str) -> ConversationCounts | None:
    row = store.conn.execute("SELECT conversation_counts FROM sessions WHERE id = ?", (sid,)).fetchone()
    return ConversationCounts.from_json(row[0])


def test_every_save_keeps_them(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="offline", workspace=tmp_path)
    saved: list = []
    for turn in ([*_awkward()], saved_tool_turn(2), saved_tool_turn(3)):
        store.save_turn(sid, new_transcript=turn, context=turn, new_events=[])
        saved += turn
        assert _stored(store, sid) == ConversationCounts().add(saved)
    loaded = store.load(sid, lazy=True)
    assert loaded.counts == ConversationCounts().add(saved)


def _as_schema_4(path: Path) -> None:
    """What the previous co-tui left: no counts column (schema 4)."""
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE sessions DROP COLUMN conversation_counts")
    conn.execute("DROP TABLE file_checkpoints")  # schema 6's, after it
    for table in ("branches", "marks", "mark_bodies"):  # schema 7's
        conn.execute(f"DROP TABLE {table}")
    conn.execute("DROP INDEX sessions_by_branch_of")
    for column in ("branch", "branch_of", "forked_from", "forked_at"):
        conn.execute(f"ALTER TABLE sessions DROP COLUMN {column}")
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    conn.close()


def test_an_older_database_is_counted_once_then_kept(data_dir: Path, tmp_path: Path) -> None:
    turns = [saved_tool_turn(i) for i in range(30)]
    with SessionStore.open(data_dir) as store:
        sid = store.create_session(model="offline", workspace=tmp_path, title="old")
        for turn in turns:
            store.save_turn(sid, new_transcript=turn, context=turn, new_events=[])
    _as_schema_4(data_dir / "sessions.db")
    messages = [m for turn in turns for m in turn]
    expected = ConversationCounts().add(messages)
    assert (expected.turns, expected.items) == (30, 120)
    with SessionStore.open(data_dir) as store:  # migrated: the column is there, NULL
        assert migrations.schema_version(store.conn) == migrations.SCHEMA_VERSION
        assert _stored(store, sid) is None
        tail = store.load_tail(sid, lambda tail: True)
        assert tail.counts == expected and tail.counted
        assert _stored(store, sid) == expected  # written back: the next resume reads no rows for them
        assert store.load_tail(sid, lambda tail: True).counted is False
        store.save_turn(sid, new_transcript=saved_tool_turn(30), context=saved_tool_turn(30), new_events=[])
        assert _stored(store, sid) == expected.add(saved_tool_turn(30))
        assert store.load(sid, lazy=True).counts == expected.add(saved_tool_turn(30))


def test_a_read_only_store_counts_without_writing(data_dir: Path, tmp_path: Path) -> None:
    with SessionStore.open(data_dir) as store:
        sid = store.create_session(model="offline", workspace=tmp_path)
        store.save_turn(sid, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[])
        store.conn.execute("UPDATE sessions SET conversation_counts = NULL")
    with SessionStore.open_read_only(data_dir) as store:
        assert store.load_tail(sid, lambda tail: True).counts == ConversationCounts().add(saved_tool_turn(0))
        assert _stored(store, sid) is None
