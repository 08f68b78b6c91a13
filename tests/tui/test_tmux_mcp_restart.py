"""`/mcp restart NAME` in a real terminal: the real `co-tui` in tmux, the demo stdio MCP server
(tests/mcp_servers/demo_server.py) made to die mid-call, then started again by a typed command,
each line sent in one burst as a fast typist would (issue 32, item 8)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from pilot_helpers import Tmux, poll_until

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"
DEMO = ROOT / "tests" / "mcp_servers" / "demo_server.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]


def test_a_dead_server_is_started_again_by_a_typed_command(tmp_path: Path) -> None:
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    # The demo server, writing its pid first: the session is ready once it starts (and a restart is
    # a new process).
    pid_file = tmp_path / "server.pid"
    start = (
        f"import os, runpy, sys; open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
        f"sys.argv = [{str(DEMO)!r}]; runpy.run_path({str(DEMO)!r}, run_name='__main__')"
    )
    config = tmp_path / "config.toml"
    config.write_text(
        f"[mcp_servers.demo]\ncommand = {json.dumps(sys.executable)}\nargs = ['-c', {json.dumps(start)}]\n"
    )
    tmux = Tmux(f"mcprestart-{tmp_path.name}")
    done = tmux.start_co_tui(CO_TUI, tmp_path, data=data, config=config, cwd=ws)
    try:
        tmux.wait_for("Ask anything")
        poll_until(lambda: pid_file.exists() and pid_file.read_text(), "the server's pid")
        first_pid = pid_file.read_text()
        tmux.submit("/mcp")
        tmux.wait_for("demo_echo")  # the open list shows the server's tools once it runs
        tmux("send-keys", "-t", "t", "Escape")
        tmux.wait_for("MCP servers", gone=True)
        tmux.submit("use demo_die")
        tmux.wait_for("MCP server demo failed: it stopped during a call to demo_die")
        tmux.submit("/mcp restart demo")
        tmux.wait_for("MCP server demo: running, 5 tools")
        assert pid_file.read_text() != first_pid  # a new process
        tmux.submit("use demo_echo text=back-again")
        tmux.wait_for("echo: back-again")
        tmux("send-keys", "-t", "t", "C-q")
        poll_until(done.exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
        assert done.read_text().strip() == "0"
    finally:
        tmux("kill-server")
