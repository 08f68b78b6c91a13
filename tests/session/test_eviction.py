"""Evict on a real session and a real SQLite file: the context changes, the transcript never does,
the ledger records it, and all of it resumes exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ToolReturnPart
from support.turns import run_turn

from co_tui.config import Settings, load_settings
from co_tui.governance import annotate_history
from co_tui.governance.markers import is_evicted_output, marker_info, separate_markers
from co_tui.governance.refused import Refused
from co_tui.session.banner import banner_details, banner_line
from co_tui.session.chat import ChatSession
from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore


def _index_of_output(session: ChatSession) -> int:
    context = separate_markers(session.context)
    return next(
        i
        for i, m in enumerate(context)
        if isinstance(m, ModelRequest) and any(isinstance(p, ToolReturnPart) for p in m.parts)
    )


@pytest.fixture
async def read_then_chat(tmp_path: Path) -> tuple[Settings, ChatSession]:
    """The settings and a saved session in `tmp_path` (data in `data/`) after three turns: a README
    read (one tool output), then two chats."""
    (tmp_path / "README.md").write_text("# demo\n" + "A line of the readme.\n" * 60)
    settings = load_settings()
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(settings, workspace=tmp_path, store=store)
    for prompt in ("read README.md", "hello there", "what time is it"):
        await run_turn(session, prompt)
    return settings, session


async def test_evict_then_resume_keeps_markers_ledger_and_statuses(tmp_path: Path, read_then_chat) -> None:
    settings, session = read_then_chat
    transcript = list(session.transcript)

    first = await session.evict(_index_of_output(session))
    assert (first.reason, first.strategy) == ("manual_evict", "tool_output_trim")
    assert "read_file(path=README.md)" in (first.note or "") and "prompt cache" in (first.cache_warning or "")
    hello = next(i for i, m in enumerate(separate_markers(session.context)) if "hello there" in str(m.parts[0]))
    second = await session.evict(hello)
    assert (second.strategy, second.dropped_turns) == ("turn_trim", 1)
    assert second.cache_warning is None  # warned once
    with pytest.raises(Refused, match="newest turn"):
        await session.evict(len(separate_markers(session.context)) - 1)
    assert session.transcript == transcript

    resumed = resume_session(
        settings, workspace=tmp_path, store=SessionStore.open(tmp_path / "data"), session_id=session.id
    )
    assert resumed.context == session.context and resumed.ledger == session.ledger
    context = separate_markers(resumed.context)
    assert sum(1 for m in context for p in m.parts if is_evicted_output(p)) == 1
    assert [marker_info(m).kind for m in context if marker_info(m) is not None] == ["evicted"]
    rows = annotate_history(
        resumed.transcript, resumed.context, ledger=resumed.ledger, positions=resumed.ledger_positions
    )
    assert [r.status for r in rows].count("evicted") == 3  # the output, and the turn's two messages
    assert {r.status for r in rows if r.turn == 3} == {"in_context"}

    # The next turn runs on the evicted context; the marker is still there, fused or not.
    await run_turn(resumed, "and now?")
    assert any(
        (info := marker_info(m)) is not None and info.kind == "evicted" for m in separate_markers(resumed.context)
    )
    resumed.release_claim()
    session.release_claim()


async def test_compaction_and_summary_events_say_what_the_summary_kept(tmp_path: Path) -> None:
    """Every summary and compaction carries what its summary kept and lost, saved."""
    # Long enough that a summary is worth its model call (the middle outweighs the longest summary).
    (tmp_path / "notes_a.md").write_text("alpha\n" + "the notes go on about item values and more.\n" * 60)
    settings = load_settings(max_history_messages=12)
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(settings, workspace=tmp_path, store=store, model="offline")
    summaries = []
    for i in range(12):
        events = await run_turn(session, f"read notes_a.md and note item_{i} = {100 + i}")
        summaries += [e for e in events if e.type == "history_trimmed" and e.strategy == "summary"]
    assert summaries, "a 12-message limit should have summarised"
    for event in summaries:
        assert event.summary_kept is not None and event.summary_lost is not None
        assert event.summary_kept or event.summary_lost
    compacted = [e async for e in session.compact() if e.type == "history_trimmed"]
    (event,) = compacted
    assert event.summary_kept is not None and "notes_a.md" in event.summary_kept + (event.summary_lost or [])
    resumed = resume_session(
        settings, workspace=tmp_path, store=SessionStore.open(tmp_path / "data"), session_id=session.id
    )
    assert resumed.ledger[-1].summary_kept == event.summary_kept
    assert resumed.ledger[-1].summary_lost == event.summary_lost
    resumed.release_claim()
    session.release_claim()


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"max_history_messages": 8, "context_strategy": "trim"}, "turn_trim"),
        ({"max_history_messages": 8, "context_strategy": "summarize"}, "summary"),
    ],
)
async def test_the_meter_names_the_cut_and_the_preview_is_what_happens(tmp_path: Path, settings, expected) -> None:
    """When the meter says a cut is
    due it says which kind, and the messages `next_cut` marks are the ones the next turn cuts."""
    session = ChatSession(load_settings(**settings), workspace=tmp_path, model="offline")
    checked = 0
    for i in range(10):
        reading = session.meter_reading()
        cut = session.next_cut()
        assert (cut is not None) == reading.trim_pending, f"turn {i}"
        before = separate_markers(session.context)
        events = await run_turn(session, f"note number {i}: the sky is blue")
        trims = [e for e in events if e.type == "history_trimmed"]
        if cut is None:
            continue
        checked += 1
        assert reading.trim_kind == cut.kind == expected and trims[0].strategy == expected
        # What was marked `next to go` is what the model no longer sees verbatim.
        still = {id(p) for m in separate_markers(session.context) for p in m.parts}
        gone = [i for i, m in enumerate(before) if not any(id(p) in still for p in m.parts)]
        assert cut.going == gone
    assert checked >= 1


def _kinds(messages) -> list[str | None]:
    return [(info.kind if (info := marker_info(m)) is not None else None) for m in separate_markers(messages)]


async def test_two_evictions_in_a_row_stay_two_markers_once_fused(tmp_path: Path) -> None:
    """pydantic-ai fuses the two adjacent eviction markers and the prompt after them into one request
    when the next run starts; every marker part of it is still a marker — for the meter's count, the
    inspector, /context — live and after a resume."""
    settings = load_settings()
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(settings, workspace=tmp_path, store=store)
    for prompt in ("hello one", "hello two", "hello three", "hello four"):
        await run_turn(session, prompt)

    def at(text: str) -> int:
        return next(i for i, m in enumerate(separate_markers(session.context)) if text in str(m.parts[0]))

    await session.evict(at("hello one"))
    await session.evict(at("hello two"))
    assert _kinds(session.context)[:3] == ["evicted", "evicted", None]
    await run_turn(session, "and now?")
    fused = session.context[0]
    assert len(fused.parts) == 3, "pydantic-ai no longer fuses adjacent requests: this test checks nothing"

    resumed = resume_session(
        settings, workspace=tmp_path, store=SessionStore.open(tmp_path / "data"), session_id=session.id
    )
    for s in (session, resumed):
        shown = separate_markers(s.context)
        assert _kinds(s.context)[:3] == ["evicted", "evicted", None]
        assert "hello three" in str(shown[2].parts[0].content) and len(shown[2].parts) == 1
        assert s.meter_reading().messages == len(shown) == 2 + 2 * 3  # two markers, three turns
        markers = [r for r in s.context_breakdown().rows if r.key == "markers"]
        assert [r.items for r in markers] == [2]
        rows = annotate_history(s.transcript, s.context, ledger=s.ledger, positions=s.ledger_positions)
        assert [r.status for r in rows] == ["evicted"] * 4 + ["in_context"] * 6
        context_rows = annotate_history(s.context, s.context)
        assert [r.role for r in context_rows[:3]] == ["marker", "marker", "user"]
        s.release_claim()


async def test_an_eviction_is_undone_like_any_cut_and_after_a_resume(tmp_path: Path, read_then_chat) -> None:
    """`/undo` after `d` said "trim #1 was saved before co-tui kept what a cut removed: it cannot be
    undone" in a brand-new session: the eviction kept no `before`. It is a cut like any other."""
    settings, session = read_then_chat
    before = list(session.context)
    await session.evict(_index_of_output(session))
    assert session.context != before

    restored = await session.undo()
    assert (restored.reason, restored.strategy) == ("restore", "tool_output_trim")
    assert session.context == before  # the output is back, verbatim
    # The banner names what was undone: it said "undid: old tool outputs shortened" for an eviction.
    assert banner_line(restored).endswith("undid: a tool output removed")
    assert dict(banner_details(restored))["strategy"] == "a tool output removed"

    hello = next(i for i, m in enumerate(separate_markers(session.context)) if "hello there" in str(m.parts[0]))
    await session.evict(hello)
    session.release_claim()
    resumed = resume_session(
        settings, workspace=tmp_path, store=SessionStore.open(tmp_path / "data"), session_id=session.id
    )
    await resumed.undo()
    assert resumed.context == before  # the turn is back after a resume too
    resumed.release_claim()
