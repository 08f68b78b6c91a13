"""MCP servers in the TUI with real parts: the real app and session, a real stdio server
(tests/mcp_servers/demo_server.py) and a command that does not exist."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from pilot_helpers import dialog_armed, paste, wait_until

from co_tui.agent.factory import tool_schema_tokens
from co_tui.config import load_settings
from co_tui.tui.screens.approval import ApprovalDialog
from co_tui.tui.screens.mcp import McpScreen
from co_tui.tui.widgets.notice_line import NoticeLine

pytestmark = pytest.mark.slow

DEMO = Path(__file__).resolve().parents[1] / "mcp_servers" / "demo_server.py"


def notices(app) -> list[str]:
    return [str(w.content) for w in app.chat.query(NoticeLine)]


def tool_results(app) -> list[str]:
    session = app.session
    return [str(p.content) for m in session.transcript for p in m.parts if getattr(p, "part_kind", "") == "tool-return"]


async def test_servers_start_after_the_session_and_failures_are_one_line(workspace: Path) -> None:
    from quiet_app import QuietApp

    Path(os.environ["CO_TUI_CONFIG_FILE"]).write_text(
        f"[mcp_servers.demo]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(DEMO))}]\n\n"
        '[mcp_servers.ghost]\ncommand = "no-such-mcp-server-co-tui"\n'
    )
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: app.session is not None, what="session ready")
        servers = app.session.mcp
        await wait_until(pilot, lambda: all(s.status != "starting" for s in servers.servers), what="servers started")
        demo, ghost = servers.servers
        assert demo.status == "running" and ghost.status == "failed"
        # The meter counts the running server's schemas now, and no longer says they are missing.
        await wait_until(pilot, lambda: app.chat.meter.reading.mcp_starting == 0, what="meter redrawn")
        assert app.session.binding.overhead == app.session.meter.overhead_hint > tool_schema_tokens(demo.tool_defs)
        await wait_until(pilot, lambda: any("MCP server ghost failed" in n for n in notices(app)), what="notice")
        [line] = [n for n in notices(app) if "ghost" in n]
        assert "no-such-mcp-server-co-tui" in line and "\n" not in line

        await pilot.press(*"/mcp", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, McpScreen), what="/mcp screen")
        source = app.screen.query_one("#mcp-text").source
        assert "| demo | running | 5 |" in source and "| ghost | failed | 0 |" in source
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, McpScreen), what="/mcp closed")

        # A destructive tool asks, through the run_shell dialog.
        await paste(pilot, "use demo_wipe path=notes.txt")
        await pilot.press("enter")
        await dialog_armed(pilot, "ApprovalDialog")
        assert app.screen.tool == "demo_wipe"
        assert str(app.screen.query_one("#dialog-title").content) == "Call this MCP tool?"
        await pilot.press("y")
        await wait_until(pilot, lambda: "wiped notes.txt" in tool_results(app), what="the approved call")
        await wait_until(pilot, lambda: not app.busy, what="turn finished")
        # Long after the servers settled (a whole turn later): the failure was still said once.
        assert sum("ghost" in n for n in notices(app)) == 1


async def test_mcp_restart_brings_a_failed_server_back(workspace: Path) -> None:
    from quiet_app import QuietApp

    Path(os.environ["CO_TUI_CONFIG_FILE"]).write_text(
        f"[mcp_servers.demo]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(DEMO))}]\n"
    )
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: app.session is not None and app.session.mcp.servers, what="session ready")
        [demo] = app.session.mcp.servers
        await wait_until(pilot, lambda: demo.status == "running", what="server running")
        await paste(pilot, "use demo_die")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("MCP server demo failed" in n for n in notices(app)), what="failure")
        await wait_until(pilot, lambda: not app.busy, what="turn finished")
        await pilot.press(*"/mcp restart", "enter")
        hint = app.chat.query_one("#hint")
        await wait_until(pilot, lambda: "usage: /mcp, or /mcp restart NAME" in str(hint.content), what="usage")
        await pilot.press(*"/mcp restart demo", "enter")
        await wait_until(pilot, lambda: "MCP server demo: restarting" in notices(app), what="restarting")
        await wait_until(pilot, lambda: "MCP server demo: running, 5 tools" in notices(app), what="running again")
        await paste(pilot, "use demo_echo text=back")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "echo: back" in tool_results(app), what="a call after the restart")


async def test_a_stray_stdout_line_is_one_notice_per_connection(workspace: Path) -> None:
    from quiet_app import QuietApp

    hostile = Path(__file__).resolve().parents[1] / "mcp_servers" / "hostile_server.py"
    Path(os.environ["CO_TUI_CONFIG_FILE"]).write_text(
        f"[mcp_servers.h]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(hostile))}]\n"
    )
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: app.session is not None and app.session.mcp.servers, what="session ready")
        [h] = app.session.mcp.servers
        await wait_until(pilot, lambda: h.status == "running", what="server running")
        for n in (1, 2):
            await paste(pilot, "use h_chatty")
            await pilot.press("enter")
            await wait_until(pilot, lambda n=n: tool_results(app).count("ok") == n, what=f"answer {n}")
            await wait_until(pilot, lambda: not app.busy, what="turn finished")
            await wait_until(pilot, lambda: any("not MCP" in line for line in notices(app)), what="the notice")
        said = [line for line in notices(app) if "not MCP" in line]
        assert said == [
            "MCP server h printed a line on stdout that is not MCP, skipped: 'a plain line a library printed'"
        ]
        assert h.status == "running" and h.notice == ""
