"""Resuming a long session (real SQLite) decodes what it shows: the counts come from the store, the
newest entries from the newest rows — an old row is not read until the inspector scrolls back to it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import wait_ready, wait_until
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart
from textual.widgets import DataTable

from co_tui.config import load_settings
from co_tui.session.lazy_transcript import LazyTranscript
from co_tui.session.opening import open_store
from co_tui.store.errors import StoreError
from co_tui.store.session_store import SessionStore
from co_tui.tui.app import CoTuiApp
from co_tui.tui.screens.history import HistoryScreen
from co_tui.tui.widgets.message_table import MessageTable
from co_tui.tui.widgets.notice_line import NoticeLine
from co_tui.tui.widgets.user_message import UserMessage

TURNS = 300  # 1,200 messages: far more than the newest screenful and the lazy chunks around it


def _turn(i: int) -> list[Any]:
    call = f"call_{i}"
    return [
        ModelRequest(parts=[UserPromptPart(f"read file_{i}.py")]),
        ModelResponse(parts=[TextPart("Reading."), ToolCallPart("read_file", {"path": f"file_{i}.py"}, call)]),
        ModelRequest(parts=[ToolReturnPart("read_file", f"contents of file_{i}", tool_call_id=call)]),
        ModelResponse(parts=[TextPart(f"file_{i}.py defines a handler.")]),
    ]


def _long_session(workspace: Path) -> tuple[SessionStore, str]:
    """TURNS turns saved turn by turn, then an old answer (message 1) damaged on disk."""
    store = open_store(load_settings())
    sid = store.create_session(model="offline", workspace=workspace, title="long")
    for i in range(TURNS):
        turn = _turn(i)
        store.save_turn(sid, new_transcript=turn, context=turn, new_events=[])
    conn = sqlite3.connect(store.path)
    conn.execute("UPDATE transcript SET body = '{not json' WHERE session_id = ? AND seq = 1", (sid,))
    conn.commit()
    conn.close()
    return store, sid


def _resumed_line(app: CoTuiApp) -> str | None:
    lines = [w.text for w in app.chat.log_view.items if isinstance(w, NoticeLine) and w.text.startswith("Resumed")]
    return lines[-1] if lines else None


@pytest.mark.parametrize("preview", [True, False], ids=["from-rows", "from-session"])
async def test_a_long_resume_decodes_the_newest_and_scrolls_back_to_the_first_turn(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, preview: bool
) -> None:
    store, sid = _long_session(workspace)
    if not preview:  # the session shows itself (as after /sessions when the light read fails)

        def unreadable(*args: Any, **kwargs: Any) -> None:
            raise StoreError("no light read in this test")

        monkeypatch.setattr(SessionStore, "load_tail", unreadable)
    app = CoTuiApp(load_settings(), workspace, resume_id=sid)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_ready(pilot)
        await wait_until(pilot, lambda: _resumed_line(app) is not None, what="the conversation")
        assert _resumed_line(app) == f"Resumed “long” · {TURNS} turns · {4 * TURNS:,} messages"
        log = app.chat.log_view
        shown = [w.text for w in log.query(UserMessage)]
        assert shown[-1] == f"read file_{TURNS - 1}.py" and len(shown) < TURNS
        mounted = [w for w in log.items if not isinstance(w, NoticeLine)]
        assert log.hidden_count == 4 * TURNS - len(mounted)  # 4 entries a turn, each counted once
        transcript = app.session.transcript
        assert isinstance(transcript, LazyTranscript)
        assert transcript.decoded < TURNS, "the whole transcript was decoded to show its newest entries"
        assert store.list_sessions()[0].damaged is None, "the damaged old row was read at resume"

        # Scroll back to the first turn: the inspector reads the old rows now, the damaged one as
        # a one-line stand-in, and the session is flagged for the list.
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), what="the inspector")
        await pilot.press("t")
        table = app.screen.query_one("#transcript-table", MessageTable)
        await wait_until(pilot, lambda: table.total == 4 * TURNS, what="every message in the table")
        table.move_cursor(row=0, scroll=True)
        await pilot.pause()
        assert table.cursor_row == 0 and table.scroll_y == 0
        assert "read file_0.py" in str(table.get_row_at(0)[5])
        assert "is damaged: transcript message" in str(table.get_row_at(1)[5])  # the stand-in, shortened
        assert "file_1.py" in str(table.get_row_at(4)[5])
        assert transcript.decoded < TURNS  # the inspector's read keeps nothing it decoded
        assert "transcript message 1" in (store.list_sessions()[0].damaged or "")
