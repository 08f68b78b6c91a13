"""Recover a lost item on a real ChatSession with a real SQLite file: the excerpt is saved with the
context, survives resume (and the fusion with the next prompt), and /undo takes it back out
(docs/context-governance.md, "Recover a lost item")."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.turns import run_turn

from co_tui.config import load_settings
from co_tui.governance.markers import recovered_items, separate_markers
from co_tui.governance.recover import RecoverRefused
from co_tui.governance.tokens import part_text
from co_tui.session.chat import ChatSession
from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore


def _resume(settings, workspace: Path, session: ChatSession) -> ChatSession:
    session.release_claim()
    return resume_session(
        settings, workspace=workspace, store=SessionStore.open(workspace / "data"), session_id=session.id
    )


async def test_a_recovered_excerpt_is_saved_survives_resume_and_undo_removes_it(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\n")
    settings = load_settings()
    session = ChatSession(settings, workspace=tmp_path, store=SessionStore.open(tmp_path / "data"))
    for prompt in ("please look at notes_v7.md", "hello there", "and more"):
        await run_turn(session, prompt)
    [event async for event in session.compact()]
    lost = session.ledger[-1].summary_lost
    assert lost, "the extractive compaction loses the offline model's hints (config.toml, …)"
    item = lost[0]
    with pytest.raises(RecoverRefused, match="is not on trim #1's list"):
        await session.recover("nothing_like_this", 0)
    before = list(session.context)
    event = await session.recover(item, 0)
    assert event.salvaged_item == item and event.restored_messages == 1 and event.strategy == "compact"
    transcript_len = len(session.transcript)

    resumed = _resume(settings, tmp_path, session)
    assert resumed.context == session.context and recovered_items(resumed.context[-1]) == [item]
    assert resumed.ledger[-1].salvaged_item == item and resumed.ledger[-1].salvaged_text == event.salvaged_text
    assert resumed.undoable_cuts()[-1] == len(resumed.ledger) - 1, "the recovery can be undone after a resume"
    undo = await resumed.undo()
    assert "left the context" in (undo.note or "") and list(resumed.context) == before

    again = _resume(settings, tmp_path, resumed)
    assert list(again.context) == before, "the undo was saved"
    await again.recover(item)
    answer = (await run_turn(again, "what is next?"))[-1].output
    assert "Recovered from the transcript" not in answer, "the offline model answers the prompt, not the excerpt"
    assert len(again.transcript) == transcript_len + 2, "the excerpt never enters the transcript"
    assert not any("Recovered from the transcript" in part_text(p) for m in again.transcript for p in m.parts)
    shown = separate_markers(again.context)
    excerpt = next(m for m in shown if recovered_items(m))
    assert item in part_text(excerpt.parts[-1])
    last = _resume(settings, tmp_path, again)  # fused with the prompt after it, and saved that way
    assert [recovered_items(m) for m in separate_markers(last.context) if recovered_items(m)] == [[item]]
    with pytest.raises(RecoverRefused, match="already in the context"):
        await last.recover(item)
