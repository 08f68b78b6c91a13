"""Quitting while an MCP server is busy in a tool call: co-tui closes the server and exits, instead
of waiting for the call to end (a walk-through found Ctrl+Q and SIGTERM held co-tui open, on a blank
screen, until the server answered: forever for a hung one). The real `co-tui` in tmux, a real stdio
MCP server process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest
from pilot_helpers import Tmux, poll_until
from support.processes import alive, children

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]

# A server whose one tool blocks for an hour; it writes its pid so the test can see it end.
SERVER = '''
import os, sys, time
from mcp.server.mcpserver import MCPServer

server = MCPServer("hang")

@server.tool()
def block() -> str:
    """Block for an hour."""
    time.sleep(3600)
    return "done"

open(sys.argv[1], "w").write(str(os.getpid()))
server.run()
'''


@pytest.mark.parametrize("how", ["ctrl+q", "sigterm"])
def test_quitting_during_a_hung_mcp_call_closes_the_server_and_exits(tmp_path: Path, how: str) -> None:
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    server, pid_file = tmp_path / "hang_server.py", tmp_path / "server.pid"
    server.write_text(SERVER)
    config = tmp_path / "config.toml"
    config.write_text(
        f"[mcp_servers.hang]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(server))}, {json.dumps(str(pid_file))}]\n"
    )
    tmux = Tmux(f"quitmcp-{tmp_path.name}")
    done = tmux.start_co_tui(CO_TUI, tmp_path, data=data, config=config, cwd=ws)
    server_pid = 0
    try:
        tmux.wait_for("Ask anything")
        poll_until(pid_file.exists, "the server's pid")
        tmux.submit("/mcp")
        tmux.wait_for("running")  # the server is up and its tool is offered
        tmux("send-keys", "-t", "t", "Escape")
        tmux.wait_for("MCP servers", gone=True)
        server_pid = int(pid_file.read_text())
        tmux("send-keys", "-t", "t", "-l", "use hang_block")
        tmux("send-keys", "-t", "t", "Enter")
        tmux.wait_for("running hang_block")
        if how == "ctrl+q":
            tmux("send-keys", "-t", "t", "C-q")
        else:
            shell = int(tmux("display", "-p", "-t", "t", "#{pane_pid}").strip())
            [co_tui] = children(shell)
            os.kill(co_tui, signal.SIGTERM)
        # The call would block for an hour: exiting at all means co-tui did not wait for it.
        poll_until(done.exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
        assert done.read_text().strip() == "0"
        poll_until(lambda: not alive(server_pid), "the MCP server process to end")
    finally:
        tmux("kill-server")
        if server_pid and alive(server_pid):
            os.kill(server_pid, signal.SIGKILL)
