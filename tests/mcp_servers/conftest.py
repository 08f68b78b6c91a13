"""Real MCP servers for the tests: `demo_server.py` run as a stdio process by pydantic-ai's MCPToolset."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

DEMO_SERVER = Path(__file__).with_name("demo_server.py")


def demo_entry() -> dict:
    """The `[mcp_servers.demo]` table that starts the demo server."""
    return {"command": sys.executable, "args": [str(DEMO_SERVER)]}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "hello.txt").write_text("hi\n")
    return tmp_path
