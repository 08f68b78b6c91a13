"""Undo a cut and pin a turn on a real ChatSession with a real SQLite file: survive resume, refuse
with one line (docs/context-governance.md, "Undo a cut" and "Pins")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.turns import run_turn

from co_tui.config import load_settings
from co_tui.governance.markers import is_marker, separate_markers
from co_tui.governance.turns import segment
from co_tui.governance.undo import UndoRefused
from co_tui.session.chat import ChatSession
from co_tui.session.opening import resume_session
from co_tui.session.steering import PinRefused
from co_tui.store.session_store import SessionStore


def _texts(messages) -> list[str]:
    """What the model reads of each message, markers apart (pydantic-ai fuses a marker with the
    prompt after it)."""
    from co_tui.governance.tokens import part_text

    return [
        " ".join(part_text(p) for p in m.parts)
        for m in separate_markers(messages)
        if not is_marker(m) and any(getattr(p, "part_kind", "") != "system-prompt" for p in m.parts)
    ]


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text("# demo\n" + "A line of the readme that the tool returns.\n" * 80)
    return tmp_path


def _trim_settings(budget_tokens: int):
    """Settings that cut by trimming at `budget_tokens`, old tool outputs cut to 200 characters."""
    return load_settings(context_budget_tokens=budget_tokens, context_strategy="trim", tool_output_trim_chars=200)


def _open(settings, workspace: Path) -> ChatSession:
    """A new session saved to the workspace's own data dir."""
    return ChatSession(settings, workspace=workspace, store=SessionStore.open(workspace / "data"))


async def _read_and_chat(session: ChatSession, turns: int, *, until_cut: bool = False) -> None:
    """`turns` turns, reading README.md and saying hello in turn (with `until_cut`: up to the first cut)."""
    for i in range(turns):
        await run_turn(session, "read README.md" if i % 2 == 0 else f"hello number {i}")
        if until_cut and session.ledger:
            break


def _resume(settings, workspace: Path, session: ChatSession) -> ChatSession:
    """Reopen `session` from the store, as another process would (the undo data comes from the file)."""
    session.release_claim()
    return resume_session(
        settings, workspace=workspace, store=SessionStore.open(workspace / "data"), session_id=session.id
    )


