"""A stdio MCP server's pipes, read the way an untrusted process needs (docs/configuration.md, "MCP servers").

The MCP SDK's `stdio_client` is replaced for three reasons, each a server that could stall co-tui:

- its reader joins the whole buffer with each chunk and splits it again: a 20 MB message is
  quadratic (26 s and 362 MB, on the UI's loop). `read_messages` scans each byte once, and a
  message over `MAX_MESSAGE_BYTES` is not read: its call ends with a failed result that says so
  (`OVERSIZED`), or, when its id cannot be found, the connection ends with the reason;
- it decodes strictly: one byte that is not UTF-8 killed the reader while the server still showed as
  running, and the call waited out its timeout. Lines are decoded with replacement characters; a
  line that is still no JSON-RPC message ends the connection at once if it looks like one (a `{`,
  or bytes that were not UTF-8) and is skipped if it is a stray print, without the SDK's traceback;
- its stderr went to a temporary file that grew without limit and was read whole after a crash.
  `StderrTail` keeps the last `STDERR_TAIL_BYTES` in memory, drained by a thread.

The process is started and stopped as the SDK does it (its own session; stdin closed, 2 s, then the
process group is terminated, with the SDK's `terminate_posix_process_tree`).
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import threading
from collections.abc import AsyncGenerator, Callable
from typing import Any

import anyio
from fastmcp.client.transports.base import ClientTransport, TransportOptions

MAX_MESSAGE_BYTES = 8_000_000
"""A message (one stdout line) longer than this is not read: twice co-tui's limit on one output
(`output_limit.OUTPUT_MAX_CHARS`), room for an image; a 20 MB answer is refused in well under a second."""
STDERR_TAIL_BYTES = 8192
"""What is kept of a server's stderr: its last lines, for the reason it died."""
OVERSIZED = -32098
"""The JSON-RPC error code of a message over the cap, answered in the server's name (a code in the
range JSON-RPC leaves to implementations), so the call fails instead of waiting."""

_CHUNK = 65_536
_ENDS = 512  # bytes kept of each end of an oversized message
_GRACE_S = 2.0  # a server's time to exit once its stdin closes, then to die once terminated
# The request id of a message, from its first bytes (`{"jsonrpc": "2.0", "id": 7, …` as Python
# servers write it) or its last (`…, "jsonrpc": "2.0", "id": 7}` as TypeScript servers do).
_ID_AT_HEAD = re.compile(rb'^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"[^"\\]{0,200}")')
_ID_AT_TAIL = re.compile(rb'"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"[^"\\]{0,200}")\s*\}\s*$')


class StderrTail:
    """A pipe for a server's stderr whose last `keep` bytes are kept; the rest is read and dropped.

    `writer()` is the write end to give the process (the pipe and its reader are made on first
    use). A daemon thread drains the read end, so a server that floods stderr neither blocks nor
    fills a disk. `close()` closes the write end; the thread closes the read end once every process
    holding the pipe has gone (end of file) — only it does, so a reused descriptor is never read.
    """

    def __init__(self, keep: int = STDERR_TAIL_BYTES) -> None:
        self._keep = keep
        self._tail = bytearray()
        self.total = 0  # bytes ever written: a mark (`last_line(since=…)`)
        self._lock = threading.Lock()
        self._read_fd = -1  # -1: not made yet, or closed by the thread
        self._write_fd = -1
        self._closed = False

    def writer(self) -> int:
        """The pipe's write end (made, with its reader thread, on the first call)."""
        with self._lock:
            if self._write_fd < 0:
                if self._closed:
                    raise OSError("the stderr pipe of this server is closed")
                self._read_fd, self._write_fd = os.pipe()
                os.set_blocking(self._read_fd, False)
                threading.Thread(target=self._pump, name="mcp-stderr", daemon=True).start()
            return self._write_fd

    def _pump(self) -> None:
        fd = self._read_fd
        try:
            while True:
                select.select([fd], [], [])
                if not self._drain():
                    return
        except (OSError, ValueError):
            return
        finally:
            with self._lock:
                self._read_fd = -1
                os.close(fd)

    def _drain(self) -> bool:
        """Read what the pipe holds now into the tail; False at end of file."""
        with self._lock:
            while self._read_fd >= 0:
                try:
                    chunk = os.read(self._read_fd, _CHUNK)
                except BlockingIOError:
                    return True
                if not chunk:
                    return False
                self.total += len(chunk)
                self._tail += chunk
                if len(self._tail) > self._keep:
                    del self._tail[: len(self._tail) - self._keep]
            return False

    def mark(self) -> int:
        """The bytes written so far, what the pipe holds included: `last_line(since=mark())` later
        is what came after this moment."""
        self._drain()
        with self._lock:
            return self.total

    def last_line(self, since: int = 0) -> str:
        """The last non-empty line written after `since` bytes (a `mark()` taken earlier), or "".

        What the pipe holds is read first: a process that wrote its last words and exited has them
        here even if the thread has not woken yet.
        """
        self._drain()
        with self._lock:
            fresh = self.total - since
            if fresh <= 0:
                return ""
            text = bytes(self._tail[-fresh:] if fresh < len(self._tail) else self._tail)
            cut = fresh > len(self._tail)  # the first line kept may be a fragment
        lines = text.decode("utf-8", errors="replace").splitlines()
        if cut and lines:
            lines = lines[1:]
        lines = [line.strip() for line in lines if line.strip()]
        return lines[-1] if lines else ""

    def close(self) -> None:
        """Close the write end for good (each process has its own copy until it exits)."""
        with self._lock:
            self._closed = True
            if self._write_fd >= 0:
                os.close(self._write_fd)
                self._write_fd = -1


