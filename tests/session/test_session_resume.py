"""ChatSession + SessionStore: a governed conversation saved turn by turn, resumed exactly, continued."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from support.turns import run_turn

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession
from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore


async def test_resume_restores_transcript_context_and_ledger(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\n" + "A line of the readme that the tool returns.\n" * 80)
    settings = load_settings(context_budget_tokens=900, context_strategy="trim", tool_output_trim_chars=200)
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(settings, workspace=tmp_path, store=store)
    for i in range(6):
        await run_turn(session, "read README.md" if i % 2 == 0 else f"hello number {i}")
    assert session.ledger, "a 900-token budget should have cut something"
    assert session.context != session.transcript

    reopened = SessionStore.open(tmp_path / "data")
    resumed = resume_session(settings, workspace=tmp_path, store=reopened, session_id=session.id)
    assert resumed.transcript == session.transcript
    assert resumed.context == session.context
    assert resumed.ledger == session.ledger
    assert resumed.ledger_positions == session.ledger_positions
    assert resumed.title == session.title == "read README.md"

    # Continuing appends: the old rows stay as they were, the new turn lands after them.
    db = sqlite3.connect(tmp_path / "data" / "sessions.db")
    before = db.execute("SELECT seq, body FROM transcript WHERE session_id = ? ORDER BY seq", (session.id,)).fetchall()
    await run_turn(resumed, "hello again")
    after = db.execute("SELECT seq, body FROM transcript WHERE session_id = ? ORDER BY seq", (session.id,)).fetchall()
    assert after[: len(before)] == before and len(after) == len(resumed.transcript) > len(before)
    final = reopened.load(session.id)
    assert final.transcript == resumed.transcript and final.context == resumed.context
    assert [m.id for m in reopened.list_sessions(tmp_path)] == [session.id]
    db.close()
    store.close()
    reopened.close()


async def test_clear_starts_a_new_session_and_keeps_the_old(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(load_settings(), workspace=tmp_path, store=store)
    await run_turn(session, "hello")
    old_id, old_context = session.id, list(session.context)
    held = session.meter.reading(session.context).tokens
    event = await session.clear()
    assert event.reason == "clear" and session.id != old_id
    assert (event.session_id, event.tokens_before, event.tokens_after) == (old_id, held, 0)
    await run_turn(session, "a fresh start")
    listed = {m.id: m for m in store.list_sessions(tmp_path)}
    assert set(listed) == {old_id, session.id}
    old = store.load(old_id)
    assert old.meta.messages == 2
    assert store.load(session.id).meta.title == "a fresh start"

    # The record is true: neither ledger claims a clear. The old session resumes whole (its context
    # and meter as before the /clear) with no "Conversation cleared" banner; the new one never held
    # what went, so its first banner would be false too.
    assert [e.reason for e in old.ledger] == []
    assert [e.reason for e in store.load(session.id).ledger] == []
    session.release_claim()
    resumed = resume_session(load_settings(), workspace=tmp_path, store=store, session_id=old_id)
    assert resumed.context == old_context and resumed.ledger == []
    assert resumed.meter.reading(resumed.context).tokens == held


async def test_undo_after_clear_says_a_clear_is_not_undone_and_where_the_old_conversation_is(
    tmp_path: Path,
) -> None:
    """Issue 43 item 8: `/undo` after `/clear` said "the model has seen the whole conversation so far"."""
    import pytest

    from co_tui.session import Refused

    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(load_settings(), workspace=tmp_path, store=store)
    await run_turn(session, "plan the parser")
    old_id = session.id
    await session.clear()
    for _ in range(2):  # right after the clear, and after a turn in the new conversation
        with pytest.raises(Refused) as refused:
            await session.undo()
        line = str(refused.value)
        assert line.startswith("nothing to undo: a /clear is not undone"), line
        assert f"“plan the parser” ({old_id[:8]}): /sessions opens it" in line
        await run_turn(session, "something new")
    assert store.load(old_id).meta.title == "plan the parser"
    session.release_claim()
    store.close()


async def test_disk_full_keeps_the_conversation_and_the_next_save_catches_up(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\n" + "Some long readme text to fill pages.\n" * 3000)
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(load_settings(), workspace=tmp_path, store=store)
    await run_turn(session, "hello")
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite now fails exactly as on a full disk

    events = await run_turn(session, "read README.md", errors=True)
    storage = [e for e in events if e.type == "error" and e.kind == "storage"]
    assert len(storage) == 1 and "disk is full" in storage[0].message
    assert events[-1].type == "done" and not events[-1].failed
    assert len(session.transcript) > 2  # the turn lives on in memory
    assert store.load(session.id).meta.messages == 2

    store.conn.execute("PRAGMA max_page_count = 1073741823")
    await run_turn(session, "hello again")  # no error
    saved = store.load(session.id)
    assert saved.transcript == session.transcript and saved.context == session.context


async def test_marker_counts_survive_fusion_save_and_resume(tmp_path: Path) -> None:
    """pydantic-ai fuses a marker with the next prompt and drops its metadata; the counts
    must still add up after a run, a save and a resume (the ledger is the reference)."""
    from co_tui.governance import segment
    from co_tui.governance.markers import separate_markers

    settings = load_settings(max_history_messages=8, context_strategy="summarize")
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(settings, workspace=tmp_path, store=store)
    for i in range(8):
        await run_turn(session, f"note number {i}: the sky is blue")
    dropped = sum(e.dropped_messages for e in session.ledger)
    turns = sum(e.dropped_turns for e in session.ledger)
    assert dropped >= 4 and any(e.strategy == "summary" for e in session.ledger)
    layout = segment(separate_markers(session.context))
    assert (layout.prior_messages, layout.prior_turns) == (dropped, turns)

    reopened = SessionStore.open(tmp_path / "data")
    resumed = resume_session(settings, workspace=tmp_path, store=reopened, session_id=session.id)
    layout = segment(separate_markers(resumed.context))
    assert (layout.prior_messages, layout.prior_turns) == (dropped, turns)
    for i in range(8, 14):
        await run_turn(resumed, f"note number {i}: the sky is blue")
    total = sum(e.dropped_messages for e in resumed.ledger)
    total_turns = sum(e.dropped_turns for e in resumed.ledger)
    assert total > dropped
    layout = segment(separate_markers(resumed.context))
    assert (layout.prior_messages, layout.prior_turns) == (total, total_turns)
    store.close()
    reopened.close()


async def test_a_prompt_that_reads_like_a_summary_is_answered(tmp_path: Path) -> None:
    """`[Summary of 12 earlier messages]\\nWhat is 2+2?` is a user prompt, not a marker."""
    session = ChatSession(load_settings(max_history_messages=8), workspace=tmp_path, store=None)
    for i in range(4):
        await run_turn(session, f"note number {i}: the sky is blue")
    events = await run_turn(session, "[Summary of 12 earlier messages]\nWhat is 2+2?")
    assert events[-1].type == "done"
    assert "2+2" in str(session.context[-2].parts[-1].content)
    for _ in range(3):
        events = await run_turn(
            session, "[Earlier conversation trimmed — 3 messages (1 turns) removed to stay within the context budget]"
        )


def _saved_with_failed_summary(tmp_path: Path, settings) -> str:
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

    from co_tui.governance.events import HistoryTrimmed

    failed = HistoryTrimmed(
        reason="message_count",
        strategy="static_marker",
        dropped_messages=6,
        dropped_turns=3,
        note="summary failed (ConnectionError: down); trimming only for 600s",
    )
    with SessionStore.open(tmp_path / "data") as store:
        sid = store.create_session(model="offline", workspace=tmp_path)
        turn = [ModelRequest(parts=[UserPromptPart("hi")]), ModelResponse(parts=[TextPart("hello")])]
        store.save_turn(sid, new_transcript=turn, context=turn, new_events=[failed])
    return sid


def test_a_failed_summary_cools_down_across_processes(tmp_path: Path, monkeypatch) -> None:
    """The cooldown lived in one process, so every print-mode --continue retried a dead
    summariser. The failure's time is in the ledger; a resumed session honours what is left of it."""
    import time

    import co_tui.store.database as store_module

    settings = load_settings(summarizer_cooldown_s=600)
    recent = _saved_with_failed_summary(tmp_path, settings)
    with SessionStore.open(tmp_path / "data") as store:
        resumed = resume_session(settings, workspace=tmp_path, store=store, session_id=recent)
        assert resumed.binding.governor.cooling_down()
        remaining = resumed.binding.governor.cooldown_until - resumed.binding.governor.clock()
        assert 0 < remaining <= 600
        resumed.release_claim()

    monkeypatch.setattr(store_module, "now", lambda: time.time() - 3600)  # failed an hour ago: over
    old = _saved_with_failed_summary(tmp_path, settings)
    with SessionStore.open(tmp_path / "data") as store:
        assert not resume_session(
            settings, workspace=tmp_path, store=store, session_id=old
        ).binding.governor.cooling_down()


def test_print_mode_banner_says_the_summary_failed() -> None:
    import io

    from co_tui.governance.events import HistoryTrimmed
    from co_tui.print_mode import _write_event

    err = io.StringIO()
    event = HistoryTrimmed(
        reason="message_count",
        strategy="static_marker",
        dropped_messages=6,
        dropped_turns=3,
        tokens_before=900,
        tokens_after=400,
        note="summary failed (TimeoutError); trimming only for 600s",
    )
    _write_event(event, "text", io.StringIO(), err)
    assert err.getvalue().rstrip("\n").endswith("· summary failed (TimeoutError); trimming only for 600s")
