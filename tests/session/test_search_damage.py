"""A damaged search index never blocks a save (issue 40, item 11): FTS5's own check finds the
damage that `PRAGMA integrity_check` calls "ok", the index is rebuilt from the transcript, one line
says so, and the save goes through. Damage is done to a real SQLite file's FTS5 shadow rows, as a
bad disk or a stray write would: a leaf block zeroed, the structure record emptied (every insert
then fails, "constraint failed"), or the structure record garbled (the table cannot be opened)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support.builders import chat_turn

from co_tui.session.opening import resume_session
from co_tui.store.search_index import REBUILT_LINE, damaged_indexes
from co_tui.store.session_store import SessionStore

DAMAGE = {
    "leaf zeroed": "UPDATE transcript_search_data SET block = zeroblob(length(block)) WHERE id > 10",
    "structure emptied": "UPDATE transcript_search_data SET block = zeroblob(length(block)) WHERE id = 10",
    "structure garbled": "UPDATE transcript_search_data SET block = x'" + "ff" * 56 + "' WHERE id = 10",
    "title index garbled": "UPDATE title_search_data SET block = x'" + "ff" * 40 + "' WHERE id = 10",
}


def _saved(data_dir: Path, workspace: Path) -> str:
    with SessionStore.open(data_dir) as store:
        sid = store.create_session(model="m", workspace=workspace, title="parser work")
        messages = [m for i in range(20) for m in chat_turn(f"prompt {i} about the tokenizer", f"answer {i}")]
        store.save_turn(sid, new_transcript=messages, context=messages, new_events=[])
    return sid


def _damage(db: Path, statement: str) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(statement)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]  # blind to it
    conn.close()


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_save_rebuilds_a_damaged_index_and_says_so_once(data_dir: Path, tmp_path: Path, damage: str) -> None:
    sid = _saved(data_dir, tmp_path)
    _damage(data_dir / "sessions.db", DAMAGE[damage])
    with SessionStore.open(data_dir) as store:
        more = chat_turn("a newer prompt about lexers", "a newer answer")
        store.save_turn(sid, new_transcript=more, context=more, new_events=[], title="parser and lexer work")
        assert len(store.load(sid).transcript) == 42
        new_session = store.create_session(model="m", workspace=tmp_path, title="another")
        notices = store.take_notices()  # a leaf's damage stops no insert: the search finds it
        for word in ("tokenizer", "lexers", "lexer"):
            assert [hit.meta.id for hit in store.search(word)] == [sid], word
        assert [hit.meta.id for hit in store.search("another")] == [new_session]
        assert notices + store.take_notices() == [REBUILT_LINE]
        assert store.take_notices() == []
    with sqlite3.connect(data_dir / "sessions.db") as conn:
        assert damaged_indexes(conn) == []
    conn.close()


def test_a_leaf_damage_is_found_by_the_index_check(data_dir: Path, tmp_path: Path) -> None:
    """A zeroed leaf does not stop an insert, but FTS5's 'integrity-check' sees it."""
    _saved(data_dir, tmp_path)
    _damage(data_dir / "sessions.db", DAMAGE["leaf zeroed"])
    with sqlite3.connect(data_dir / "sessions.db") as conn:
        assert damaged_indexes(conn) == ["transcript_search"]
    conn.close()


def test_a_failure_that_is_not_the_index_is_not_retried(data_dir: Path, tmp_path: Path) -> None:
    from co_tui.store.errors import StoreError

    with SessionStore.open(data_dir) as store, pytest.raises(StoreError, match="no session"):
        store.save_turn("nope", new_transcript=chat_turn("a", "b"), context=None, new_events=[])
        assert store.take_notices() == []


async def test_a_turn_saved_over_a_damaged_index_says_so_in_one_notice(data_dir: Path, tmp_path: Path) -> None:
    from support.turns import of_type, run_turn

    from co_tui.config import load_settings
    from co_tui.session.chat import ChatSession

    with SessionStore.open(data_dir) as store:
        first = ChatSession(load_settings(), workspace=tmp_path, store=store)
        await run_turn(first, "hello there")
    _damage(data_dir / "sessions.db", DAMAGE["structure garbled"])
    with SessionStore.open(data_dir) as store:
        chat = resume_session(load_settings(), workspace=tmp_path, store=store, session_id=first.id)
        events = await run_turn(chat, "a second prompt")
        assert [e.message for e in of_type(events, "notice")] == [REBUILT_LINE]
        assert not chat.unsaved()
        events = await run_turn(chat, "a third prompt")
        assert of_type(events, "notice") == []
        assert [hit.meta.id for hit in store.search("second prompt")] == [first.id]
