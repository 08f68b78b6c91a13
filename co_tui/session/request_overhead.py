"""What every request carries besides the history, as the session counts it: co-tui's and the
project's instructions, the workspace tools' schemas and, once a server has listed its tools, each
MCP server's schemas. Governance fits the history around it, and the meter adds it to its figure
until the first provider report shows the real one (docs/context-governance.md, "The meter").

An MCP server's tools are known only once it runs (it starts after the TUI's first paint): the
count is taken again on every change of a server's status, and the meter says while a server's
schemas are still unknown (`UsageUpdate.mcp_starting`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from co_tui.session.chat import ChatSession


def session_overhead_tokens(session: ChatSession) -> int:
    """Estimated tokens of `session`'s instructions and tool schemas, the running MCP servers'
    included (each priced as `/mcp` and `/context` price it: `factory.tool_schema_tokens`). The
    workspace tools are read off `session.agent`, which must be built: never built a second time."""
    from co_tui.agent.factory import overhead_tokens, tool_schema_tokens

    own = overhead_tokens(
        session.settings, workspace=session.workspace, project_text=session.project.text, agent=session.agent
    )
    servers = session.mcp.servers if session.mcp else []
    return own + sum(tool_schema_tokens(server.tool_defs) for server in servers)


def sync_overhead(session: ChatSession) -> None:
    """Count `session`'s overhead again (instructions reloaded, an MCP server started or failed)."""
    session.set_overhead(session_overhead_tokens(session))


def follow_mcp_tools(session: ChatSession) -> None:
    """Recount `session`'s overhead whenever one of its MCP servers changes status."""
    if session.mcp:
        session.mcp.watch_tools(lambda: sync_overhead(session))


__all__ = ["follow_mcp_tools", "session_overhead_tokens", "sync_overhead"]
