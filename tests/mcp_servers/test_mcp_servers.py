"""MCP servers with real parts: a real stdio server (tests/mcp/demo_server.py), the real agent on the
offline model, the real governance. The offline model calls a tool by name with `use NAME_tool`."""

from __future__ import annotations

import asyncio
import sys

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, ToolReturnPart, UserPromptPart
from support.turns import collect

from co_tui.agent.factory import tool_schema_tokens
from co_tui.agent.mcp_servers import mcp_overview, mcp_tool_definitions_by_server
from co_tui.config import load_settings
from co_tui.governance.handles import handle_of
from co_tui.session.chat import ChatSession
from co_tui.tui.screens.mcp import mcp_markdown
from mcp_servers.conftest import demo_entry
from mcp_servers.demo_server import big

pytestmark = pytest.mark.slow


def session_with(workspace, servers: dict, **settings) -> ChatSession:
    return ChatSession(load_settings(mcp_servers=servers, **settings), workspace=workspace)


def returns_of(messages, tool: str) -> list[ToolReturnPart]:
    return [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart) and p.tool_name == tool]


async def test_a_real_server_is_driven_by_the_agent_and_its_big_output_governed(workspace) -> None:
    session = session_with(
        workspace,
        {"demo": demo_entry()},
        tool_output_trim_chars=2000,
        context_budget_tokens=1500,  # over it once the previewed output is in (the newest turn is never cut)
        context_strategy="trim",
        tool_output_preview_chars=20_000,
    )
    await session.mcp.start()
    try:
        [server] = session.mcp.servers
        assert (server.status, server.reason) == ("running", "")
        names = {d.name for d in mcp_tool_definitions_by_server(session.mcp)["demo"]}
        assert names == {"demo_big", "demo_echo", "demo_fail", "demo_wipe", "demo_die"}
        [row] = mcp_overview(session.mcp)
        assert row.tools == 5 and row.schema_tokens == tool_schema_tokens(server.tool_defs) > 0

        events = await collect(session.run_turn("use demo_big"))
        result = next(e for e in events if e.type == "tool_result")
        assert result.tool_name == "demo_big"
        # The 50 KB answer is kept whole (once capped at 16,000 chars); over the preview cap, the
        # model and the front ends get its head and tail, the transcript all of it.
        assert result.chars == 50_000 and "[capped" not in result.content
        assert "[…output too big to show whole: 50,000 chars" in result.content and len(result.content) < 3_500
        [sent] = returns_of(session.context, "demo_big")
        assert f'recall("{handle_of(sent)}") returns it whole' in str(sent.content) and len(str(sent.content)) < 3_500
        assert events[-1].type == "done" and not events[-1].failed

        events = await collect(session.run_turn("use demo_echo text=hello"))
        # A later turn over the budget: the old MCP output is trimmed in what the model sees, like
        # any tool output, with its banner; the transcript keeps it whole.
        trims = [e for e in events if e.type == "history_trimmed"]
        assert [t.strategy for t in trims] == ["tool_output_trim"]
        [old] = returns_of(session.context, "demo_big")
        assert len(str(old.content)) <= 2_200 and "truncated" in str(old.content)
        [kept] = returns_of(session.transcript, "demo_big")
        assert kept.content == big()
        [echo] = returns_of(session.context, "demo_echo")
        assert echo.content == "echo: hello"
    finally:
        await session.mcp.stop()
    assert server.status == "stopped"


async def test_a_failing_tool_is_a_failed_result_and_the_server_keeps_running(workspace) -> None:
    session = session_with(workspace, {"demo": demo_entry()})
    await session.mcp.start()
    try:
        events = await collect(session.run_turn("use demo_fail"))
        result = next(e for e in events if e.type == "tool_result")
        assert result.is_error and "failed on purpose" in result.content
        assert not events[-1].failed
        assert session.mcp.servers[0].status == "running"
        events = await collect(session.run_turn("use demo_echo text=again"))
        assert next(e for e in events if e.type == "tool_result").content == "echo: again"
    finally:
        await session.mcp.stop()


