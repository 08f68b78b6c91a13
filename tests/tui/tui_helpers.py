"""Pilot helpers: wait for a condition instead of sleeping."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot


async def wait_until(pilot: Pilot, predicate: Callable[[], object], *, timeout: float = 10.0,
                     what: str = "condition") -> None:
    """Pause the pilot until `predicate()` is truthy; fail the test after `timeout` seconds."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await pilot.pause(0.01)


async def wait_ready(pilot: Pilot) -> None:
    """Wait until the app's session exists and the first paint settled."""
    await wait_until(pilot, lambda: getattr(pilot.app, "session", None) is not None, what="session ready")
    await pilot.pause()


async def wait_idle(pilot: Pilot) -> None:
    """Wait until no turn or compaction runs and all posted events are rendered."""
    app = pilot.app
    await wait_until(pilot, lambda: app._job is None, what="turn finished")
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
