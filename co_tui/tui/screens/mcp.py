"""The `/mcp` screen: each MCP server, its status, its tools and their schemas' token cost.

The rows come from `co_tui.session.mcp_overview` (no Textual there); this only lays them out.
"""

from __future__ import annotations

import re
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from co_tui.text import screen_text
from co_tui.tui.key_label import key_label

_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")


def escape_markdown(text: str) -> str:
    """`text` shown as it is in Markdown: every punctuation mark that could format is escaped."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def mcp_markdown(rows: list[Any], *, config_error: str | None = None) -> str:
    """The screen's text: a table of `McpServerRow`s, then why each failed server failed."""
    lines: list[str] = []
    if config_error:
        lines += [f"**Not loaded:** {config_error}", ""]
    if not rows:
        lines += [
            "No MCP servers configured. Add `[mcp_servers.NAME]` tables to config.toml, or set",
            "`mcp_project_config = true` to start the workspace's `.mcp.json` (docs/configuration.md).",
        ]
        return "\n".join(lines)
    lines += ["| server | status | tools | schema tokens | approval |", "|---|---|---:|---:|---|"]
    for row in rows:
        approval = "every call" if row.approve_all else "destructive calls"
        lines.append(f"| {row.name} | {row.status} | {row.tools} | ~{row.schema_tokens:,} | {approval} |")
    failed = [row for row in rows if row.status == "failed"]
    if failed:
        lines.append("")
        lines += [f"- {row.name} failed: {row.reason}" for row in failed]
    with_tools = [row for row in rows if row.tool_names]
    if with_tools:
        lines += ["", "Tools (⚠ asks first):"]
        for row in with_tools:
            names = ", ".join(f"{name} ⚠" if name in row.asks_first else name for name in row.tool_names)
            lines.append(f"- {row.name}: {escape_markdown(names)}")
    left_out = [row for row in rows if row.left_out]
    if left_out:
        lines.append("")
        lines += ["Left out (the model is not offered them):", ""]
        lines += [f"- {row.name}: {escape_markdown(note)}" for row in left_out for note in row.left_out]
    lines += [
        "",
        "Tools are offered as `server_tool`; schema tokens are sent with every request. "
        "To start a server again: `/mcp restart NAME`",
    ]
    sources = sorted({row.source for row in rows})
    lines += ["", "From: " + "; ".join(sources)]
    return "\n".join(lines)


class McpScreen(ModalScreen[None]):
    """Read-only list of the session's MCP servers (`/mcp`); Esc or Q closes it."""

    CSS_PATH = "mcp.tcss"
    BINDINGS = [Binding("escape,q", "dismiss_mcp", "Close", show=True)]

    def __init__(self, servers: Any) -> None:
        super().__init__()
        self.servers = servers

    def compose(self) -> ComposeResult:
        """The servers' overview (or the config error) as Markdown, scrollable, in a dialog."""
        from co_tui.session import mcp_overview

        error = getattr(self.servers, "config_error", None)
        with Vertical(id="mcp-dialog"):
            yield Static("co-tui · MCP servers", id="mcp-title")
            with VerticalScroll(id="mcp-body"):
                yield Markdown(screen_text(mcp_markdown(mcp_overview(self.servers), config_error=error)), id="mcp-text")
            yield Static(f"{key_label('escape')} close", id="mcp-hint")

    def on_mount(self) -> None:
        """The list takes the keys (they scroll it)."""
        self.query_one("#mcp-body", VerticalScroll).focus()

    def show_servers(self) -> None:
        """Redraw the rows: a server's status changed while the list is open (it started or failed)."""
        from co_tui.session import mcp_overview

        error = getattr(self.servers, "config_error", None)
        # Pushed but not composed yet (a server started as /mcp opened): nothing to redraw, compose
        # reads the status then. Names, reasons and tool names come from the servers and .mcp.json: escaped.
        for text in self.query("#mcp-text").results(Markdown):
            text.update(screen_text(mcp_markdown(mcp_overview(self.servers), config_error=error)))

    def action_dismiss_mcp(self) -> None:
        """Close the list."""
        self.dismiss(None)
