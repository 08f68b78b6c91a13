"""The loop's threads never hold the exit (issue 40, item 4): with `DaemonExecutor` as the default
executor, a process whose `asyncio.to_thread` call is blocked for good (a read from a FIFO with no
writer) still ends when its `asyncio.run` returns. The real interpreter in a subprocess; the FIFO
is opened for writing afterwards to free any blocked reader, so no test process is left behind."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

import pytest
from cli_process import run_python

from co_tui.daemon_threads import DaemonExecutor

BLOCKED_AT_EXIT = """
import asyncio, sys, threading
from pathlib import Path
from co_tui.daemon_threads import use_daemon_executor

async def main():
    use_daemon_executor()
    reading = threading.Event()

    def read():
        reading.set()
        return Path(sys.argv[1]).read_bytes()  # blocks: no writer

    asyncio.get_running_loop().run_in_executor(None, read)
    while not reading.is_set():  # a wait on the thread, not on time: the read is under way
        await asyncio.sleep(0.01)
    return 7

sys.exit(asyncio.run(main()))
"""


@pytest.mark.slow
def test_a_blocked_thread_does_not_hold_the_exit(tmp_path: Path) -> None:
    """(With the standard executor, this process never ends: `asyncio.run` waits for the read.)"""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    try:
        proc = run_python(BLOCKED_AT_EXIT, str(fifo))
    finally:
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # frees a reader still blocked
    assert proc.returncode == 7, proc.stderr


async def test_calls_run_results_and_errors_come_back() -> None:
    executor = DaemonExecutor(max_workers=2)
    loop = asyncio.get_running_loop()
    results = await asyncio.gather(*(loop.run_in_executor(executor, pow, 2, n) for n in range(10)))
    assert results == [2**n for n in range(10)]
    with pytest.raises(ZeroDivisionError):
        await loop.run_in_executor(executor, divmod, 1, 0)
    executor.shutdown()
    with pytest.raises(RuntimeError):
        executor.submit(print)