async def test_undo_restores_the_context_before_the_cut_and_survives_resume(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    settings = _trim_settings(1500)
    session = _open(settings, workspace)
    await _read_and_chat(session, 8, until_cut=True)
    assert session.ledger, "a 1,500-token budget should have cut something"
    cuts = session.undoable_cuts()
    assert cuts, "a cut made in this session can be undone"
    transcript_len_at_cut = session.ledger_positions[cuts[-1]]
    # Right after a budget cut, undoing it would not fit: refused, with the figures.
    with pytest.raises(UndoRefused, match="would need ~"):
        await session.undo()
    # Resumed with a larger budget (the undo data comes back from the file), the cut can go.
    settings = _trim_settings(20_000)
    session = _resume(settings, workspace, session)
    assert session.undoable_cuts() == cuts
    event = await session.undo()
    assert event.reason == "restore" and event.restored_messages > 0 and event.dropped_messages == 0
    assert event.tokens_after > event.tokens_before and event.tokens_after <= event.budget_tokens == 20_000
    # The messages since the cut are the transcript's, verbatim (the same objects), and no marker of
    # the undone cut is left.
    tail = session.transcript[transcript_len_at_cut:]
    assert all(any(m is c for c in session.context) for m in tail)
    if len(session.undoable_cuts()) == 0:
        assert not any(is_marker(m) for m in separate_markers(session.context))

    resumed = _resume(settings, workspace, session)
    assert resumed.context == session.context
    assert resumed.ledger[-1].reason == "restore" and resumed.ledger[-1].restored_messages == event.restored_messages
    assert resumed.undoable_cuts() == session.undoable_cuts()
    db = resumed.store.conn  # the restore's row says what it undid
    row = db.execute("SELECT undo FROM ledger WHERE session_id = ? ORDER BY seq DESC LIMIT 1", (resumed.id,))
    assert "undoes" in json.loads(row.fetchone()[0])
    await run_turn(resumed, "and on we go")  # the restored context is a valid history for the model


async def test_undo_refuses_when_the_restored_context_would_not_fit(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    session = _open(_trim_settings(1500), workspace)
    with pytest.raises(UndoRefused, match="^nothing to undo"):
        await session.undo()
    await _read_and_chat(session, 10)
    assert len(session.undoable_cuts()) >= 2
    oldest = session.undoable_cuts()[0]
    context, ledger_len = list(session.context), len(session.ledger)
    with pytest.raises(UndoRefused) as refused:
        await session.undo(oldest)  # everything since the first cut: far over 1,500 tokens
    line = str(refused.value)
    assert "\n" not in line and "would need ~" in line and "1,500-token budget" in line
    assert list(session.context) == context and len(session.ledger) == ledger_len, "nothing changed"
    with pytest.raises(UndoRefused, match="no trim #99"):
        await session.undo(98)


async def test_pins_survive_cuts_and_resume_and_refuse_without_room(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    settings = _trim_settings(2500)
    session = _open(settings, workspace)
    await run_turn(session, "the secret word is tangerine")
    change = await session.pin_newest()
    assert change.pinned and change.turn == 1 and session.pins == [0]
    assert session.meter_reading().pinned_tokens == change.pinned_tokens > 0
    pinned_turn = _texts(session.context[:2])
    await _read_and_chat(session, 8)
    assert session.ledger, "cuts happened around the pin"
    assert _texts(session.context)[: len(pinned_turn)] == pinned_turn, "the pinned turn is still there, first"
    assert session.ledger[-1].dropped_turns > 0
    # Every cut kept the pinned turn and the newest one, and its banner counts both.
    assert all(e.kept_turns >= 2 for e in session.ledger), [e.kept_turns for e in session.ledger]

    resumed = _resume(settings, workspace, session)
    assert resumed.pins == [0] and resumed.meter_reading().pinned_tokens > 0
    await run_turn(resumed, "read README.md")
    await run_turn(resumed, "hello once more")
    assert _texts(resumed.context)[: len(pinned_turn)] == pinned_turn, "still pinned after resume"

    # The newest turn (a README read) plus every other turn pinned is over the low-water mark.
    prompts = [t.indices[0] for t in segment(resumed.transcript).turns if t.has_prompt]
    with pytest.raises(PinRefused) as refused:
        for index in prompts:
            if index not in resumed.pins:
                try:
                    await resumed.toggle_pin(index)
                except PinRefused as exc:
                    if "not in the context" in str(exc):
                        continue
                    raise
    line = str(refused.value)
    assert "\n" not in line and "pinned turns would hold ~" in line and "tokens" in line
    # Unpin: the row goes, and a resume agrees.
    await resumed.toggle_pin(0)
    assert 0 not in resumed.pins
    again = _resume(settings, workspace, resumed)
    assert 0 not in again.pins


async def test_a_cut_saved_before_version_3_loads_and_cannot_be_undone(tmp_path: Path) -> None:
    """Upgrading keeps old ledgers readable: their cuts have no undo data, and /undo says so."""
    import sqlite3

    from co_tui.session import migrations

    workspace = _workspace(tmp_path)
    settings = _trim_settings(1500)
    session = _open(settings, workspace)
    await _read_and_chat(session, 6)
    assert session.undoable_cuts()
    session.release_claim()
    db = sqlite3.connect(workspace / "data" / "sessions.db")
    db.execute("UPDATE ledger SET undo = NULL")  # what a version-2 database held
    db.commit()
    db.close()
    resumed = resume_session(
        settings, workspace=workspace, store=SessionStore.open(workspace / "data"), session_id=session.id
    )
    assert resumed.undoable_cuts() == [] and resumed.ledger == session.ledger
    with pytest.raises(UndoRefused, match="^nothing left to undo: the cuts left were saved before"):
        await resumed.undo()
    with pytest.raises(UndoRefused, match="saved before co-tui kept"):
        await resumed.undo(0)
    assert migrations.SCHEMA_VERSION == len(migrations.MIGRATIONS)


async def test_the_compact_dialog_counts_what_the_compaction_does_around_a_pin(tmp_path: Path) -> None:
    """The /compact dialog said "14 messages (4 turns)" with a turn pinned, the banner after it 12
    messages, 3 turns: the dialog counted the pinned turn the compaction keeps verbatim."""
    workspace = _workspace(tmp_path)
    session = _open(load_settings(), workspace)
    await run_turn(session, "the secret word is tangerine")
    await session.pin_newest()
    for i in range(3):
        await run_turn(session, f"hello number {i}")
    preview = session.compact_preview()
    assert preview is not None
    events = [event async for event in session.compact()]
    (banner,) = [e for e in events if e.type == "history_trimmed"]
    dialog = (preview.dropped_messages, preview.dropped_turns, preview.tokens_before)
    assert dialog == (banner.dropped_messages, banner.dropped_turns, banner.tokens_before)
    assert banner.dropped_turns == 3 and banner.tokens_after <= preview.tokens_after
    assert banner.kept_turns == 1  # the pinned turn (the banner said "kept 0 turns")
    assert _texts(session.context)[-2:] == ["the secret word is tangerine", _texts(session.transcript)[1]]

    # Every turn left is pinned (the summary pair is no turn of the user's): nothing to compact.
    assert session.compact_preview() is None

    # /clear takes the pinned turn too, and its dialog says so: the same figures as its banner.
    before = session.clear_preview()
    cleared = await session.clear()
    assert (before.dropped_messages, before.dropped_turns) == (cleared.dropped_messages, cleared.dropped_turns)
    assert cleared.dropped_turns == 1 and session.pins == [] and session.context == []
