"""`/mcp` opened while a server is still starting shows it running once it runs (a walk-through found
the list frozen on `starting` until closed and opened again). The real app and session, a real
stdio server that starts only when the test says so."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from pilot_helpers import wait_until

from co_tui.config import load_settings
from co_tui.tui.screens.mcp import McpScreen

pytestmark = pytest.mark.slow

# Serves only once the file named by argv[1] exists: until then co-tui sees the server starting.
SERVER = """
import sys, time
from pathlib import Path
from mcp.server.mcpserver import MCPServer

server = MCPServer("gate")

@server.tool()
def ping() -> str:
    \"\"\"Answer pong.\"\"\"
    return "pong"

while not Path(sys.argv[1]).exists():  # the scenario: it waits for the test's go file, not for time
    time.sleep(0.05)
server.run()
"""


async def test_the_open_list_shows_a_server_that_started_after_it_opened(workspace: Path, tmp_path: Path) -> None:
    from quiet_app import QuietApp

    server, go = tmp_path / "gate_server.py", tmp_path / "go"
    server.write_text(SERVER)
    Path(os.environ["CO_TUI_CONFIG_FILE"]).write_text(
        f"[mcp_servers.gate]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(server))}, {json.dumps(str(go))}]\n"
    )
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: app.session is not None and app.session.mcp.servers, what="session ready")
        [gate] = app.session.mcp.servers
        assert gate.status == "starting"  # it waits for the go file
        await pilot.press(*"/mcp", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, McpScreen), what="/mcp screen")
        assert "| gate | starting | 0 |" in app.screen.query_one("#mcp-text").source
        go.touch()
        await wait_until(pilot, lambda: gate.status == "running", what="server running")
        await wait_until(
            pilot, lambda: "| gate | running | 1 |" in app.screen.query_one("#mcp-text").source, what="list redrawn"
        )
