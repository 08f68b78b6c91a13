"""Delegation benchmark (not a test): an exploration done inline vs handed to a subagent.

The task: read `--files` files (default 20) of 2–15 KB with the real `read_file` tool, four per
step, then answer one question (which file holds a marker line). It runs twice through the real
pydantic-ai OpenAI client against the loopback server on 127.0.0.1, after the same warm-up
conversation (`--warmup` turns of ordinary chat, so the main context holds something):

- **inline**: the main agent reads the files itself;
- **delegated**: the main agent calls `delegate` once; an `explore` child (its own context, the
  default `subagent_budget_tokens`) reads them and answers; the main agent answers from that.

The server reports input tokens with a size-based count (~4 characters a token), the same for both.
It prints, side by side:

- the main context's tokens after the exploration (the meter's figure) and how much the
  exploration added to it — target: delegated adds at most 10% of what inline adds;
- cuts in the main context (`history_trimmed`) — target: none when delegated; and cuts in the child;
- model requests, and total input tokens across all agents (what delegation costs in total);
- the input cost at gpt-4o's list prices (genai-prices), with each agent's re-sent prefix billed as
  cached input (the leading messages of a request equal to its previous request's, per agent), and
  without caching.

Run: `.venv/bin/python benchmarks/delegation.py` (a few seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after PYTHONPATH: a checkout named there is the code measured

from tests.providers.loopback import LoopbackServer, RecordedRequest, Reply, ToolCallSpec  # noqa: E402
from tests.providers.scripted_session import shared_prefix, size, write_files  # noqa: E402

MODEL = "openai-chat:gpt-4o"
MARKER = "# the deployment region is eu-north-7"
QUESTION = "Which file says what the deployment region is?"
FILLER = "Here is a considered answer about the project. " * 60
BATCH = 4


def is_child(request: RecordedRequest) -> bool:
    first = request.body["messages"][0]
    return first["role"] in ("system", "developer") and "exploration subagent" in str(first["content"])


class Script:
    """The scripted model: chats in warm-up turns; an exploring agent (the main one inline, the
    child delegated) reads `BATCH` files a step until it has read them all, then names the file."""

    def __init__(self, files: list[str], needle: str, *, delegate: bool) -> None:
        self.files, self.needle, self.delegate = files, needle, delegate
        self.read = {"main": 0, "child": 0}

    def __call__(self, request: RecordedRequest) -> Reply:
        messages = request.body["messages"]
        prompt = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        agent = "child" if is_child(request) else "main"
        if agent == "main" and not prompt.startswith(QUESTION):
            return Reply(FILLER)
        if agent == "main" and self.delegate:
            last = messages[-1] if messages[-1]["role"] == "tool" else None
            if last is None:
                return Reply(
                    tool_calls=(ToolCallSpec("delegate", {"task": f"{QUESTION} Read every file under src."}, "d1"),)
                )
            return Reply("From the subagent: " + last["content"].splitlines()[-1])
        done = self.read[agent]
        if done < len(self.files):
            batch = self.files[done : done + BATCH]
            self.read[agent] = done + len(batch)
            calls = tuple(ToolCallSpec("read_file", {"path": p}, f"r{done + i}") for i, p in enumerate(batch))
            return Reply(tool_calls=calls)
        return Reply(f"{self.needle} holds it: the region is eu-north-7.")


def input_costs(requests: list[RecordedRequest]) -> tuple[int, float, float]:
    """(cached input tokens, $ with the re-sent prefix cached, $ without caching) at gpt-4o list prices."""
    from genai_prices import Usage, calc_price

    previous: dict[bool, list[dict[str, Any]]] = {}
    total = cached = 0
    for request in requests:
        messages = request.body["messages"]
        tokens = max(1, len(request.text()) // 4)
        key = is_child(request)
        before = previous.get(key)
        if before is not None:
            n = shared_prefix(before, messages)
            share = sum(size(m) for m in messages[:n]) / max(1, sum(size(m) for m in messages))
            cached += int(tokens * share)
        previous[key] = messages
        total += tokens
    with_cache = calc_price(
        Usage(input_tokens=total, cache_read_tokens=cached), model_ref="gpt-4o", provider_id="openai"
    )
    plain = calc_price(Usage(input_tokens=total), model_ref="gpt-4o", provider_id="openai")
    return cached, float(with_cache.total_price), float(plain.total_price)


async def run(delegate: bool, files_count: int, warmup: int) -> dict[str, Any]:
    from co_tui.config import Settings
    from co_tui.session.chat import ChatSession

    server = LoopbackServer().start()
    try:
        os.environ.update(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-bench")
        with tempfile.TemporaryDirectory() as tmp:
            workspace = Path(tmp)
            (names,) = write_files(workspace, 1, files_count, seed=7, min_kb=2, max_kb=15)
            needle = names[len(names) * 2 // 3]
            path = workspace / needle
            path.write_text(path.read_text() + MARKER + "\n")
            server.responder = Script(names, needle, delegate=delegate)
            chat = ChatSession(Settings(model=MODEL, request_timeout_s=60.0), workspace=workspace)
            for i in range(warmup):
                [e async for e in chat.run_turn(f"warm-up question {i}: tell me about the project")]
            before = chat.meter_reading().context_tokens
            cuts_before = len(chat.history.ledger)
            events = [e async for e in chat.run_turn(QUESTION)]
            after = chat.meter_reading().context_tokens
            finished = [e for e in events if e.type == "subagent_finished"]
            answer = next(e for e in events if e.type == "done").output
            exploration = [r for r in server.requests[warmup:]]
            cached, cost, plain = input_costs(exploration)
            return {
                "answer_right": needle in answer,
                "main_before": before,
                "main_after": after,
                "main_added": after - before,
                "main_cuts": len(chat.history.ledger) - cuts_before,
                "child_cuts": sum(e.cuts for e in finished),
                "requests": len(exploration),
                "input_tokens": sum(max(1, len(r.text()) // 4) for r in exploration),
                "cached_tokens": cached,
                "cost_cached": cost,
                "cost_plain": plain,
                "child_context": sum(e.context_tokens for e in finished),
            }
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=4)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    inline = asyncio.run(run(False, args.files, args.warmup))
    delegated = asyncio.run(run(True, args.files, args.warmup))
    rows = [
        ("answer names the right file", "answer_right", "{}"),
        ("main context before, tokens", "main_before", "{:,}"),
        ("main context after, tokens", "main_after", "{:,}"),
        ("main context added, tokens", "main_added", "{:,}"),
        ("cuts in the main context", "main_cuts", "{}"),
        ("cuts in the child's context", "child_cuts", "{}"),
        ("child's context at its end, tokens", "child_context", "{:,}"),
        ("model requests (all agents)", "requests", "{}"),
        ("input tokens, all agents", "input_tokens", "{:,}"),
        ("of which a re-sent prefix (cacheable)", "cached_tokens", "{:,}"),
        ("gpt-4o input $, prefix cached", "cost_cached", "{:.4f}"),
        ("gpt-4o input $, no caching", "cost_plain", "{:.4f}"),
    ]
    print(f"{args.files} files of 2-15 KB, {args.warmup} warm-up turns, {MODEL} list prices\n")
    print(f"{'':40} {'inline':>12} {'delegated':>12} {'ratio':>7}")
    for label, key, fmt in rows:
        a, b = inline[key], delegated[key]
        ratio = f"{b / a:.2f}×" if isinstance(a, (int, float)) and not isinstance(a, bool) and a else ""
        print(f"{label:40} {fmt.format(a):>12} {fmt.format(b):>12} {ratio:>7}")
    share = delegated["main_added"] / max(1, inline["main_added"])
    ok = share <= 0.10 and delegated["main_cuts"] == 0
    print(
        f"\ntarget: the main context grows by at most 10% of what inline adds, no cut in it — "
        f"{share:.1%}, {delegated['main_cuts']} cuts: {'met' if ok else 'NOT met'}"
    )
    if args.json:
        args.json.write_text(json.dumps({"inline": inline, "delegated": delegated}, indent=2))


if __name__ == "__main__":
    main()
