"""Running one approved shell command in the workspace, with a timeout and an output cap.

Approval is not decided here (see `tools.py`): this only runs what was already approved. The
command runs in its own process group so a timeout or an interrupt kills it and its children.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

SHELL_TIMEOUT_S = 60.0
SHELL_MAX_CHARS = 16_000
_HEAD_CHARS = 2_000  # when capping, keep the start (context) and the end (errors, summaries)


def cap_output(text: str, max_chars: int = SHELL_MAX_CHARS, *, already_dropped: int = 0) -> str:
    """`text` unchanged if short enough, else its head and tail around a note of what was cut.

    `already_dropped`: characters removed from the middle of `text` before (counted in the note).
    """
    if len(text) <= max_chars and not already_dropped:
        return text
    head_chars = min(_HEAD_CHARS, max_chars // 2)
    head = text[:head_chars]
    tail = text[len(text) - (max_chars - head_chars) :]
    omitted = len(text) - len(head) - len(tail) + already_dropped
    total = len(text) + already_dropped
    return f"{head}\n[capped: {omitted:,} of {total:,} chars omitted]\n{tail}"


async def run_command(
    command: str, cwd: Path, *, timeout_s: float = SHELL_TIMEOUT_S, max_chars: int = SHELL_MAX_CHARS
) -> str:
    """Run `command` with `/bin/sh` in `cwd`; return `$ command`, its merged output and the exit status.

    Never raises for the command's own failures (non-zero exit, timeout, missing program): they are
    described in the returned text. Cancelling the caller kills the process group.
    """
    proc = await asyncio.create_subprocess_shell(
        command,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    # Read as it comes (output printed before a timeout is kept), holding only a bounded head and tail.
    keep = 4 * max_chars
    head, tail = bytearray(), bytearray()
    dropped = 0

    async def drain() -> None:
        nonlocal dropped
        assert proc.stdout is not None
        while chunk := await proc.stdout.read(65536):
            room = keep - len(head)
            head.extend(chunk[:room])
            tail.extend(chunk[room:] if room > 0 else chunk)
            if len(tail) > keep:
                dropped += len(tail) - keep
                del tail[: len(tail) - keep]

    reader = asyncio.ensure_future(drain())
    timed_out = False
    try:
        try:
            await asyncio.wait_for(proc.wait(), timeout=timeout_s)
        except TimeoutError:
            timed_out = True
            _kill_group(proc)
            await proc.wait()
        # A background child may keep the pipe open: don't wait for it for long.
        await asyncio.wait_for(asyncio.shield(reader), timeout=1.0)
    except TimeoutError:
        _kill_group(proc)
    except BaseException:
        _kill_group(proc)
        reader.cancel()
        raise
    finally:
        if not reader.done():
            reader.cancel()
    text = head.decode("utf-8", errors="replace") + tail.decode("utf-8", errors="replace")
    output = cap_output(text, max_chars, already_dropped=dropped).rstrip("\n")
    if timed_out:
        status = f"[timed out after {timeout_s:g} s: the command was killed]"
    else:
        status = f"[exit code {proc.returncode}]"
    body = f"{output}\n" if output else "(no output)\n"
    return f"$ {command}\n{body}{status}"


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
