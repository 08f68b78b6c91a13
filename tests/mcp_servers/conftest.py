"""Real MCP servers for the tests: `demo_server.py` run as a stdio process by pydantic-ai's MCPToolset."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.workspaces import HELLO

DEMO_SERVER = Path(__file__).with_name("demo_server.py")
HOSTILE_SERVER = Path(__file__).with_name("hostile_server.py")


def demo_entry() -> dict:
    """The `[mcp_servers.demo]` table that starts the demo server."""
    return {"command": sys.executable, "args": [str(DEMO_SERVER)]}


def hostile_entry(*tools: str, **env: str) -> dict:
    """A `[mcp_servers.NAME]` table that starts the hostile server offering `tools` (default: all), with `env`."""
    entry: dict = {"command": sys.executable, "args": [str(HOSTILE_SERVER), *tools]}
    if env:
        entry["env"] = env
    return entry


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    return dict(HELLO)
