"""`co-tui acp` on raw stdio: only JSON-RPC on stdout, a malformed request answered with an error
while the server lives on, and a client closing stdin ends the process with its session saved."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_process import ROOT

from co_tui.config import load_settings
from co_tui.session import open_store

pytestmark = pytest.mark.slow  # each test starts a real co-tui or Python process


class Raw:
    """`co-tui acp` as a subprocess spoken to line by line."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[dict[str, Any]] = []

    async def send(self, payload: Any) -> None:
        line = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        await self.process.stdin.drain()

    async def answer(self, request_id: int) -> dict[str, Any]:
        """The response to `request_id` (every line on stdout must be JSON: it is parsed)."""
        assert self.process.stdout is not None
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), 60)
            assert line, "stdout closed before the answer"
            message = json.loads(line)  # nothing but protocol on stdout
            self.lines.append(message)
            if message.get("id") == request_id and "method" not in message:
                return message


async def _start(workspace: Path) -> Raw:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "co_tui",
        "acp",
        cwd=workspace,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    return Raw(process)


def _request(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


async def test_a_malformed_request_gets_a_json_rpc_error_and_the_server_lives_on(workspace: Path) -> None:
    raw = await _start(workspace)
    try:
        await raw.send(_request(1, "session/prompt", {"prompt": "not a list"}))
        bad = await raw.answer(1)
        assert bad["error"]["code"] == -32602, bad  # invalid params: no session id, a prompt not a list
        await raw.send(_request(2, "session/nonsense", {}))
        assert (await raw.answer(2))["error"]["code"] == -32601  # method not found
        await raw.send(b"{this is not json")
        await raw.send(_request(3, "initialize", {"protocolVersion": 1}))
        good = await raw.answer(3)
        assert good["result"]["agentInfo"]["name"] == "co-tui", "it answers after all of them"
        assert raw.process.stdin is not None
        raw.process.stdin.close()
        await asyncio.wait_for(raw.process.wait(), 30)
        assert raw.process.stderr is not None
        said = (await raw.process.stderr.read()).decode()
        assert "Traceback" not in said, said
    finally:
        if raw.process.returncode is None:
            raw.process.kill()
            await raw.process.wait()


async def test_closing_stdin_ends_the_process_and_the_session_is_saved(workspace: Path) -> None:
    raw = await _start(workspace)
    await raw.send(_request(1, "initialize", {"protocolVersion": 1}))
    await raw.answer(1)
    await raw.send(_request(2, "session/new", {"cwd": str(workspace), "mcpServers": []}))
    session_id = (await raw.answer(2))["result"]["sessionId"]
    prompt = {"sessionId": session_id, "prompt": [{"type": "text", "text": "read README.md"}]}
    await raw.send(_request(3, "session/prompt", prompt))
    assert (await raw.answer(3))["result"]["stopReason"] == "end_turn"
    assert raw.process.stdin is not None
    raw.process.stdin.close()
    # The condition: the process ends on its own (the bound only fails a hung one).
    code = await asyncio.wait_for(raw.process.wait(), 30)
    assert code == 0
    assert raw.process.stdout is not None
    rest = await raw.process.stdout.read()
    assert all(json.loads(line) for line in rest.splitlines() if line.strip()), "only protocol on stdout"
    store = open_store(load_settings())
    try:
        [meta] = store.list_sessions(workspace)
        assert meta.id == session_id and meta.title == "read README.md" and meta.messages >= 4
    finally:
        store.close()


def test_co_tui_does_not_import_the_acp_sdk_unless_asked() -> None:
    from cli_process import run_python

    code = "import sys, co_tui.cli; print('acp' in sys.modules, 'co_tui.acp' in sys.modules)"
    proc = run_python(code)
    assert proc.stdout.split() == ["False", "False"], proc.stderr
