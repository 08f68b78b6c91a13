"""The session's start and close for every front end (session/lifecycle.py): what it says as it
opens, its MCP servers up and down, and what closing leaves to say."""

from __future__ import annotations

from pathlib import Path

from mcp_servers.conftest import hostile_entry
from support.turns import collect, run_turn

from co_tui.config import load_settings
from co_tui.session import open_store
from co_tui.session.chat import ChatSession
from co_tui.session.events import ErrorEvent, Notice
from co_tui.session.opening import resume_session


async def test_start_says_the_instructions_and_a_bad_file_then_the_servers_news(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"\xff\xfe not utf-8")
    servers = {"read": hostile_entry("file", "echo")}  # `file` would take read_file's name: left out
    session = ChatSession(load_settings(mcp_servers=servers), workspace=tmp_path)
    later: list = []
    try:
        events = await collect(session.start(wait_for_mcp=True, on_mcp=later.extend))
        assert isinstance(events[0], ErrorEvent) and events[0].message.startswith("instructions skipped: ")
        assert events[0].kind == "config"
        lines = [e.message for e in events if isinstance(e, Notice)]
        assert any(line.startswith("MCP server read: 1 tool left out: 'file'") for line in lines), lines
        assert [s.status for s in session.mcp.servers] == ["running"], "start waited for the server"
    finally:
        closing = await session.aclose()
    assert closing.mcp_stopped == ["read"] and closing.released
    assert [s.status for s in session.mcp.servers] == ["stopped"]
    assert closing.hint is None and closing.problem is None, "nothing sent: nothing to resume"


async def test_a_quiet_start_leaves_out_the_chat_lines_and_says_a_loose_mcp_json(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    (tmp_path / ".mcp.json").write_text("{not json")
    session = ChatSession(load_settings(mcp_project_config=True), workspace=tmp_path)
    chat = await collect(session.start())
    assert isinstance(chat[0], Notice) and chat[0].message.startswith("Project instructions: AGENTS.md")
    quiet = await collect(session.start(announce=False, data_dir=False))
    assert len(quiet) == 1 and isinstance(quiet[0], ErrorEvent) and quiet[0].message.startswith("MCP: ")
    await session.aclose()


async def test_close_says_how_to_resume_and_lets_another_process_open_it(tmp_path: Path) -> None:
    settings = load_settings(data_dir=str(tmp_path / "data"))
    store = open_store(settings)
    session = ChatSession(settings, workspace=tmp_path, store=store)
    await run_turn(session, "hello")
    closing = await session.aclose()
    assert closing.hint == f"resume with: co-tui --resume {session.id}" and closing.problem is None
    again = resume_session(settings, workspace=tmp_path, store=store, session_id=session.id)
    assert again.title == "hello", "the claim was let go: it opens again here"
    again.release_claim()


async def test_close_after_a_failed_save_writes_the_rescue_copy_and_says_where(tmp_path: Path) -> None:
    settings = load_settings(data_dir=str(tmp_path / "data"))
    session = ChatSession(settings, workspace=tmp_path, store=open_store(settings))
    await run_turn(session, "a prompt worth keeping")
    assert session.store is not None
    session.store.close()  # the next save fails
    await run_turn(session, "and one more", errors=True)
    closing = await session.aclose()
    assert closing.rescued is not None and closing.rescued.parent == tmp_path / "data"
    assert closing.problem is not None and f"it was written to {closing.rescued} instead" in closing.problem
    assert "and one more" in closing.rescued.read_text() and closing.hint is None