class CappedStdioTransport(ClientTransport):
    """fastmcp's stdio transport, with `read_messages`' reader and a `StderrTail` (module docstring).

    `ended` says why co-tui ended the last connection ("" if it did not): the reason a server that
    then reads as closed is failed with.
    """

    def __init__(
        self,
        command: str,
        args: list[str] | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        *,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        self.command = command
        self.args = list(args or [])
        self.env = env
        self.cwd = cwd
        self.max_message_bytes = max_message_bytes
        self.stderr = StderrTail()
        self.ended = ""
        self.on_stray: Callable[[str], None] | None = None  # told the first stray stdout line of a connection

    @contextlib.asynccontextmanager
    async def connect_session(
        self, *, transport_options: TransportOptions | None = None, **session_kwargs: Any
    ) -> AsyncGenerator[Any, None]:
        """Start the process and yield an MCP `ClientSession` over its pipes; stop it on exit."""
        from mcp.client.stdio import get_default_environment
        from mcp.shared.message import SessionMessage

        options = transport_options or TransportOptions()
        self.ended = ""
        process = await anyio.open_process(
            [self.command, *self.args],
            env=get_default_environment() | (self.env or {}),
            stderr=self.stderr.writer(),
            cwd=self.cwd,
            start_new_session=True,  # its own process group: stopping it stops its children
        )
        to_session, from_server = anyio.create_memory_object_stream[Any](0)
        to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)

        def end(reason: str) -> None:
            self.ended = reason

        strays = 0

        def stray(line: str) -> None:
            nonlocal strays
            strays += 1
            if strays == 1 and self.on_stray is not None:
                self.on_stray(line)

        async def write_stdin() -> None:
            assert process.stdin is not None
            try:
                async with from_session:
                    async for message in from_session:
                        text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                        await process.stdin.send(text.encode() + b"\n")
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await to_session.aclose()  # the session sees the connection end, not a hung request

        async with anyio.create_task_group() as tg:
            tg.start_soon(read_messages, process.stdout, to_session, self.max_message_bytes, end, stray)
            tg.start_soon(write_stdin)
            try:
                async with options.session_class(from_server, to_server, **session_kwargs) as session:
                    yield session
            finally:
                with anyio.CancelScope(shield=True):
                    to_server.close()
                    from_server.close()
                    await _stop_process(process)
                tg.cancel_scope.cancel()
        for stream in (to_session, from_session):  # the tasks close them, unless cancelled before they began
            stream.close()

    async def close(self) -> None:
        """Nothing outlives a connection (the `StderrTail` is closed by its owner, `McpServer`)."""


async def _stop_process(process: Any) -> None:
    """End a server as the MCP spec's shutdown says: close its stdin, give it 2 s to exit, then
    terminate its process group (SIGTERM, then SIGKILL 2 s later: the SDK's own
    `terminate_posix_process_tree`); its pipes are closed whatever happened."""
    from mcp.os.posix.utilities import terminate_posix_process_tree

    closing = (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError)
    with contextlib.suppress(*closing):
        await process.stdin.aclose()
    if not await _exited(process, _GRACE_S):
        await terminate_posix_process_tree(process, _GRACE_S)
        await _exited(process, _GRACE_S)
    with contextlib.suppress(*closing):
        await process.stdout.aclose()
    # The asyncio transport would otherwise stay open (and warn when collected) while a child
    # that left the group holds a pipe: `process.wait()` would wait for that pipe, so it is closed.
    transport: Any = getattr(getattr(process, "_process", None), "_transport", None)
    if transport is not None:
        with contextlib.suppress(Exception):
            transport.close()


