"""The types a session's start and close share with the port (lifecycle.py has the logic): what
closing says (`Closing`) and how a front end runs the MCP servers' supervisor (`Spawn`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

__all__ = ["Background", "Closing", "Spawn", "Task"]


@dataclass(frozen=True)
class Closing:
    """What closing a session leaves to say: `hint` (stdout: how to resume it), `problem` (stderr:
    the last save failed, and where the rescue copy went, or that none could be written);
    `rescued` that copy; `mcp_stopped` the servers closed; `released` the claim let go."""

    hint: str | None = None
    problem: str | None = None
    rescued: Path | None = None
    mcp_stopped: list[str] = field(default_factory=list)
    released: bool = False


class Background(Protocol):
    """A running background job as a front end started it (a Textual worker): cancel it, wait for it."""

    def cancel(self) -> None:
        """Stop it (its coroutine gets `CancelledError`)."""
        ...

    async def wait(self) -> object:
        """Wait until it has ended (may raise when it failed or was cancelled)."""
        ...


class Task:
    """An asyncio task as a `Background` (no front end gave a way to run one)."""

    def __init__(self, work: Coroutine[Any, Any, None]) -> None:
        self.task = asyncio.ensure_future(work)

    def cancel(self) -> None:
        """Cancel the task."""
        self.task.cancel()

    async def wait(self) -> object:
        """Wait for the task's end."""
        await self.task
        return None


Spawn = Callable[[Coroutine[Any, Any, None]], Background]
"""How a front end runs the MCP servers' supervisor in the background (the TUI: a Textual worker, so
quitting the app stops it); by default a plain task on the running loop."""
