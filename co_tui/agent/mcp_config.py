"""Which MCP servers a session has: `[mcp_servers.NAME]` tables of config.toml and, with
`mcp_project_config`, the workspace's Claude Code `.mcp.json` (docs/configuration.md, "MCP servers").

Each server's transport is co-tui's capped one (mcp_stdio.py, mcp_http.py), and whatever it is given
to authenticate (its `env` and `headers` values) is a secret from then on (`co_tui.redaction`).
The servers themselves, started and supervised, are `McpServers` (mcp_servers.py).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.agent.mcp_servers import REASON_CHARS, START_TIMEOUT_S, McpServer, McpServers
from co_tui.text import escape_controls, one_line

if TYPE_CHECKING:
    from co_tui.config import Settings

__all__ = ["PROJECT_CONFIG_NAME", "McpConfigError", "load_mcp_servers"]

PROJECT_CONFIG_NAME = ".mcp.json"
_SERVER_NAME_OUTSIDE = re.compile(r"[^A-Za-z0-9_-]")  # a `.mcp.json` server name's other characters


class McpConfigError(Exception):
    """A malformed MCP configuration. `str(err)` is one line naming the file."""


def load_mcp_servers(settings: Settings, workspace: Path) -> McpServers:
    """The servers of `settings.mcp_servers` plus, when `mcp_project_config` is on, `workspace/.mcp.json`.

    Never raises: a malformed `.mcp.json` is `config_error` (one line naming the file) and the
    config.toml servers still load. Imports pydantic-ai's MCP support only if a server is configured.
    """
    servers: list[McpServer] = []
    error: str | None = None
    approve = set(settings.mcp_approve)
    if settings.mcp_servers:
        from co_tui.config import ENV_PREFIX
        from co_tui.paths import default_config_file

        env_name = f"{ENV_PREFIX}MCP_SERVERS"  # it wins over the file's tables (docs/configuration.md)
        source = (
            f"environment variable {env_name}" if env_name in os.environ else f"config file {default_config_file()}"
        )
        for name, entry in settings.mcp_servers.items():
            servers.append(_server(name, source, _transport(entry.model_dump()), settings.mcp_call_timeout_s))
    project = Path(workspace) / PROJECT_CONFIG_NAME
    if settings.mcp_project_config and project.is_file():
        try:
            servers.extend(_project_servers(project, taken={s.name for s in servers}, settings=settings))
        except McpConfigError as exc:
            error = str(exc)
    for server in servers:
        server.approve_all = server.name in approve
    return McpServers(servers, config_error=error)


def _project_servers(path: Path, *, taken: set[str], settings: Settings) -> list[McpServer]:
    """The servers of a Claude Code `.mcp.json`, read by pydantic-ai's `load_mcp_toolsets`."""
    from pydantic import ValidationError
    from pydantic_ai.mcp import MCPToolset, load_mcp_toolsets
    from pydantic_ai.toolsets import PrefixedToolset

    try:
        loaded = load_mcp_toolsets(path)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = escape_controls(".".join(str(p) for p in err["loc"]))  # a key of the repository's choosing
        raise McpConfigError(f"{path}: {where}: {err['msg']}") from None
    except (OSError, ValueError) as exc:
        raise McpConfigError(f"{path}: {one_line(str(exc), REASON_CHARS)}") from None
    servers = []
    for prefixed in loaded:
        assert isinstance(prefixed, PrefixedToolset) and isinstance(prefixed.wrapped, MCPToolset)
        # PrefixedToolset(MCPToolset(transport, id=name), prefix=name). The repository chose the name:
        # it prefixes every tool and is printed, so it gets config.toml's alphabet (`a\x1bb` → `a_b`).
        name = _SERVER_NAME_OUTSIDE.sub("_", prefixed.prefix)[:32] or "_"
        if name in taken:  # config.toml wins: the user's own file over the repository's
            continue
        taken.add(name)
        servers.append(
            _server(name, str(path), _capped_transport(prefixed.wrapped.client.transport), settings.mcp_call_timeout_s)
        )
    return servers


def _transport(entry: dict[str, Any]) -> Any:
    """The fastmcp transport of one `[mcp_servers.NAME]` table (as `load_mcp_toolsets` builds it)."""
    if entry.get("command"):
        from co_tui.agent.mcp_stdio import CappedStdioTransport

        return CappedStdioTransport(entry["command"], entry.get("args"), entry.get("env"), entry.get("cwd"))
    return _capped_http(entry["url"], entry.get("headers") or None)


def _capped_http(url: str, headers: dict[str, str] | None) -> Any:
    """fastmcp's streamable-HTTP transport, its answers read under the stdio reader's cap (mcp_http.py;
    the SDK's own limit on an SSE event is off: over it, a healthy server read as one that died)."""
    from fastmcp.client.transports import StreamableHttpTransport

    from co_tui.agent.mcp_http import capped_http_client

    return StreamableHttpTransport(
        url=url, headers=headers, httpx_client_factory=capped_http_client, max_sse_event_size=None
    )


def _capped_transport(transport: Any) -> Any:
    """A `.mcp.json` server's transport (fastmcp's, from `load_mcp_toolsets`) as co-tui's own, capped."""
    from fastmcp.client.transports import SSETransport, StdioTransport, StreamableHttpTransport

    from co_tui.agent.mcp_http import capped_http_client
    from co_tui.agent.mcp_stdio import CappedStdioTransport

    if isinstance(transport, StdioTransport):
        return CappedStdioTransport(transport.command, transport.args, transport.env, transport.cwd)
    if isinstance(transport, StreamableHttpTransport):
        return _capped_http(transport.url, transport.headers or None)
    if isinstance(transport, SSETransport):  # a url ending in /sse: the older protocol, capped alike
        return SSETransport(transport.url, transport.headers or None, httpx_client_factory=capped_http_client)
    return transport


def _server(name: str, source: str, transport: Any, call_timeout_s: float) -> McpServer:
    from pydantic_ai.mcp import MCPToolset

    from co_tui.redaction import add_secrets

    # Whatever a server is given to authenticate is a secret wherever it shows up again (its stderr,
    # an output, the transcript), whatever the variable or header is called.
    given = {**(getattr(transport, "env", None) or {}), **(getattr(transport, "headers", None) or {})}
    add_secrets(v for v in given.values() if not _plainly_not_secret(v))
    toolset = MCPToolset(
        transport, id=name, tool_error_behavior="failed", init_timeout=START_TIMEOUT_S, read_timeout=call_timeout_s
    )
    stderr = getattr(transport, "stderr", None)  # stdio: the server's stderr never reaches the terminal
    server = McpServer(
        name=name,
        source=source,
        toolset=toolset,
        stderr=stderr,
        transport=transport if stderr is not None else None,
        call_timeout_s=call_timeout_s,
    )
    if stderr is not None:  # a line on its stdout that is not MCP: said once a connection
        transport.on_stray = lambda line: server.say(
            f"MCP server {name} printed a line on stdout that is not MCP, skipped: {line}"
        )
    return server


def _plainly_not_secret(value: str) -> bool:
    """A value given to a server that redacting would only garble the transcript with: a plain word
    (`postgres`, `production`) or a path that exists (`/home/me/notes`). A `.mcp.json` could
    otherwise name any common word and have it replaced everywhere it is saved."""
    value = value.strip()
    if value.isalpha():
        return True
    return value.startswith(("/", "~", ".")) and Path(value).expanduser().exists()