async def _exited(process: Any, timeout: float) -> bool:
    """Whether the process exits within `timeout` s (its return code, not `wait()`: see `_stop_process`)."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(0.01)
        return True
    return False


async def read_messages(
    stdout: Any, to_session: Any, cap: int, end: Callable[[str], None], stray: Callable[[str], None] = lambda line: None
) -> None:
    """Send each JSON-RPC message the server writes on `stdout` to the session, in linear time.

    A line that is not JSON-RPC and does not look like it is skipped, shown (`stray(line)`, escaped).

    A line over `cap` bytes is skipped unread: its request is answered with an `OVERSIZED` error, or,
    its id not found, the connection ends (`end(reason)`, then the session reads end of stream).
    """
    buffer = bytearray()
    scanned = 0  # bytes of `buffer` known to hold no newline
    skipping = False  # inside a line over the cap: dropped up to its newline
    first = last = b""  # an oversized line's first and (so far) last bytes: where its id may be
    try:
        async with to_session:
            async for chunk in stdout:
                if skipping:
                    newline = chunk.find(b"\n")
                    last = (last + (chunk if newline < 0 else chunk[:newline]))[-_ENDS:]
                    if newline < 0:
                        continue
                    skipping, chunk = False, chunk[newline + 1 :]
                    if not await _answer_oversized(first + last, to_session, cap, end):
                        return
                buffer += chunk
                while (newline := buffer.find(b"\n", scanned)) >= 0:
                    line = bytes(buffer[:newline])
                    del buffer[: newline + 1]  # from the front: CPython moves a pointer, no copy
                    scanned = 0
                    if len(line) > cap:
                        delivered = await _answer_oversized(line[:_ENDS] + line[-_ENDS:], to_session, cap, end)
                    else:
                        delivered = await _deliver(line, to_session, end, stray)
                    if not delivered:
                        return
                scanned = len(buffer)
                if len(buffer) > cap:  # no newline yet: keep its ends, drop the rest as it comes
                    first, last, skipping = bytes(buffer[:_ENDS]), bytes(buffer[-_ENDS:]), True
                    buffer.clear()
                    scanned = 0
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
        pass  # the session is gone or the pipe closed: the session reads end of stream
    except Exception as exc:  # whatever else: the connection ends, with why, not a reader that dies unseen
        end(f"co-tui could not read its output ({type(exc).__name__}: {exc})")  # `async with` closed the stream


async def _deliver(line: bytes, to_session: Any, end: Callable[[str], None], stray: Callable[[str], None]) -> bool:
    """Parse one line and send it on; False when it ended the connection."""
    import mcp_types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    text = line.decode("utf-8", errors="replace")  # a byte that is not UTF-8 is a U+FFFD, not a dead reader
    if not text.strip():
        return True
    try:
        message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except (ValidationError, ValueError):
        if text.lstrip().startswith("{") or "\ufffd" in text:
            end(f"it sent a malformed message ({_shown(text)})")
            return False
        stray(_shown(text))  # a stray print (a library's banner): not for us, and no traceback
        return True
    await to_session.send(SessionMessage(message))
    return True


async def _answer_oversized(ends: bytes, to_session: Any, cap: int, end: Callable[[str], None]) -> bool:
    """Answer a message over the cap in the server's name (its id read from `ends`); else end the connection."""
    from mcp.shared.message import SessionMessage

    request_id = oversized_id(ends)
    if request_id is None:
        end(f"it sent a message over co-tui's {cap_text(cap)} cap, not read")
        return False
    await to_session.send(SessionMessage(oversized_error(request_id, cap)))
    return True


def cap_text(cap: int) -> str:
    """The read cap as a user reads it: `8 MB`."""
    return f"{cap / 1_000_000:g} MB"


def oversized_id(ends: bytes) -> int | str | None:
    """The request id of a message over the cap, from its first or last bytes (None: not found)."""
    found = _ID_AT_HEAD.search(ends) or _ID_AT_TAIL.search(ends)
    if found is None:
        return None
    raw = found.group(1).decode("utf-8", errors="replace")
    return raw.strip('"') if raw.startswith('"') else int(raw)


def oversized_error(request_id: int | str, cap: int, why: str | None = None) -> Any:
    """The JSON-RPC error (`OVERSIZED`) that answers request `request_id` in the server's name when
    its answer is over `cap` bytes (stdio here, streamable HTTP in mcp_http.py): its call fails
    with one line (`why`, by default that the answer is over the cap), and the server goes on."""
    import mcp_types

    return mcp_types.JSONRPCError(
        jsonrpc="2.0",
        id=request_id,
        error=mcp_types.ErrorData(
            code=OVERSIZED, message=why or f"its answer is over co-tui's {cap_text(cap)} cap and was not read"
        ),
    )


def _shown(text: str) -> str:
    from co_tui.text import one_line

    return one_line(repr(text), 80)


__all__ = [
    "MAX_MESSAGE_BYTES",
    "OVERSIZED",
    "CappedStdioTransport",
    "StderrTail",
    "cap_text",
    "oversized_error",
    "oversized_id",
    "read_messages",
]
