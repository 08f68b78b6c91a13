"""`co-tui acp`'s sessions are the SQLite store's (list, load with its replay, fork, resume, close),
the client's MCP servers join the configured ones, and a prompt's resources attach as `@path` does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from acp import schema
from acp.helpers import embedded_text_resource, resource_block, resource_link_block, text_block
from cli_process import call_co_tui
from mcp_servers.conftest import DEMO_SERVER

from acp_front.acp_client import Recorder, open_agent


async def test_list_load_and_fork_a_saved_session(workspace: Path) -> None:
    first = Recorder()
    async with open_agent(first, cwd=workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("read README.md")])
        await conn.prompt(session_id=sid, prompt=[text_block("/compact")])
        await conn.prompt(session_id=sid, prompt=[text_block("hello again")])
        await conn.close_session(session_id=sid)
    listed = call_co_tui("--list-sessions", cwd=workspace)
    assert sid[:8] in listed.stdout, "the same sessions `co-tui --list-sessions` shows"

    later = Recorder()
    async with open_agent(later, cwd=workspace) as (conn, _):
        sessions = (await conn.list_sessions(cwd=str(workspace))).sessions
        assert [s.session_id for s in sessions] == [sid] and sessions[0].title == "read README.md"
        await conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
        users = [u.content.text for u in later.of("user_message_chunk", sid)]
        assert users == ["read README.md", "hello again"], "the branch in use, replayed"
        assert [c.kind for c in later.of("tool_call", sid)] == ["read"]
        assert "✂ Conversation compacted" in later.text(sid), "its cut, replayed in place"
        order = [
            "cut"
            if u.session_update == "agent_message_chunk" and "✂ Conversation compacted" in u.content.text
            else u.content.text
            if u.session_update == "user_message_chunk"
            else None
            for _, u in later.updates
        ]
        shown = [x for x in order if x is not None]
        assert shown == ["read README.md", "cut", "hello again"], "the cut sits where it happened"

        fork = await conn.fork_session(session_id=sid, cwd=str(workspace), mcp_servers=[])
        assert fork.session_id != sid
        await conn.prompt(session_id=fork.session_id, prompt=[text_block("only in the fork")])
        await conn.close_session(session_id=fork.session_id)
        ids = {s.session_id for s in (await conn.list_sessions(cwd=str(workspace))).sessions}
        assert ids == {sid, fork.session_id}


@pytest.mark.slow  # the editor's MCP servers are demo servers: Python processes
async def test_the_clients_mcp_server_joins_and_its_tool_runs(workspace: Path) -> None:
    client = Recorder()
    demo = schema.McpServerStdio(name="demo", command=sys.executable, args=[str(DEMO_SERVER)], env=[])
    bad = schema.McpServerStdio(name="bad name!", command=sys.executable, args=[str(DEMO_SERVER)], env=[])
    async with open_agent(client, cwd=workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[demo, bad])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("use demo_echo text=hi")])
        [call] = client.of("tool_call", sid)
        assert call.title.startswith("demo_echo") and call.kind == "other"
        [result] = client.of("tool_call_update", sid)
        assert result.status == "completed" and "hi" in result.content[0].content.text
        assert "MCP server 'bad name!' from the editor left out" in client.text(sid)


async def test_resources_in_a_prompt_attach_as_at_path_does(workspace: Path) -> None:
    client = Recorder()
    async with open_agent(client, cwd=workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        link = resource_link_block("hello.txt", (workspace / "hello.txt").resolve().as_uri())
        outside = resource_block(embedded_text_resource("file:///elsewhere/notes.md", "remember the milk"))
        await conn.prompt(session_id=sid, prompt=[text_block("what is in"), link, outside])
        await conn.close_session(session_id=sid)
    from co_tui.config import load_settings
    from co_tui.session import open_store

    store = open_store(load_settings())
    loaded = store.load(sid)
    prompt = loaded.transcript[0].parts[0].content
    assert prompt.startswith("what is in @hello.txt") and '<attached path="hello.txt"' in prompt
    assert "remember the milk" in prompt
    store.close()
