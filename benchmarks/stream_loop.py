"""What one streamed token costs between the model and the front end (not a test).

Run: `.venv/bin/python benchmarks/stream_loop.py [--tokens N] [--runs R]`.

A FunctionModel streams N one-word tokens as fast as it can (no pacing, no terminal), through the
agent co-tui builds (the governance capability included), consumed four ways, CPU per token side by
side (the median of R interleaved runs):

1. the model's own stream, nothing else (`model.request_stream`): the floor;
2. `agent.iter()` in the caller's task, `node.stream(ctx)` for model-request nodes (no task hop);
3. `agent.run_stream_events()`: the run in a background task, every event handed over a
   zero-buffer channel to the caller's task (what co-tui's turn loop consumed before);
4. `ChatSession.run_turn()`: co-tui's whole turn, domain events out (what the TUI consumes).

(3 - 2) is the price of the task hop per token; (4 - 3) is co-tui's own per-token work. Each way
runs twice, in two processes: with pydantic-ai's stream locks as they ship and made fast-acquire
as co-tui builds its agent (co_tui/agent/stream_locks.py), side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("the", "model", "reads", "a", "file", "and", "then", "keeps", "context", "small")


def make_session(tokens: int) -> Any:
    from pydantic_ai.models.function import FunctionModel

    from co_tui.config import load_settings
    from co_tui.session.chat import ChatSession

    async def stream(messages: Any, info: Any) -> AsyncIterator[str]:
        for i in range(tokens):
            yield f" {WORDS[i % len(WORDS)]}"

    model = FunctionModel(stream_function=stream, model_name="bench-loop")
    return ChatSession(load_settings(), workspace=Path(tempfile.mkdtemp()), model=model)


async def model_only(session: Any) -> int:
    from pydantic_ai.messages import ModelRequest, UserPromptPart
    from pydantic_ai.models import ModelRequestParameters

    count = 0
    request = ModelRequest(parts=[UserPromptPart(content="go")])
    async with session.binding.model.request_stream([request], None, ModelRequestParameters()) as stream:
        async for _ in stream:
            count += 1
    return count


async def via_iter(session: Any) -> int:
    from pydantic_ai import Agent

    count = 0
    async with session.binding.agent.iter("go", message_history=[]) as run:
        async for node in run:
            if Agent.is_model_request_node(node):
                async with node.stream(run.ctx) as stream:
                    async for _ in stream:
                        count += 1
    return count


async def via_run_stream_events(session: Any) -> int:
    count = 0
    async with session.binding.agent.run_stream_events("go", message_history=[]) as run:
        async for _ in run:
            count += 1
    return count


async def via_session(session: Any) -> int:
    count = 0
    session.history.reset()
    async for _ in session.run_turn("go"):
        count += 1
    return count


WAYS: dict[str, Callable[[Any], Coroutine[Any, Any, int]]] = {
    "1. model stream alone": model_only,
    "2. agent.iter() + node.stream()": via_iter,
    "3. agent.run_stream_events()": via_run_stream_events,
    "4. ChatSession.run_turn()": via_session,
}


def measure(tokens: int, runs: int, fast_locks: bool) -> dict[str, float]:
    """CPU seconds per token of each way (median of `runs` interleaved runs), in this process."""
    if not fast_locks:
        import co_tui.agent.stream_locks as stream_locks

        stream_locks.quicken_stream_locks = lambda: False  # the agent is built with pydantic-ai as shipped
    session = make_session(tokens)
    cpu: dict[str, list[float]] = {name: [] for name in WAYS}
    for way in WAYS.values():  # warm-up: imports, first-run caches
        asyncio.run(way(session))
    for _ in range(runs):
        for name, way in WAYS.items():
            c0 = time.process_time()
            asyncio.run(way(session))
            cpu[name].append(time.process_time() - c0)
    return {name: statistics.median(values) / tokens for name, values in cpu.items()}


def main() -> int:
    import json
    import os
    import subprocess

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", choices=("shipped", "fast"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.tokens, args.runs, args.child == "fast")))
        return 0
    print(f"{args.tokens:,} tokens, median of {args.runs} interleaved runs · load {os.getloadavg()[0]:.2f}")
    figures = {}
    for locks in ("shipped", "fast"):
        argv = [sys.executable, __file__, "--child", locks, "--tokens", str(args.tokens), "--runs", str(args.runs)]
        figures[locks] = json.loads(subprocess.run(argv, check=True, capture_output=True, text=True).stdout)
    print(f"{'CPU ms per token':<36}{'locks as shipped':>18}{'fast-acquire':>14}")
    for name in WAYS:
        print(f"{name:<36}{1000 * figures['shipped'][name]:>18.4f}{1000 * figures['fast'][name]:>14.4f}")
    for locks, f in figures.items():
        hop = f["3. agent.run_stream_events()"] - f["2. agent.iter() + node.stream()"]
        own = f["4. ChatSession.run_turn()"] - f["3. agent.run_stream_events()"]
        print(f"locks {locks}: task hop (3 - 2) {1000 * hop:.4f} ms/token; co-tui's turn loop (4 - 3) {1000 * own:.4f}")
    print(f"(load average after: {os.getloadavg()[0]:.2f}; a shared host adds noise to every figure)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
