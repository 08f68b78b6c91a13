"""Running one approved shell command in the workspace, with a timeout and an output cap.

Approval is not decided here (see `tools.py`): this only runs what was already approved. The
command runs in its own process group so a timeout or an interrupt kills it and its children.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

SHELL_TIMEOUT_S = 60.0
SHELL_MAX_CHARS = 16_000
_HEAD_CHARS = 2_000  # when capping, keep the start (context) and the end (errors, summaries)


def cap_output(text: str, max_chars: int = SHELL_MAX_CHARS) -> str:
    """`text` unchanged if short enough, else its head and tail around a note of what was cut."""
    if len(text) <= max_chars:
        return text
    head = text[:_HEAD_CHARS]
    tail = text[-(max_chars - _HEAD_CHARS):]
    omitted = len(text) - len(head) - len(tail)
    return f"{head}\n[capped: {omitted:,} of {len(text):,} chars omitted]\n{tail}"


async def run_command(command: str, cwd: Path, *, timeout_s: float = SHELL_TIMEOUT_S,
                      max_chars: int = SHELL_MAX_CHARS) -> str:
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
    timed_out = False
    try:
        try:
            raw, _ = await asyncio.wait_for(proc.communicate(), timeout=timeout_s)
        except TimeoutError:
            timed_out = True
            _kill_group(proc)
            raw, _ = await proc.communicate()
    except BaseException:
        _kill_group(proc)
        raise
    output = cap_output(raw.decode("utf-8", errors="replace"), max_chars).rstrip("\n")
    if timed_out:
        status = f"[timed out after {timeout_s:g} s: the command was killed]"
    else:
        status = f"[exit code {proc.returncode}]"
    body = f"{output}\n" if output else "(no output)\n"
    return f"$ {command}\n{body}{status}"


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
