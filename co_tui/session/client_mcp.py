"""MCP servers an editor brings (ACP `mcp_servers`), joining the configured ones under the same
rules: each entry is checked as a `[mcp_servers.NAME]` table is (its shape, its name's alphabet), the
user's own config wins a name both use, and every server then runs capped and confined as any other
(`co_tui.agent.mcp_servers`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from co_tui.config import McpServerConfig, Settings

__all__ = ["with_client_servers"]


def with_client_servers(settings: Settings, servers: Sequence[dict[str, Any]]) -> tuple[Settings, list[str]]:
    """`settings` with `servers` (each a table plus its `name`) added to `mcp_servers`, and one line
    per server left out (a bad name or shape, or a name the config already uses)."""
    merged = dict(settings.mcp_servers)
    problems: list[str] = []
    for entry in servers:
        table = dict(entry)
        name = str(table.pop("name", ""))
        if name in merged:
            problems.append(f"MCP server {name!r} from the editor left out: the config has a server of that name")
            continue
        try:
            checked = McpServerConfig.model_validate(table)
            Settings._server_names({name: checked})
        except (ValidationError, ValueError) as exc:
            reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            problems.append(f"MCP server {name!r} from the editor left out: {reason}")
            continue
        merged[name] = checked
    if len(merged) == len(settings.mcp_servers):
        return settings, problems
    return settings.model_copy(update={"mcp_servers": merged}), problems
