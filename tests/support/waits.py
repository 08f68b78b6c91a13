"""Waiting on conditions with a deadline, for tests without a pilot (an event loop of their own)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


async def finishes_within(task: asyncio.Future[T], seconds: float, what: str) -> T:
    """`task`'s result (or its exception), failing the test if it is still running after `seconds`.

    A bound on how long something may take to end, checked as a deadline on a condition: a correct
    run never waits for it, only a failing one does.
    """
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        raise AssertionError(f"{what} had not finished {seconds:g} s later")
    return task.result()


async def until(predicate: Callable[[], object], what: str, *, every: float = 0.01, timeout: float = 60.0) -> None:
    """Let the event loop run until `predicate()` is truthy, checking every `every` seconds (`0`:
    every iteration, to act at an exact point of another task's progress); fail naming `what` after
    `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(every)
