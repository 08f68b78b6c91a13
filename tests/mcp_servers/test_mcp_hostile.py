"""Hostile MCP servers (tests/mcp_servers/hostile_server.py, real processes): clashing and bad tool
names, secrets on stderr, bytes that are not UTF-8, lines that are not JSON, floods. Each case leaves
one line for the user and a session that keeps working."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from pilot_helpers import poll_until
from support.turns import collect

from co_tui.agent.mcp_config import load_mcp_servers
from co_tui.agent.mcp_servers import mcp_overview
from co_tui.config import load_settings
from co_tui.redaction import secret_env_values
from co_tui.session.chat import ChatSession
from co_tui.tui.screens.mcp import mcp_markdown
from mcp_servers.conftest import hostile_entry
from mcp_servers.test_mcp_config import co_tui, write_config

pytestmark = pytest.mark.slow

HANG_GUARD_S = 120  # not a speed target: before the fix these calls waited 300 s (the SDK's timeout)


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
        assert "- read: 'file' \\(read\\_file is already" in mcp_markdown(list(rows.values()))
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


async def test_a_dying_servers_stderr_and_configured_secrets_are_redacted(workspace: Path) -> None:
    token = "sk-hostile-4242424242"
    session = ChatSession(load_settings(mcp_servers={"h": hostile_entry(HOSTILE_TOKEN=token)}), workspace=workspace)
    await session.mcp.start()
    try:
        events = await collect(session.run_turn("use h_dying"))
        result = result_of(events)
        [server] = session.mcp.servers
        # The last words are shown (why it died), the value co-tui gave the server is not.
        assert result.is_error and "dying: token=[redacted]" in result.content
        assert token not in result.content and token not in server.reason and token not in server.line()
        assert token in secret_env_values()  # and so the store and exports redact it too
    finally:
        await session.mcp.stop()


def test_print_mode_keeps_a_servers_secret_out_of_output_and_database(workspace: Path) -> None:
    token = "sk-hostile-print-777777777"
    entry = hostile_entry(HOSTILE_TOKEN=token)
    data = Path(os.environ["CO_TUI_DATA_DIR"])
    write_config(
        f"[mcp_servers.h]\ncommand = {json.dumps(entry['command'])}\n"
        f"args = {json.dumps(entry['args'])}\nenv = {{ HOSTILE_TOKEN = {json.dumps(token)} }}\n"
    )
    proc = co_tui("-p", "use h_dying", "--output-format", "jsonl", cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    [result] = [e for e in map(json.loads, proc.stdout.splitlines()) if e["type"] == "tool_result"]
    assert "dying: token=[redacted]" in result["content"]
    assert token not in proc.stdout and token not in proc.stderr
    stored = b"".join(p.read_bytes() for p in data.rglob("*") if p.is_file())
    assert b"dying: token=[redacted]" in stored and token.encode() not in stored


def test_configured_headers_are_secrets(workspace: Path) -> None:
    load_mcp_servers(
        load_settings(
            mcp_servers={"web": {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": "Bearer hdr-secret-31337"}}}
        ),
        workspace,
    )
    assert {"Bearer hdr-secret-31337", "hdr-secret-31337"} <= set(secret_env_values())


def test_a_plain_word_or_an_existing_path_given_to_a_server_is_not_treated_as_a_secret(workspace: Path) -> None:
    env = {"MODE": "production", "ROOT": str(workspace), "DSN": "postgres://u:pw-4242@db/x"}
    load_mcp_servers(load_settings(mcp_servers={"x": {"command": "true", "env": env}}), workspace)
    secrets = set(secret_env_values())
    assert "postgres://u:pw-4242@db/x" in secrets
    assert "production" not in secrets and str(workspace) not in secrets


async def test_bytes_that_are_not_utf8_end_the_call_at_once(workspace: Path) -> None:
    session = ChatSession(load_settings(mcp_servers={"h": hostile_entry()}), workspace=workspace)
    await session.mcp.start()
    try:
        [server] = session.mcp.servers
        # Inside a message's text: decoded with replacement characters, the call answers.
        events = await asyncio.wait_for(collect(session.run_turn("use h_badutf8")), HANG_GUARD_S)
        assert result_of(events).content == "bad \ufffd\ufffd bytes" and server.status == "running"
        # Not a message at all: the server is failed with why, and the call ends with it.
        events = await asyncio.wait_for(collect(session.run_turn("use h_brokenjson")), HANG_GUARD_S)
        result = result_of(events)
        assert result.is_error and "it sent a malformed message ('\ufffd\ufffd{not json')" in result.content
        assert server.status == "failed" and not events[-1].failed
    finally:
        await session.mcp.stop()


async def test_a_call_with_no_answer_ends_after_the_configured_timeout(workspace: Path) -> None:
    # 2 s, not less: the same limit holds the echo after it, which a loaded host must answer in time.
    settings = load_settings(mcp_servers={"h": hostile_entry()}, mcp_call_timeout_s=2.0)
    session = ChatSession(settings, workspace=workspace)
    await session.mcp.start()
    try:
        events = await collect(session.run_turn("use h_silent"))
        result = result_of(events)
        assert result.is_error and "MCP server h: no answer from h_silent in 2 s (mcp_call_timeout_s)" in result.content
        events = await collect(session.run_turn("use h_echo text=after"))
        assert result_of(events).content == "echo: after"
    finally:
        await session.mcp.stop()


def test_a_stray_stdout_line_is_no_traceback_in_print_mode(workspace: Path) -> None:
    entry = hostile_entry()
    write_config(f"[mcp_servers.h]\ncommand = {json.dumps(entry['command'])}\nargs = {json.dumps(entry['args'])}\n")
    proc = co_tui("-p", "use h_chatty", "--output-format", "jsonl", cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert any(json.loads(line).get("content") == "ok" for line in proc.stdout.splitlines())
    assert proc.stderr == (
        "co-tui: MCP server h printed a line on stdout that is not MCP, skipped: 'a plain line a library printed'\n"
    )


async def test_an_answer_over_the_cap_is_not_read_and_the_server_goes_on(workspace: Path) -> None:
    entry = hostile_entry(HOSTILE_HUGE_MB="20")
    session = ChatSession(load_settings(mcp_servers={"h": entry}), workspace=workspace)
    await session.mcp.start()
    try:
        events = await collect(session.run_turn("use h_huge"))
        result = result_of(events)
        assert result.is_error
        assert json.loads(result.content) == {
            "error": "MCP server h: its answer is over co-tui's 8 MB cap and was not read"
        }
        events = await collect(session.run_turn("use h_echo text=still"))
        assert result_of(events).content == "echo: still" and session.mcp.servers[0].status == "running"
    finally:
        await session.mcp.stop()


async def test_a_stderr_flood_keeps_only_a_tail(workspace: Path) -> None:
    entry = hostile_entry(HOSTILE_FLOOD_MB="20")
    session = ChatSession(load_settings(mcp_servers={"h": entry}), workspace=workspace)
    await session.mcp.start()
    try:
        events = await collect(session.run_turn("use h_flood"))
        assert result_of(events).content == "flooded"
        [server] = session.mcp.servers
        assert server.last_stderr_line().startswith("flood flood")
        from co_tui.agent.mcp_stdio import STDERR_TAIL_BYTES

        assert server.stderr.total >= 19_000_000 and len(server.stderr._tail) <= STDERR_TAIL_BYTES
    finally:
        await session.mcp.stop()
    # Stopped: the pipe is closed and its reader thread ends (it closes the read end itself).
    poll_until(lambda: server.stderr._read_fd == -1, "the stderr reader to end")


def _chunks(data: bytes, size: int) -> AsyncIterator[bytes]:
    async def gen() -> AsyncIterator[bytes]:
        for i in range(0, len(data), size):
            yield data[i : i + size]

    return gen()


async def _read_all(data: bytes, cap: int, size: int = 7) -> tuple[list, list[str], list[str]]:
    from co_tui.agent.mcp_stdio import read_messages

    to_session, from_reader = anyio.create_memory_object_stream[Any](100)
    ended: list[str] = []
    strays: list[str] = []
    await read_messages(_chunks(data, size), to_session, cap, ended.append, strays.append)
    return _drain(from_reader), ended, strays


def _drain(stream) -> list:
    out = []
    with stream:
        while True:
            try:
                out.append(stream.receive_nowait().message)
            except (anyio.WouldBlock, anyio.EndOfStream):
                return out


async def test_the_reader_splits_lines_across_chunks_and_answers_oversized_ones_by_id() -> None:
    ok = b'{"jsonrpc": "2.0", "id": 1, "result": {}}\n'
    python_big = b'{"jsonrpc": "2.0", "id": 2, "result": {"t": "' + b"x" * 500 + b'"}}\n'
    typescript_big = b'{"result": {"t": "' + b"y" * 500 + b'"}, "jsonrpc": "2.0", "id": "abc"}\n'
    messages, ended, strays = await _read_all(ok + b"a stray print\n" + python_big + typescript_big + ok, cap=200)
    assert ended == [] and strays == ["'a stray print'"]
    assert [m.id for m in messages] == [1, 2, "abc", 1]
    from co_tui.agent.mcp_stdio import OVERSIZED

    assert messages[1].error.code == OVERSIZED and "cap" in messages[1].error.message
    # No id to be found: the connection ends, with the reason.
    messages, ended, _ = await _read_all(b'{"result": "' + b"z" * 500 + b'"}\n' + ok, cap=200)
    assert messages == [] and ended == ["it sent a message over co-tui's 0.0002 MB cap, not read"]


async def test_a_restart_that_fails_is_not_explained_by_the_previous_process(workspace: Path) -> None:
    broken = workspace / "broken"
    entry = hostile_entry(HOSTILE_TOKEN="sk-hostile-restart-99999", HOSTILE_EXIT_IF=str(broken))
    session = ChatSession(load_settings(mcp_servers={"h": entry}), workspace=workspace)
    settled = asyncio.Event()
    session.mcp.set_listener(lambda s: settled.set() if s.status in ("running", "failed") else None)
    await session.mcp.start()
    try:
        [server] = session.mcp.servers
        await collect(session.run_turn("use h_dying"))
        assert server.reason.endswith("(dying: token=[redacted])")
        broken.touch()
        settled.clear()
        assert session.mcp.restart("h") == "MCP server h: restarting"
        await settled.wait()
        assert server.status == "failed" and server.reason.startswith("could not start")
        assert "dying" not in server.reason
    finally:
        await session.mcp.stop()


async def test_a_reader_that_fails_ends_the_connection_with_why() -> None:
    async def broken() -> AsyncIterator[bytes]:
        yield b'{"jsonrpc": "2.0", "id": 1, "result": {}}\n'
        raise RuntimeError("a bug")

    from co_tui.agent.mcp_stdio import read_messages

    to_session, from_reader = anyio.create_memory_object_stream[Any](10)
    ended: list[str] = []
    await read_messages(broken(), to_session, 1000, ended.append)
    assert [m.id for m in _drain(from_reader)] == [1]
    assert ended == ["co-tui could not read its output (RuntimeError: a bug)"]


def test_two_thousand_tools_are_said_in_print_mode_with_what_is_sent(workspace: Path) -> None:
    """2,000 MCP tools made every request ~74k schema tokens against a 32k window, and print mode
    said nothing (issue 40, item 14): one line on stderr, before the turn, says how many tools,
    from which server, how many tokens and what share of the window."""
    entry = hostile_entry(*(f"tool_{i:04d}" for i in range(2000)))
    write_config(f"[mcp_servers.big]\ncommand = {json.dumps(entry['command'])}\nargs = {json.dumps(entry['args'])}\n")
    proc = co_tui("-p", "hello", cwd=workspace)
    lines = proc.stderr.splitlines()
    # Over the offline model's 32k window, the prompt is then refused: the line said first says why.
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "over the model's context window" in lines[-1]
    [line] = [line for line in lines[:-1] if "MCP tool schemas" in line]
    assert (
        line.startswith("co-tui: MCP tool schemas take ~")
        and "sent with every request: 2,000 tools (big 2,000)" in line
    )
    assert "% of the context window" in line and "remove servers you do not need" in line


def test_a_few_tools_say_nothing() -> None:
    from types import SimpleNamespace

    from co_tui.session import tool_schemas_warning
    from co_tui.session.events import UsageUpdate

    tool = SimpleNamespace(name="t", description="d", parameters_json_schema={"type": "object"})
    few = [SimpleNamespace(name="small", tool_defs=[tool] * 3)]
    many = [SimpleNamespace(name="big", tool_defs=[tool] * 3000)]
    reading = UsageUpdate(
        input_tokens=0,
        output_tokens=0,
        context_tokens=0,
        budget_tokens=25_600,
        messages=0,
        max_messages=0,
        window_tokens=32_000,
    )
    assert tool_schemas_warning(few, reading) is None
    line = tool_schemas_warning(many, reading)
    assert line is not None and "3,000 tools (big 3,000)" in line and "of the context window (32k)" in line
