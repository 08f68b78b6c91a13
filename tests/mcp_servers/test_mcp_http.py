"""Streamable-HTTP MCP answers are read under the stdio reader's cap (co_tui/agent/mcp_http.py), with
a real server process on 127.0.0.1 (tests/mcp_servers/hostile_http_server.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from support.turns import collect

from co_tui.agent.mcp_http import CappedBody
from co_tui.agent.mcp_stdio import OVERSIZED
from co_tui.config import load_settings
from co_tui.session.chat import ChatSession

pytestmark = pytest.mark.slow

HOSTILE_HTTP_SERVER = Path(__file__).with_name("hostile_http_server.py")
HUGE_MB = 30
OVER_THE_CAP = {"error": "MCP server h: its answer is over co-tui's 8 MB cap and was not read"}


class HttpServer:
    """The hostile HTTP server's process: its URL, and what it says on stderr once stopped."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(HOSTILE_HTTP_SERVER)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "HOSTILE_HUGE_MB": str(HUGE_MB)},
        )
        assert self.process.stdout is not None
        port = self.process.stdout.readline().split()[-1]  # `PORT <n>`, printed once it listens
        self.url = f"http://127.0.0.1:{port}/mcp"

    def stop(self) -> list[int]:
        """Stop it; the bytes each of its answers sent before the client stopped reading."""
        self.process.terminate()
        _out, err = self.process.communicate(timeout=30)
        return [int(line.split()[1]) for line in err.splitlines() if line.startswith("sent ")]


@pytest.fixture
def http_server() -> Iterator[HttpServer]:
    server = HttpServer()
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.stop()


def result_of(events: list[Any]) -> Any:
    return next(e for e in events if e.type == "tool_result")


@pytest.mark.parametrize("tool", ["huge", "hugesse"])
async def test_an_http_answer_over_the_cap_is_not_read_and_the_server_goes_on(
    workspace: Path, http_server: HttpServer, tool: str
) -> None:
    session = ChatSession(load_settings(mcp_servers={"h": {"url": http_server.url}}), workspace=workspace)
    await session.mcp.start()
    try:
        assert session.mcp.servers[0].status == "running"
        result = result_of(await collect(session.run_turn(f"use h_{tool}")))
        assert result.is_error and json.loads(result.content) == OVER_THE_CAP  # as a stdio server's
        events = await collect(session.run_turn("use h_echo text=still"))
        assert result_of(events).content == "echo: still" and session.mcp.servers[0].status == "running"
    finally:
        await session.mcp.stop()
    sent = http_server.stop()
    # The 30 MB answer was not read to its end: the connection closed a few MB past the cap.
    assert max(sent) < HUGE_MB * 1_000_000


async def test_an_http_answer_sent_compressed_is_not_read(workspace: Path, http_server: HttpServer) -> None:
    session = ChatSession(load_settings(mcp_servers={"h": {"url": http_server.url}}), workspace=workspace)
    await session.mcp.start()
    try:
        result = result_of(await collect(session.run_turn("use h_gzipped")))
        assert result.is_error and json.loads(result.content) == {
            "error": "MCP server h: it came compressed, which co-tui did not ask for, and was not read"
        }
        assert result_of(await collect(session.run_turn("use h_echo text=ok"))).content == "echo: ok"
    finally:
        await session.mcp.stop()


class Chunks(httpx2.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.closed = False

    async def __aiter__(self) -> Any:
        for chunk in self.chunks:
            yield chunk

    async def aclose(self) -> None:
        self.closed = True


async def read(body: CappedBody) -> list[bytes]:
    return [part async for part in body]


async def test_events_split_across_chunks_pass_whole_and_one_over_the_cap_is_answered_by_its_id() -> None:
    events = [b'event: message\ndata: {"a": 1}\n\n', b'data: {"b": 2}\r\n\r\n']
    stream = b"".join(events) + b'data: {"jsonrpc": "2.0", "id": 7, "result": "' + b"x" * 500
    # Split at every few bytes: event ends fall across chunks.
    chunks = [stream[i : i + 3] for i in range(0, len(stream), 3)]
    parts = await read(CappedBody(Chunks(chunks), 200, request_id=None, events=True, compressed=False))
    assert parts[:2] == events
    assert parts[2].startswith(b"event: message\ndata: ") and parts[2].endswith(b"\n\n")
    error = json.loads(parts[2].split(b"data: ", 1)[1])
    assert error["id"] == 7 and error["error"]["code"] == OVERSIZED and len(parts) == 3
