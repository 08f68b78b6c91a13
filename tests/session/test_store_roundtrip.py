"""Save → load → continue round trips: transcript, context (with markers), ledger, metadata."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pydantic_ai.messages import ModelRequest, ToolReturnPart
from support.builders import breadcrumb, saved_tool_turn, summary

from co_tui.governance.events import HistoryTrimmed
from co_tui.store.session_store import SessionStore


def _trimmed_copy(message: ModelRequest, keep: int) -> ModelRequest:
    """What trim_tool_returns makes of an old tool output: a new message, the original untouched."""
    parts = [
        replace(p, content=p.content[:keep] + f"\n[…truncated, {len(p.content)} chars total]")
        if isinstance(p, ToolReturnPart)
        else p
        for p in message.parts
    ]
    return replace(message, parts=parts)


def test_round_trip_keeps_tool_calls_usage_and_ids(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="test:model", workspace=tmp_path, title="explain files")
    transcript = saved_tool_turn(0) + saved_tool_turn(1)
    store.save_turn(sid, new_transcript=transcript, context=transcript, new_events=[], tokens=1234)

    loaded = store.load(sid)

    assert loaded.transcript == transcript
    assert loaded.context == transcript
    assert loaded.transcript[1].usage.input_tokens == 100
    assert loaded.transcript[1].parts[1].tool_call_id == "call_0"
    assert loaded.transcript[2].parts[0].tool_call_id == "call_0"
    assert loaded.meta.id == sid
    assert loaded.meta.title == "explain files"
    assert loaded.meta.model == "test:model"
    assert loaded.meta.workspace == tmp_path.resolve()
    assert (loaded.meta.messages, loaded.meta.context_messages, loaded.meta.tokens) == (8, 8, 1234)
    # Context messages that are transcript messages come back as the same objects (memory, speed).
    assert all(c is t for c, t in zip(loaded.context, loaded.transcript, strict=False))


def test_breadcrumb_summary_and_trimmed_copies_survive(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="m", workspace=tmp_path)
    turns = [saved_tool_turn(i, output_chars=3000) for i in range(4)]
    transcript = [m for t in turns for m in t]
    store.save_turn(sid, new_transcript=transcript, context=transcript, new_events=[])

    cut = HistoryTrimmed(
        reason="token_budget",
        strategy="turn_trim",
        dropped_messages=4,
        dropped_turns=1,
        kept_turns=3,
        tokens_before=9000,
        tokens_after=6000,
        budget_tokens=7000,
        session_id=sid,
    )
    shrink = HistoryTrimmed(
        reason="token_budget",
        strategy="tool_output_trim",
        tokens_before=6000,
        tokens_after=3000,
        budget_tokens=7000,
        session_id=sid,
    )
    context = [breadcrumb(4, 1), *turns[1][:2], _trimmed_copy(turns[1][2], 100), turns[1][3], *turns[2], *turns[3]]
    store.save_turn(sid, new_transcript=[], context=context, new_events=[cut, shrink])

    loaded = store.load(sid)
    assert loaded.transcript == transcript
    assert loaded.context == context
    assert "[…truncated, 3000 chars total]" in loaded.context[3].parts[0].content
    assert loaded.ledger == [cut, shrink]
    assert loaded.ledger_positions == [16, 16]

    summarised = [summary(12, "The user had three files explained: handlers for requests."), *turns[3]]
    s_event = HistoryTrimmed(
        reason="message_count",
        strategy="summary",
        dropped_messages=12,
        summary="The user had three files explained.",
        session_id=sid,
    )
    new_turn = saved_tool_turn(4)
    store.save_turn(sid, new_transcript=new_turn, context=summarised + new_turn, new_events=[s_event])
    loaded = store.load(sid)
    assert loaded.transcript == transcript + new_turn
    assert loaded.context == summarised + new_turn
    assert loaded.context[0].parts[0].content.startswith("[Summary of 12 earlier messages]")
    assert loaded.ledger[-1].summary == "The user had three files explained."
    # Banner goes right after the user prompt of the turn in which the cut happened.
    assert loaded.ledger_positions == [16, 16, 17]


def test_continue_after_reopen_appends(data_dir: Path, tmp_path: Path) -> None:
    with SessionStore.open(data_dir) as first:
        sid = first.create_session(model="m", workspace=tmp_path, title="t")
        first.save_turn(sid, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[])
    with SessionStore.open(data_dir) as second:
        loaded = second.load(sid)
        more = saved_tool_turn(1)
        second.save_turn(sid, new_transcript=more, context=loaded.context + more, new_events=[], title="renamed")
    with SessionStore.open(data_dir) as third:
        again = third.load(sid)
    assert again.transcript == saved_tool_turn(0) + saved_tool_turn(1)
    assert again.context == saved_tool_turn(0) + saved_tool_turn(1)
    assert again.meta.title == "renamed"


def test_save_without_load_in_a_new_process_rewrites_only_the_change(data_dir: Path, tmp_path: Path) -> None:
    """A store that never loaded the session compares by content, then writes only the new tail."""
    with SessionStore.open(data_dir) as first:
        sid = first.create_session(model="m", workspace=tmp_path)
        first.save_turn(sid, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[])
    with SessionStore.open(data_dir) as second:
        second.save_turn(
            sid, new_transcript=saved_tool_turn(1), context=saved_tool_turn(0) + saved_tool_turn(1), new_events=[]
        )
        assert second.load(sid).context == saved_tool_turn(0) + saved_tool_turn(1)


def test_event_positions_override(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="m", workspace=tmp_path)
    ev = HistoryTrimmed(reason="context_overflow", strategy="step_shrink")
    store.save_turn(sid, new_transcript=saved_tool_turn(0), context=None, new_events=[ev], event_positions=[3])
    assert store.load(sid).ledger_positions == [3]


def test_context_none_keeps_the_saved_context(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="m", workspace=tmp_path)
    store.save_turn(sid, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0)[2:], new_events=[])
    store.save_turn(sid, new_transcript=saved_tool_turn(1), context=None, new_events=[])
    loaded = store.load(sid)
    assert loaded.context == saved_tool_turn(0)[2:]
    assert len(loaded.transcript) == 8
