"""Governance economy benchmark (not a test): how often does a long agent session get cut, and
how much of each request could a provider's prompt cache read back?

A scripted agent session (tests/providers/scripted_session.py) runs through the real pydantic-ai
OpenAI client against the loopback server on 127.0.0.1: `--turns` turns (default 40), each reading
`--files` files (default 3) of 1–15 KB with the real `read_file` tool, budget `--budget` tokens
(default 30,000), every other setting at its default. The server reports input tokens with co-tui's
own estimator, so the meter and the policy count alike. Per strategy (`trim`, `summarize`) and for
the same session with nothing cut (a budget no request reaches), it prints, beside the targets of
docs/context-governance.md ("Economy"):

- turns with a cut (a `history_trimmed` banner) — target: at most 25% of the turns;
- summariser calls — target: at most one per 4 turns;
- prefix reuse: the share of all request input that repeats the previous request's leading messages
  byte for byte (what a prefix cache can read back), and its ratio to the uncut session's — target ≥ 0.9;
- mean context (the meter's figure after each request) as a share of the budget — target ≥ 35%;
- list-price input cost on gpt-4o (genai-prices) with the reused prefix billed as cached input, and
  without any caching, for reference.

Run: `.venv/bin/python benchmarks/economy.py` (about a minute). To measure other code (say main's),
put its checkout first on the path: `PYTHONPATH=/path/to/checkout .venv/bin/python benchmarks/economy.py`
(the checkout needs tests/providers/scripted_session.py).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after PYTHONPATH: a checkout named there is the code measured

from tests.providers.loopback import LoopbackServer  # noqa: E402
from tests.providers.scripted_session import run_session, shared_prefix, size, write_files  # noqa: E402

UNCUT_BUDGET = 10_000_000


async def one_session(
    strategy: str, budget: int, turns: int, files_per_turn: int, max_messages: int | None
) -> dict[str, Any]:
    from co_tui.config import Settings
    from co_tui.session.chat import ChatSession

    server = LoopbackServer().start()
    try:
        os.environ.update(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-bench")
        with tempfile.TemporaryDirectory() as tmp:
            workspace = Path(tmp)
            files = write_files(workspace, turns, files_per_turn, seed=11)
            values: dict[str, Any] = {
                "model": "openai-chat:gpt-4o",
                "context_budget_tokens": budget,
                "context_strategy": strategy,
                "request_timeout_s": 30.0,
            }
            if max_messages is not None:
                values["max_history_messages"] = max_messages
            chat = ChatSession(Settings(**values), workspace=workspace)
            record = await run_session(chat, server, files, report_estimate=True)
    finally:
        server.stop()
    reused = total = cached_tokens = 0
    previous: list[dict[str, Any]] = []
    for (_, messages), tokens in zip(record.requests, record.tokens, strict=False):
        whole = sum(size(m) for m in messages)
        head = sum(size(m) for m in messages[: shared_prefix(previous, messages)])
        reused += head
        total += whole
        cached_tokens += int(tokens * head / whole) if whole else 0
        previous = messages
    return {
        "cut_turns": sum(1 for cuts in record.cuts if cuts),
        "turns": turns,
        "summary_calls": record.summary_calls,
        "reuse": reused / total if total else 0.0,
        "context_share": sum(record.tokens) / len(record.tokens) / budget if record.tokens else 0.0,
        "input_tokens": sum(record.tokens),
        "cached_tokens": cached_tokens,
    }


def _cost(input_tokens: int, cached_tokens: int) -> tuple[float, float]:
    from genai_prices import Usage, calc_price

    cached = calc_price(
        Usage(input_tokens=input_tokens, cache_read_tokens=cached_tokens), model_ref="gpt-4o", provider_id="openai"
    )
    plain = calc_price(Usage(input_tokens=input_tokens), model_ref="gpt-4o", provider_id="openai")
    return float(cached.total_price), float(plain.total_price)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--files", type=int, default=3)
    parser.add_argument("--budget", type=int, default=30_000)
    parser.add_argument(
        "--max-history-messages",
        type=int,
        default=None,
        help="default: the setting's default (40); 0 disables the message trigger where supported",
    )
    args = parser.parse_args()

    import co_tui

    print(f"code: {Path(co_tui.__file__).parent.parent}")
    print(
        f"session: {args.turns} turns x {args.files} files of 1-15 KB, budget {args.budget:,}, "
        f"max_history_messages {'default' if args.max_history_messages is None else args.max_history_messages}"
    )
    uncut = asyncio.run(one_session("trim", UNCUT_BUDGET, args.turns, args.files, 10**6))
    results = {
        s: asyncio.run(one_session(s, args.budget, args.turns, args.files, args.max_history_messages))
        for s in ("trim", "summarize")
    }
    results["uncut"] = uncut
    print(f"{'':34}{'trim':>12}{'summarize':>12}{'uncut':>12}   target")
    rows = [
        ("turns with a cut", lambda r: f"{r['cut_turns']}/{r['turns']} {r['cut_turns'] / r['turns']:.0%}", "<= 25%"),
        ("summariser calls per turn", lambda r: f"{r['summary_calls'] / r['turns']:.2f}", "<= 0.25"),
        ("prefix reuse (share of input)", lambda r: f"{r['reuse']:.0%}", ""),
        ("prefix reuse vs uncut", lambda r: f"{r['reuse'] / uncut['reuse']:.2f}x", ">= 0.90x"),
        ("mean context / budget", lambda r: "n/a" if r is uncut else f"{r['context_share']:.0%}", ">= 35%"),
        ("input tokens sent", lambda r: f"{r['input_tokens']:,}", ""),
        ("gpt-4o input $, prefix cached", lambda r: f"{_cost(r['input_tokens'], r['cached_tokens'])[0]:.3f}", ""),
        ("gpt-4o input $, no caching", lambda r: f"{_cost(r['input_tokens'], r['cached_tokens'])[1]:.3f}", ""),
    ]
    for label, show, target in rows:
        print(
            f"{label:34}" + "".join(f"{show(results[k]):>12}" for k in ("trim", "summarize", "uncut")) + f"   {target}"
        )


if __name__ == "__main__":
    main()
