"""Resume decodes what it shows: the context and the newest rows now, the rest of the transcript when read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessagesTypeAdapter
from support.builders import saved_tool_turn

from co_tui.session.lazy_transcript import CHUNK, LazyTranscript, transcript_cost
from co_tui.session.opening import resume_session
from co_tui.store.reader import LAZY_TAIL
from co_tui.store.session_store import SessionStore

TURNS = 200  # 800 messages: more than the tail and a few chunks


def _long_session(store: SessionStore) -> tuple[str, list]:
    sid = store.create_session(model="offline", workspace=Path("."))
    transcript: list = []
    for i in range(TURNS):
        turn = saved_tool_turn(i)
        transcript += turn
        store.save_turn(sid, new_transcript=turn, context=transcript[-8:], new_events=[], cost_usd=0.0)
    return sid, transcript


def test_a_lazy_load_decodes_the_context_and_the_newest_rows_only(data_dir: Path, store: SessionStore) -> None:
    sid, transcript = _long_session(store)
    with SessionStore.open(data_dir) as other:
        loaded = other.load(sid, lazy=True)
    lazy = loaded.transcript
    assert isinstance(lazy, LazyTranscript)
    assert len(lazy) == len(transcript) and lazy.decoded == LAZY_TAIL
    assert loaded.context == transcript[-8:]
    assert all(c is lazy[len(transcript) - 8 + i] for i, c in enumerate(loaded.context))  # one object each
    assert lazy.decoded == LAZY_TAIL  # the context's messages are among the newest rows


def test_reading_old_messages_decodes_them_in_chunks_and_equals_the_full_load(
    data_dir: Path, store: SessionStore
) -> None:
    sid, transcript = _long_session(store)
    with SessionStore.open(data_dir) as other:
        lazy = other.load(sid, lazy=True).transcript
        assert lazy[3] == transcript[3]
        assert lazy.decoded == LAZY_TAIL + CHUNK
        assert lazy[10:20] == transcript[10:20] and lazy[-1] == transcript[-1]
        full = other.load(sid).transcript
        dump = ModelMessagesTypeAdapter.dump_json
        assert dump(list(lazy)) == dump(list(full)) == dump(transcript)
        assert lazy == full and lazy.decoded == len(transcript)


def test_a_resumed_lazy_transcript_grows_and_its_cost_comes_from_the_store(data_dir: Path, store: SessionStore) -> None:
    sid, transcript = _long_session(store)
    with SessionStore.open(data_dir) as other:
        lazy = other.load(sid, lazy=True).transcript
        assert isinstance(lazy, LazyTranscript)
        assert transcript_cost(lazy) == 0.0 and lazy.decoded == LAZY_TAIL  # the saved figure, nothing decoded
        lazy.extend(saved_tool_turn(TURNS))
        assert len(lazy) == len(transcript) + 4 and lazy[-4:] == saved_tool_turn(TURNS)
        # The new turn's responses are unpriced (tokens from a model genai-prices does not know).
        assert transcript_cost(lazy) is None and lazy.decoded == LAZY_TAIL
        lazy.saved_cost = None  # unknown in the store: unknown still, and nothing decoded to say so
        assert transcript_cost(lazy[-4:]) is None and transcript_cost(lazy) is None and lazy.decoded == LAZY_TAIL


def test_a_damaged_old_row_read_later_shows_as_its_error(data_dir: Path, store: SessionStore) -> None:
    sid, transcript = _long_session(store)
    conn = sqlite3.connect(data_dir / "sessions.db")
    conn.execute('UPDATE transcript SET body = \'{"kind": "nonsense"}\' WHERE session_id = ? AND seq = 5', (sid,))
    conn.commit()
    conn.close()
    with SessionStore.open(data_dir) as other:
        lazy = other.load(sid, lazy=True).transcript  # the damage is not in what a resume decodes
        assert lazy[4] == transcript[4] and lazy[6] == transcript[6]
        [part] = lazy[5].parts
        assert "transcript message 5 cannot be decoded" in part.content and "\n" not in part.content
        assert other.list_sessions()[0].damaged


async def test_a_resumed_chat_session_reads_its_meter_and_cost_without_decoding_old_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from co_tui.config import load_settings
    from co_tui.session.chat import ChatSession
    from co_tui.store import reader as store_module

    # A cut's undo data points at the context before it, and a resume decodes those rows for the
    # newest cuts (`UNDO_ON_RESUME`, tested with undo); this test is about the meter and the cost.
    monkeypatch.setattr(store_module, "UNDO_ON_RESUME", 0)
    settings = load_settings(max_history_messages=40)  # message-count cuts keep the old rows out of the context
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(settings, workspace=tmp_path, store=store)
    while len(session.transcript) <= LAZY_TAIL + 10:
        [_ async for _ in session.run_turn(f"hello number {len(session.transcript)}")]
    reading = session.meter_reading()
    reopened = SessionStore.open(tmp_path / "data")
    resumed = resume_session(settings, workspace=tmp_path, store=reopened, session_id=session.id)
    assert isinstance(resumed.transcript, LazyTranscript)
    decoded = resumed.transcript.decoded  # the newest rows and the context's
    assert decoded < len(resumed.transcript)
    again = resumed.meter_reading()
    assert (again.cost_usd, again.context_tokens, again.messages) == (
        reading.cost_usd,
        reading.context_tokens,
        reading.messages,
    )
    assert again.cost_usd == 0.0  # the offline model is free, and the saved figure says so
    assert resumed.transcript.decoded == decoded
    store.close()
    reopened.close()


def test_reading_through_a_lazy_transcript_keeps_nothing_it_decoded(data_dir: Path, store: SessionStore) -> None:
    sid, transcript = _long_session(store)
    with SessionStore.open(data_dir) as other:
        lazy = other.load(sid, lazy=True).transcript
        assert isinstance(lazy, LazyTranscript)
        tail = lazy[len(lazy) - 1]
        read = [m for start in range(0, len(lazy), 100) for m in lazy.read_through(start, start + 100)]
        assert read == transcript and lazy.decoded == LAZY_TAIL  # the history inspector's read
        assert read[-1] is tail  # a message already decoded is the one the session holds
