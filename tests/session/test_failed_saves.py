"""One rule for a save that fails after an operation changed the history: the change stays in memory,
the operation's own line says it was not saved, `unsaved()` stays true until a save succeeds, and
the rescue copy keeps it — for every operation, `/clear` included (which used to drop the old
conversation silently: its save's error was ignored and `unsaved()` said False)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ToolReturnPart
from support.turns import run_turn

from co_tui.config import load_settings
from co_tui.governance.markers import separate_markers
from co_tui.governance.refused import Refused
from co_tui.session.applying import KEPT_IN_MEMORY
from co_tui.session.chat import ChatSession
from co_tui.store.session_store import SessionStore


@pytest.fixture
async def session(tmp_path: Path) -> ChatSession:
    """A saved session after a README read (one tool output) and two chats."""
    (tmp_path / "README.md").write_text("# demo\n" + "A line of the readme.\n" * 60)
    chat = ChatSession(load_settings(), workspace=tmp_path, store=SessionStore.open(tmp_path / "data"))
    for prompt in ("read README.md", "hello there", "what time is it"):
        await run_turn(chat, prompt)
    assert not chat.unsaved()
    return chat


def _rescued(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "data").glob("rescued-*.json"))


async def test_clear_after_a_failed_save_writes_the_old_conversation_to_a_rescue_copy(
    tmp_path: Path, session: ChatSession
) -> None:
    await run_turn(session, "one more thing")  # saved; the next save fails
    assert session.store is not None
    session.store.close()
    await run_turn(session, "this turn is not saved", errors=True)  # the failed save is an error event
    assert session.unsaved()
    old_id = session.id
    event = await session.clear()
    [rescue] = _rescued(tmp_path)
    assert str(rescue) in (event.note or "") and "not saved" in (event.note or ""), event.note
    assert event.session_id == old_id and session.id != old_id and not session.transcript
    saved = json.loads(rescue.read_text())
    assert saved["meta"]["id"] == old_id
    assert "this turn is not saved" in rescue.read_text(), "the unsaved turn is in the rescue copy"


async def test_clear_that_can_neither_save_nor_rescue_clears_nothing(tmp_path: Path, session: ChatSession) -> None:
    assert session.store is not None
    session.store.close()
    await run_turn(session, "this turn is not saved", errors=True)  # the failed save is an error event
    shutil.rmtree(tmp_path / "data")
    (tmp_path / "data").write_text("a file where the data dir was")  # the rescue copy has nowhere to go either
    transcript, old_id = list(session.transcript), session.id
    with pytest.raises(Refused, match="^nothing was cleared: the conversation could not be saved") as refused:
        await session.clear()
    assert "\n" not in str(refused.value)
    assert list(session.transcript) == transcript and session.id == old_id and session.unsaved()


async def test_an_eviction_whose_save_fails_is_kept_says_so_and_is_rescued(
    tmp_path: Path, session: ChatSession
) -> None:
    assert session.store is not None
    session.store.close()
    output = next(
        i
        for i, m in enumerate(separate_markers(session.context))
        if isinstance(m, ModelRequest) and any(isinstance(p, ToolReturnPart) for p in m.parts)
    )
    event = await session.evict(output)  # it used to raise after changing the context
    assert (event.note or "").endswith(KEPT_IN_MEMORY.strip()), event.note
    assert session.ledger[-1] is event and session.unsaved()
    rescue = session.write_rescue_copy()
    assert rescue is not None and '"manual_evict"' in rescue.read_text()


async def test_a_pin_whose_save_fails_is_kept_and_says_so(session: ChatSession) -> None:
    assert session.store is not None
    session.store.close()
    change = await session.pin_newest()
    assert change.pinned and session.pins == [len(session.transcript) - 2]
    assert change.describe().endswith(KEPT_IN_MEMORY.strip()), change.describe()
    assert session.unsaved()


async def test_the_store_knows_what_it_holds_pins_included(tmp_path: Path, session: ChatSession) -> None:
    """`unsaved()` asks the store: after a pin is saved it is false, and a pin the store does not
    hold (written behind the session's back) makes it true."""
    await session.pin_newest()
    assert not session.unsaved()
    assert session.store is not None
    session.store.set_pin(session.id, 0, True)  # the store now holds a pin the session does not
    assert session.unsaved()
