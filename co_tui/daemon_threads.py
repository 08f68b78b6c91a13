"""`DaemonExecutor`: the event loop's default executor in co-tui, whose threads never hold the exit.

`asyncio.to_thread` and Textual's thread workers run in the loop's default executor. The standard
one's threads are not daemons: `asyncio.run` waits for them when it ends, and the interpreter joins
them at exit. One call blocked for good (a read from a FIFO planted in the workspace, a hung
network file system) then kept the process alive after Ctrl+Q, with a blank screen, and after the
terminal closed. Here every worker is a daemon thread and `shutdown` never waits: what co-tui must
finish before it exits (the last save) it awaits itself before leaving.
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

__all__ = ["DaemonExecutor", "use_daemon_executor"]

_names = itertools.count(1)


class DaemonExecutor(ThreadPoolExecutor):
    """Up to `max_workers` daemon threads, started as work waits and kept for the next call. A
    `ThreadPoolExecutor` by type only (asyncio's default executor must be one): it runs calls on
    its own threads, none of which the interpreter joins at exit."""

    def __init__(self, max_workers: int = 16) -> None:
        super().__init__(max_workers)  # sets fields only: no thread of its own is ever started
        self._work: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]] | None]
        self._work = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._max = max_workers
        self._started = 0
        self._idle = 0
        self._closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run `fn(*args, **kwargs)` in a daemon thread; its `Future`."""
        future: Future[Any] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            self._work.put((future, fn, args, kwargs))
            if self._idle == 0 and self._started < self._max:
                self._started += 1
                threading.Thread(target=self._serve, name=f"co-tui-worker-{next(_names)}", daemon=True).start()
            else:
                self._idle = max(0, self._idle - 1)  # that idle worker takes this call
        return future

    def _serve(self) -> None:
        while True:
            item = self._work.get()
            if item is None:
                return
            future, fn, args, kwargs = item
            if future.set_running_or_notify_cancel():
                try:
                    result = fn(*args, **kwargs)
                except BaseException as exc:  # handed to the awaiting side, as ThreadPoolExecutor does
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            del item, future, fn, args, kwargs
            with self._lock:
                self._idle += 1

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more calls and let idle workers end. Never waits (module docstring), whatever `wait`."""
        with self._lock:
            self._closed = True
            threads = self._started
        for _ in range(threads):
            self._work.put(None)


def use_daemon_executor() -> None:
    """Make a `DaemonExecutor` the running loop's default executor (call it on the loop, early)."""
    asyncio.get_running_loop().set_default_executor(DaemonExecutor())
