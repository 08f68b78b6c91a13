"""Running turns in tests: the real `ChatSession` or a fake, collected as a list of events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, TypeVar

T = TypeVar("T")


async def collect(events: AsyncIterator[T]) -> list[T]:
    """Every item of an async stream (a turn's events, a compaction's), in order."""
    return [event async for event in events]


async def run_turn(session: Any, prompt: str, *, errors: bool = False) -> list[Any]:
    """One turn of `session` for `prompt`: its events, in order (the last is `done`). Unless
    `errors`, the test fails on a turn that reported an error (showing its events)."""
    events = await collect(session.run_turn(prompt))
    if not errors:
        assert not of_type(events, "error"), events
    return events


def of_type(events: list[Any], type_: str) -> list[Any]:
    """The events of one `type` (`"usage"`, `"history_trimmed"`, …), in order."""
    return [e for e in events if e.type == type_]
