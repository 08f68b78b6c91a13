"""Running a coroutine to its end from a synchronous test, cheaply enough for a property's thousands of cases."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`: its result on a new event loop, which is closed after (leftover tasks
    cancelled, async generators shut down) — without the SIGINT handler `asyncio.run` swaps in on the
    main thread. Swapping it back formats the handler, which holds the finished main task, and so
    `repr`s the task's whole result: for a policy pass, every message of its output (0.6-2 ms a
    call, ~9% of the pin properties' CPU time).
    """
    loop = asyncio.new_event_loop()
    try:
        asyncio.set_event_loop(loop)
        return loop.run_until_complete(main)
    finally:
        try:
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
