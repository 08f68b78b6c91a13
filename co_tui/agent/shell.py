"""Running one approved shell command in the workspace, with a timeout; its output is kept whole up
to co-tui's limit on one output (`output_limit.OUTPUT_MAX_CHARS`, several MB: governance previews
a big output to the model, the transcript keeps it whole).

Approval is not decided here (see `tools.py`): this only runs what was already approved. The
command runs in its own process group so a timeout or an interrupt kills it and its children;
when it ends, however it ends, every process it started is killed, background children that left
the group (`setsid`) or the output (`>/dev/null &`) included (`process_tree.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import threading
from pathlib import Path

from co_tui.agent.output_limit import OUTPUT_MAX_CHARS, cap_output
from co_tui.agent.process_tree import kill_run_soon, new_run, run_env, started

SHELL_TIMEOUT_S = 60.0

# The last line `run_command` ends every output with; `shell_outcome` reads it back.
_INTERRUPTED = "[interrupted by the user: the command was killed]"
_EXIT_LINE = re.compile(r"\[exit code (-?\d+)\]")
_TIMEOUT_LINE = re.compile(r"\[timed out after \S+ s: the command was killed\]")


async def run_command(
    command: str,
    cwd: Path,
    *,
    timeout_s: float = SHELL_TIMEOUT_S,
    max_chars: int = OUTPUT_MAX_CHARS,
    stop: asyncio.Event | None = None,
) -> str:
    """Run `command` with `/bin/sh` in `cwd`; return `$ command`, its merged output and the exit status.

    Never raises for the command's own failures (non-zero exit, timeout, missing program): they are
    described in the returned text. Cancelling the caller kills the process group before the
    cancellation propagates, wherever it lands, without waiting for the output pipe. Once `/bin/sh`
    exits, a background child still holding the output gets `DRAIN_S` to finish, then the group is
    killed: such a command does not hold the turn until the timeout. `stop` set (the user's
    interrupt of a `!command`) kills the group as a timeout does, and the output so far is kept.
    """
    loop = asyncio.get_running_loop()
    # Started here, not with asyncio.create_subprocess_shell: asyncio's clean-up of a start that is
    # cancelled kills /bin/sh alone, then waits for the output pipe, which a child of the shell holds
    # for as long as it runs. Here the pid is known before the first await: every cancel kills the group.
    run = new_run()  # every process the command starts carries it: all are killed at its end
    proc = subprocess.Popen(
        command,
        shell=True,
        cwd=cwd,
        env=run_env(run),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    started(run, proc.pid)
    assert proc.stdout is not None
    exited = _exit_of(proc, loop)
    # At most `max_chars` bytes of head and of tail in memory: a byte is at most one character, so
    # the decoded text still fills the cap; whatever streams between them is only counted.
    output = _Output(loop, keep=max_chars)
    pipe: asyncio.BaseTransport | None = None
    timed_out = interrupted = False
    stopped = loop.create_task((stop or asyncio.Event()).wait())
    try:
        pipe, _ = await loop.connect_read_pipe(lambda: output, proc.stdout)
        # asyncio.wait cancels neither: a cancel of the caller leaves `exited` to the handler below.
        await asyncio.wait((exited, stopped), timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
        if not exited.done():
            interrupted, timed_out = stopped.done(), not stopped.done()
            _kill_group(proc.pid)
            await exited
        # A background child may keep the pipe open: don't wait for it for long.
        await asyncio.wait_for(asyncio.shield(output.closed), timeout=DRAIN_S)
    except TimeoutError:
        _kill_group(proc.pid)
    except BaseException:
        _kill_group(proc.pid)
        raise
    finally:
        stopped.cancel()
        kill_run_soon(run, proc.pid)  # background children, inside the group or out of it (setsid)
        if pipe is not None:
            pipe.close()  # our end is released even if a child outside the group still holds the other
        else:
            proc.stdout.close()
    text = output.head.decode("utf-8", errors="replace") + output.tail.decode("utf-8", errors="replace")
    shown = cap_output(text, max_chars, already_dropped=output.dropped).rstrip("\n")
    if interrupted:
        status = _INTERRUPTED
    elif timed_out:
        status = f"[timed out after {timeout_s:g} s: the command was killed]"
    else:
        status = f"[exit code {proc.returncode}]"
    body = f"{shown}\n" if shown else "(no output)\n"
    return f"$ {command}\n{body}{status}"


def shell_outcome(output: str) -> str | None:
    """How the command of a `run_command` output ended, when that is not a plain success, for the
    one-line summary of its row: `exit 2`, `killed (signal 9)` (a negative exit code), `timed out`
    or `stopped` (the user's interrupt). None for exit code 0, and for a text whose last line is
    not the status line `run_command` writes (another tool's output, an output cut before its end)."""
    last = output.rstrip("\n").rpartition("\n")[2]
    if last == _INTERRUPTED:
        return "stopped"
    if _TIMEOUT_LINE.fullmatch(last):
        return "timed out"
    found = _EXIT_LINE.fullmatch(last)
    code = int(found.group(1)) if found else 0
    return f"killed (signal {-code})" if code < 0 else f"exit {code}" if code else None


DRAIN_S = 1.0  # after /bin/sh exits, how long a background child may keep its output open


class _Output(asyncio.Protocol):
    """The command's merged output as it comes, holding only a bounded head and tail (output printed
    before a timeout is kept); `closed` is set when every process holding the pipe let go of it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, *, keep: int) -> None:
        self.keep = keep
        self.head, self.tail = bytearray(), bytearray()
        self.dropped = 0
        self.closed: asyncio.Future[None] = loop.create_future()

    def data_received(self, data: bytes) -> None:
        """Keep the first `keep` bytes and the last `keep`; count what falls between."""
        room = self.keep - len(self.head)
        self.head.extend(data[:room])
        self.tail.extend(data[room:] if room > 0 else data)
        if len(self.tail) > self.keep:
            self.dropped += len(self.tail) - self.keep
            del self.tail[: len(self.tail) - self.keep]

    def eof_received(self) -> None:
        """The pipe reached its end."""
        self._close()

    def connection_lost(self, exc: Exception | None) -> None:
        """The pipe closed (its end, or ours)."""
        self._close()

    def _close(self) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def _exit_of(proc: subprocess.Popen[bytes], loop: asyncio.AbstractEventLoop) -> asyncio.Future[int]:
    """A future set to `proc`'s exit status when `/bin/sh` exits, waited for in a thread of its own
    (its children may still run, and hold the output: `asyncio`'s `Process.wait()` waits for both)."""
    exited: asyncio.Future[int] = loop.create_future()

    def settle(code: int) -> None:
        if not exited.done():
            exited.set_result(code)

    def wait() -> None:
        code = proc.wait()
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (co-tui quit)
            loop.call_soon_threadsafe(settle, code)

    threading.Thread(target=wait, name=f"shell-{proc.pid}", daemon=True).start()
    return exited


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
