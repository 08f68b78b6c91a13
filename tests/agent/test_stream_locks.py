"""pydantic-ai's per-token stream locks made fast-acquire (agent/stream_locks.py): the stream still
delivers every token in order, and the event loop still gets a turn while a burst streams."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic_ai.models.function import FunctionModel

from co_tui.agent.stream_locks import quicken_stream_locks
from co_tui.config import load_settings
from co_tui.session.chat import ChatSession

TOKENS = [f" t{i}" for i in range(2000)]


def test_the_installed_pydantic_ai_has_the_locks_it_expects() -> None:
    # False would mean a pydantic-ai release renamed them: the stream works, only slower.
    assert quicken_stream_locks() is True


async def test_a_burst_streams_in_order_and_the_loop_keeps_turning(workspace: Path) -> None:
    async def burst(messages, info):  # a provider whose tokens are all buffered: no wait between them
        for token in TOKENS:
            yield token

    session = ChatSession(
        load_settings(), workspace=workspace, model=FunctionModel(stream_function=burst, model_name="burst")
    )
    ticks = 0
    streaming = True

    async def other_work() -> None:  # what the UI does meanwhile (a key press, a frame)
        nonlocal ticks
        while streaming:
            ticks += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(other_work())
    deltas, done = [], None
    async for event in session.run_turn("go"):
        if event.type == "text_delta":
            deltas.append(event.text)
        elif event.type == "done":
            done = event
    streaming = False
    await ticker
    assert "".join(deltas) == "".join(TOKENS), "every token, in order"
    assert done is not None and not done.failed and done.output == "".join(TOKENS)
    assert ticks >= len(TOKENS) // 2, "the loop gave other tasks a turn throughout the stream"
