"""The /mcp screen: servers, status, tool counts and their schemas' token cost; snapshot."""

from __future__ import annotations

from pydantic_ai.tools import ToolDefinition
from screen_host import TERMINAL, make_host, screen_env  # (fixtures)
from textual.widgets import Markdown

from co_tui.agent.factory import tool_schema_tokens
from co_tui.agent.mcp_servers import McpServer, McpServers
from co_tui.tui.screens.mcp import McpScreen


def tool(name: str, description: str) -> ToolDefinition:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    return ToolDefinition(name=name, description=description, parameters_json_schema=schema)


def servers() -> McpServers:
    docs = McpServer("docs", "config file /home/me/.config/co-tui/config.toml", toolset=None, status="running")
    docs.tool_defs = [tool("docs_search", "Search the documentation."), tool("docs_page", "Read one page.")]
    files = McpServer("files", "/work/project/.mcp.json", toolset=None, status="running", approve_all=True)
    files.tool_defs = [tool("files_delete", "Delete a file (destructive).")]
    files.left_out = ["'read\\nme' (a tool name is 1-64 letters, digits, '_' or '-', the server's name included)"]
    ghost = McpServer("ghost", "config file /home/me/.config/co-tui/config.toml", toolset=None)
    ghost.set_status("failed", "could not start: [Errno 2] No such file or directory: 'ghost-server'")
    slow = McpServer("slow", "/work/project/.mcp.json", toolset=None)
    return McpServers([docs, files, ghost, slow])


async def test_the_screen_lists_every_server_with_status_tools_and_tokens(make_host):
    state = servers()
    app = make_host(lambda: McpScreen(state))
    async with app.run_test(size=TERMINAL) as pilot:
        await pilot.pause()
        source = app.screen.query_one("#mcp-text", Markdown).source
        docs_tokens = tool_schema_tokens(state.servers[0].tool_defs)
        assert f"| docs | running | 2 | ~{docs_tokens:,} | destructive calls |" in source
        assert "| files | running | 1 |" in source and "| every call |" in source
        assert "| ghost | failed | 0 | ~0 |" in source and "- ghost failed: could not start:" in source
        assert "| slow | starting | 0 |" in source
        # Each server's tools, those that ask first marked; what was left out and why.
        assert "- docs: docs\\_search, docs\\_page" in source and "- files: files\\_delete ⚠" in source
        assert "- files: 'read\\\\nme' \\(a tool name is 1\\-64" in source
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, McpScreen) and app.results == [None]


async def test_no_servers_says_how_to_add_one(make_host):
    app = make_host(lambda: McpScreen(McpServers(config_error="/w/.mcp.json: Expecting value")))
    async with app.run_test(size=TERMINAL) as pilot:
        await pilot.pause()
        source = app.screen.query_one("#mcp-text", Markdown).source
        assert "No MCP servers configured" in source and "/w/.mcp.json: Expecting value" in source


def test_mcp_snapshot(snap_compare, make_host):
    assert snap_compare(make_host(lambda: McpScreen(servers())), terminal_size=TERMINAL)


def test_a_status_change_before_the_screen_is_composed_is_no_error() -> None:
    """A server can start in the moment /mcp opens: the app tells the pushed screen before it has
    composed its rows (this once raised NoMatches inside the server's start, which then reported a
    healthy server failed). Nothing to redraw then; compose reads the status."""
    state = servers()
    screen = McpScreen(state)
    slow = state.servers[-1]
    slow.listener = lambda _server: screen.show_servers()
    slow.set_status("running")
    assert slow.status == "running" and slow.reason == ""
