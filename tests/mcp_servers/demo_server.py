"""A real stdio MCP server for the tests (the `mcp` package's MCPServer, formerly FastMCP).

Tools: `big` (a 50 KB text), `echo`, `fail` (always an error), `wipe` (marked destructive),
`die` (the process exits in the middle of the call).
"""

import os

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

BIG_CHARS = 50_000

server = MCPServer("demo")


@server.tool()
def big() -> str:
    """Return a 50 KB text."""
    line = "row {:05d}: the quick brown fox jumps over the lazy dog\n"
    text = "".join(line.format(i) for i in range(BIG_CHARS // len(line.format(0)) + 1))
    return text[:BIG_CHARS]


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return f"echo: {text}"


@server.tool()
def fail() -> str:
    """Always fails."""
    raise ToolError("the demo tool failed on purpose")


@server.tool(annotations=ToolAnnotations(destructiveHint=True))
def wipe(path: str) -> str:
    """Pretend to delete a path (marked destructive)."""
    return f"wiped {path}"


@server.tool()
def die() -> str:
    """The server process exits in the middle of this call."""
    os._exit(3)


if __name__ == "__main__":
    server.run()
