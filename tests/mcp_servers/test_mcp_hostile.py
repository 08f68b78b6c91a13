"""Hostile MCP servers (tests/mcp_servers/hostile_server.py, real processes): clashing and bad tool
names, secrets on stderr, bytes that are not UTF-8, lines that are not JSON, floods. Each case leaves
one line for the user and a session that keeps working."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from co_tui.agent.mcp_servers import mcp_overview
from co_tui.config import load_settings
from co_tui.session.chat import ChatSession
from co_tui.tui.screens.mcp import mcp_markdown
from mcp_servers.conftest import hostile_entry
from mcp_servers.test_mcp_config import co_tui, write_config

pytestmark = pytest.mark.slow


async def collect(aiter) -> list:
    return [event async for event in aiter]


def result_of(events: list):
    return next(e for e in events if e.type == "tool_result")


async def test_tool_names_that_clash_are_left_out_with_one_line_and_the_rest_works(workspace: Path) -> None:
    # `read` + `file` is the workspace's read_file; `a` + `b_c` and `a_b` + `c` are both a_b_c.
    servers = {"read": hostile_entry("file", "echo"), "a": hostile_entry("b_c"), "a_b": hostile_entry("c")}
    session = ChatSession(load_settings(mcp_servers=servers), workspace=workspace)
    await session.mcp.start()
    try:
        read, a, a_b = session.mcp.servers
        assert [d.name for d in read.tool_defs] == ["read_echo"]
        assert read.left_out_line() == (
            "MCP server read: 1 tool left out: 'file' (read_file is already a name of a workspace tool)"
        )
        # Whichever of `a` and `a_b` listed first keeps a_b_c; the other leaves it out, with one line.
        owners = [s for s in (a, a_b) if s.tool_defs]
        [loser] = [s for s in (a, a_b) if s.left_out]
        assert [d.name for s in owners for d in s.tool_defs] == ["a_b_c"] and loser not in owners
        assert loser.left_out_line().endswith(f"(a_b_c is already a name of MCP server {owners[0].name})")
        # Every turn works: the workspace tool is the workspace's, the server's other tool is offered.
        events = await collect(session.run_turn("read hello.txt"))
        assert result_of(events).content.startswith("hello.txt") and not events[-1].failed
        events = await collect(session.run_turn("use read_echo text=hi"))
        assert result_of(events).content == "echo: hi" and not events[-1].failed
        events = await collect(session.run_turn("use a_b_c text=one"))
        assert result_of(events).content == "echo: one" and not events[-1].failed
        rows = {row.name: row for row in mcp_overview(session.mcp)}
        assert rows["read"].tools == 1 and rows["read"].left_out == tuple(read.left_out)
        assert "read: left out 'file' \\(read\\_file is already" in mcp_markdown(list(rows.values()))
    finally:
        await session.mcp.stop()


async def test_tool_names_outside_the_provider_alphabet_are_left_out(workspace: Path) -> None:
    names = ["fine", "new\nline", "esc\x1b]0;pwned\x07", "dot.ted", "x" * 70]
    session = ChatSession(load_settings(mcp_servers={"h": hostile_entry(*names)}), workspace=workspace)
    await session.mcp.start()
    try:
        [server] = session.mcp.servers
        assert server.status == "running" and [d.name for d in server.tool_defs] == ["h_fine"]
        line = server.left_out_line()
        assert line.startswith("MCP server h: 4 tools left out: 'new\\nline' (a tool name is 1-64 letters")
        assert "'esc\\x1b]0;pwned\\x07'" in line and "'dot.ted'" in line
        assert "\n" not in line and "\x1b" not in line and "\x07" not in line
        events = await collect(session.run_turn("use h_fine text=ok"))
        assert result_of(events).content == "echo: ok" and not events[-1].failed
    finally:
        await session.mcp.stop()


def test_print_mode_answers_despite_a_clash_and_says_so_in_one_line(workspace: Path) -> None:
    entry = hostile_entry("file", "echo")
    write_config(f"[mcp_servers.read]\ncommand = {json.dumps(entry['command'])}\nargs = {json.dumps(entry['args'])}\n")
    proc = co_tui("-p", "use read_echo text=hello", "--output-format", "jsonl", cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert any(json.loads(line).get("content") == "echo: hello" for line in proc.stdout.splitlines())
    assert "co-tui: MCP server read: 1 tool left out: 'file' (read_file is already" in proc.stderr
    assert "conflicts" not in proc.stderr and "Traceback" not in proc.stderr
