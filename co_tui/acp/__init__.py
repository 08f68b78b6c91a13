"""`co-tui acp`: co-tui as an Agent Client Protocol agent on stdio (docs/acp.md), the third front
end beside the TUI and print mode. `run_acp` serves one client until it closes stdin.

Nothing but protocol reaches stdout: the protocol gets its own copy of the stdout descriptor, and
descriptor 1 (and `sys.stdout`) then point at stderr, so a stray print or an inheriting child can
never corrupt the stream. The SDK (`agent-client-protocol`, import `acp`) is imported here only.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from co_tui.config import Settings

__all__ = ["run_acp", "serve"]


async def _streams(protocol_out: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """stdin as the reader, the protocol's own stdout copy as the writer (asyncio's pipe streams)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)  # the SDK's own default: prompts with files are big
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    pipe = os.fdopen(protocol_out, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    return reader, writer


async def serve(settings: Settings, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Serve one client: ACP's JSON lines read from `reader`, written to `writer`, until `reader`
    ends (or the connection fails); then every turn is stopped and kept and every session closed.
    `run_acp` serves stdio with it; the tests, a pair of pipes in their own process."""
    from acp import run_agent

    from co_tui.acp.agent import CoTuiAgent

    agent = CoTuiAgent(settings)
    try:
        await run_agent(agent, writer, reader, use_unstable_protocol=True)
    finally:  # stdin closed (or the connection failed): every turn stopped and kept, every session closed
        await agent.close_all()


async def _serve(settings: Settings, protocol_out: int) -> None:
    reader, writer = await _streams(protocol_out)
    await serve(settings, reader, writer)


def run_acp(settings: Settings) -> int:
    """Serve ACP on stdin/stdout until the client closes stdin; returns the exit code (0)."""
    import logging

    class OneLine(logging.Formatter):
        """A log record as one line, its exception named, never a traceback (a malformed line from
        the client is the SDK's error log: the line is dropped and the server goes on)."""

        def format(self, record: logging.LogRecord) -> str:
            if record.exc_info and record.exc_info[1] is not None:
                exc = record.exc_info[1]
                record.msg, record.args = f"{record.getMessage()}: {type(exc).__name__}: {exc}", ()
            record.exc_info, record.exc_text = None, None
            return super().format(record)

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine("co-tui acp: %(message)s"))
    logging.basicConfig(handlers=[handler], level=logging.WARNING)
    sys.stdout.flush()
    protocol_out = os.dup(1)
    os.dup2(2, 1)  # anything else written to descriptor 1 goes to stderr
    sys.stdout = sys.stderr
    asyncio.run(_serve(settings, protocol_out))
    return 0
