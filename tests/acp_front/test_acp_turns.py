"""`co-tui acp` through the SDK's real client side over real stdio (docs/acp.md): initialize, a turn
with a tool call and its approval, cancel, the meter and a cut, a slash command."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import schema
from acp.helpers import text_block
from support.waits import until

from acp_front.acp_client import Recorder, open_agent


async def test_initialize_says_what_co_tui_offers(workspace: Path) -> None:
    client = Recorder()
    async with open_agent(client, cwd=workspace) as (conn, _):
        answer = await conn.initialize(protocol_version=1)
        caps = answer.agent_capabilities
        assert answer.agent_info.name == "co-tui" and caps.load_session
        assert caps.prompt_capabilities.embedded_context and caps.mcp_capabilities.http
        sessions = caps.session_capabilities
        assert sessions.list is not None and sessions.fork is not None and sessions.close is not None


async def test_a_turn_streams_its_tool_call_the_meter_and_the_answer(workspace: Path) -> None:
    client = Recorder()
    async with open_agent(client, cwd=workspace) as (conn, _):
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert new.modes.current_mode_id == "auto" and [m.id for m in new.modes.available_modes] == [
            "auto",
            "ask",
            "off",
        ]
        done = await conn.prompt(session_id=new.session_id, prompt=[text_block("read hello.txt")])
        assert done.stop_reason == "end_turn"
        [call] = client.of("tool_call")
        assert call.kind == "read" and call.status == "pending" and call.title == "read_file: hello.txt"
        assert [loc.path for loc in call.locations] == [str((workspace / "hello.txt").resolve())]
        [result] = client.of("tool_call_update")
        assert result.tool_call_id == call.tool_call_id and result.status == "completed"
        assert "hi" in result.content[0].content.text
        usage = client.of("usage_update")[-1]
        assert usage.used > 0 and usage.size > usage.used
        assert client.text(new.session_id).strip(), "the answer streamed as message chunks"
        await until(lambda: client.of("available_commands_update"), "the commands")
        names = [c.name for c in client.of("available_commands_update")[0].available_commands]
        assert {"compact", "clear", "undo", "context", "pin", "rewind"} <= set(names) and "history" not in names