async def test_a_server_command_that_does_not_exist_fails_alone(workspace) -> None:
    changes = []
    session = session_with(workspace, {"ghost": {"command": "no-such-mcp-server-co-tui"}, "demo": demo_entry()})
    session.mcp.set_listener(lambda s: changes.append((s.name, s.status)))
    await session.mcp.start()
    try:
        ghost, demo = session.mcp.servers
        assert ghost.status == "failed" and "no-such-mcp-server-co-tui" in ghost.reason
        assert ghost.line().startswith("MCP server ghost failed: could not start:")
        assert ("ghost", "failed") in changes
        assert demo.status == "running"
        events = await collect(session.run_turn("use demo_echo text=still"))
        assert next(e for e in events if e.type == "tool_result").content == "echo: still"
        # The dead server's tools are not offered: the offline model says so.
        events = await collect(session.run_turn("use ghost_anything"))
        assert "no such tool" in events[-1].output
    finally:
        await session.mcp.stop()


async def test_a_server_that_exits_mid_call_is_one_failed_result_and_the_session_goes_on(workspace) -> None:
    changes = []
    session = session_with(workspace, {"demo": demo_entry()})
    session.mcp.set_listener(lambda s: changes.append(s.line()))
    await session.mcp.start()
    try:
        events = await collect(session.run_turn("use demo_die"))
        result = next(e for e in events if e.type == "tool_result")
        assert result.is_error and "MCP server demo failed" in result.content
        assert events[-1].type == "done" and not events[-1].failed
        server = session.mcp.servers[0]
        assert server.status == "failed" and "demo_die" in server.reason
        assert changes[-1].startswith("MCP server demo failed: it stopped during a call to demo_die")
        # The session goes on: workspace tools still work, the dead server offers nothing.
        events = await collect(session.run_turn("read hello.txt"))
        assert next(e for e in events if e.type == "tool_result").content.startswith("hello.txt")
        assert mcp_overview(session.mcp)[0].tools == 0
    finally:
        await session.mcp.stop()


async def test_mcp_approve_asks_the_approver_for_every_call(workspace) -> None:
    asked = []

    async def ask(request) -> str:
        asked.append((request.tool, request.text))
        assert request.tool_call_id and request.agent == "main", "the call and who asks are named"
        return "deny"

    settings = load_settings(mcp_servers={"demo": demo_entry()}, mcp_approve=["demo"])
    session = ChatSession(settings, workspace=workspace, ask=ask)
    await session.mcp.start()
    try:
        events = await collect(session.run_turn("use demo_echo text=hi"))
        result = next(e for e in events if e.type == "tool_result")
        assert asked == [("demo_echo", 'demo_echo {"text": "hi"}')]
        assert "declined" in result.content
        [part] = returns_of(session.context, "demo_echo")
        assert part.outcome == "denied"
    finally:
        await session.mcp.stop()


async def test_an_http_server_that_does_not_answer_fails_with_one_line(workspace) -> None:
    # Port 9 (discard) on the loopback: nothing listens, the connection is refused at once.
    session = session_with(workspace, {"web": {"url": "http://127.0.0.1:9/mcp"}})
    await session.mcp.start()
    try:
        [web] = session.mcp.servers
        assert web.status == "failed" and web.line().startswith("MCP server web failed: could not start:")
        assert "\n" not in web.line()
        events = await collect(session.run_turn("read hello.txt"))
        assert events[-1].type == "done" and not events[-1].failed
    finally:
        await session.mcp.stop()


async def test_context_breakdown_prices_each_running_servers_schemas(workspace) -> None:
    session = session_with(workspace, {"demo": demo_entry()})
    before = {row.label for row in session.context_breakdown().rows}
    assert "mcp: demo" not in before  # not running yet: its tools are not known
    await session.mcp.start()
    try:
        await collect(session.run_turn("hello"))
        b = session.context_breakdown()
        [row] = [r for r in b.rows if r.label == "mcp: demo"]
        [server] = session.mcp.servers
        assert row.key == "tool_schemas" and row.tokens > 0 and row.items == len(server.tool_defs) == 5
        assert b.total_tokens == session.meter_reading().context_tokens
    finally:
        await session.mcp.stop()


async def test_the_overhead_counts_a_servers_schemas_once_it_lists_its_tools(workspace) -> None:
    """Before the first provider report the meter adds the overhead hint to its estimate, and
    governance fits the history around the same figure: a running server's tool schemas are part of
    it (a starting one's are not known: the usage event says so), a failed server's are not."""
    plain = session_with(workspace, {})
    session = session_with(workspace, {"demo": demo_entry(), "ghost": {"command": "no-such-mcp-server-co-tui"}})
    assert session.binding.overhead == plain.binding.overhead
    assert session.meter_reading().mcp_starting == 2 and plain.meter_reading().mcp_starting == 0
    await session.mcp.start()
    try:
        demo, ghost = session.mcp.servers
        assert (demo.status, ghost.status) == ("running", "failed")
        schemas = tool_schema_tokens(demo.tool_defs)
        assert schemas > 100
        assert session.binding.overhead == plain.binding.overhead + schemas
        assert session.meter.overhead_hint == session.binding.overhead
        assert session.meter_reading().mcp_starting == 0
        # The estimate before the first report is what the offline "provider" then reports for the
        # same request (it counts the tools the agent really sent, the MCP ones included).
        prompt = ModelRequest(parts=[UserPromptPart("hello")])
        before = session.meter.reading([prompt]).tokens
        events = await collect(session.run_turn("hello"))
        assert events[-1].type == "done" and not events[-1].failed
        first = next(m for m in session.transcript if isinstance(m, ModelResponse))
        assert abs(first.usage.input_tokens - before) <= 5, (first.usage.input_tokens, before)
    finally:
        await session.mcp.stop()
    # Stopped: no tools are offered any more, none are counted.
    assert session.binding.overhead == plain.binding.overhead


async def test_a_death_is_explained_by_its_own_stderr_and_restart_brings_the_server_back(workspace) -> None:
    session = session_with(workspace, {"demo": demo_entry()})
    running = asyncio.Event()
    session.mcp.set_listener(lambda s: running.set() if s.status == "running" else None)
    await session.mcp.start()
    try:
        [server] = session.mcp.servers
        assert session.mcp.restart("demo") == "MCP server demo: restarting"  # a running one too
        running.clear()
        await running.wait()
        assert server.restarts == 1 and server.status == "running"
        await collect(session.run_turn("use demo_fail"))  # the server logs this error on stderr
        events = await collect(session.run_turn("use demo_die"))
        # Not the end of the earlier error's log ("… (Connection closed) (purpose')").
        assert server.reason == "it stopped during a call to demo_die (Connection closed)"
        assert next(e for e in events if e.type == "tool_result").content.endswith('(Connection closed)"}')
        running.clear()
        assert session.mcp.restart("demo") == "MCP server demo: restarting"
        await running.wait()
        assert server.restarts == 2 and server.reason == ""
        events = await collect(session.run_turn("use demo_echo text=back"))
        assert next(e for e in events if e.type == "tool_result").content == "echo: back"
        assert session.mcp.restart("nope") == "no MCP server is named 'nope' (servers: demo)"
        # /mcp lists each server's tools, the ones that ask first marked.
        [row] = mcp_overview(session.mcp)
        assert row.tool_names == ("demo_big", "demo_echo", "demo_fail", "demo_wipe", "demo_die")
        assert row.asks_first == ("demo_wipe",)
        assert "- demo: demo\\_big, demo\\_echo, demo\\_fail, demo\\_wipe ⚠, demo\\_die" in mcp_markdown([row])
    finally:
        await session.mcp.stop()
    assert session.mcp.restart("demo") == "MCP server demo cannot be restarted now (stopped)"
