"""Governance economy benchmark (not a test): how often does a long agent session get cut, and
how much of each request could a provider's prompt cache read back?

A scripted agent session (tests/providers/scripted_session.py) runs through the real pydantic-ai
OpenAI client against the loopback server on 127.0.0.1: each turn reads `--files` files (default 3)
of 1–15 KB with the real `read_file` tool. The server reports input tokens with co-tui's own
estimator, so the meter and the policy count alike. Two scenarios run side by side, each per strategy
(`trim`, `summarize`) and for the same session with nothing cut (a budget no request reaches):

- **defaults**: every setting at its default, the budget derived from gpt-4o's context window as
  co-tui derives it (`context_budget_tokens = 0`: `compact_threshold` × 128k), `--defaults-turns`
  turns (default 80), enough for many cuts. The targets of docs/context-governance.md ("Economy")
  are judged here.
- **stress**: the issue's repro, `--stress-turns` turns (default 40) into a 30,000-token budget
  (`--stress-budget`), every other setting at its default. Each turn adds ~18% of the budget, so
  cuts landing at the default low-water mark would come in nearly half the turns; beside the
  measured cut rate it prints that arithmetic (below), and the prefix-reuse ceiling (0.88× there).

Per strategy it prints, beside the targets:

- turns with a cut (a `history_trimmed` banner) — target: at most 25% of the turns;
- summariser calls — target: at most one per 4 turns;
- prefix reuse vs uncut: the share of all request input that repeats the previous request's leading
  messages byte for byte, as a ratio to the same figure for the uncut session — target ≥ 0.9×. This
  mixes two things: what cuts lose, and the new content every turn brings (its files), which no
  cache can hold because it was never sent before. New content is the same number of tokens in both
  sessions, but a far larger share of a governed request (the uncut context grows ten times larger),
  so this ratio stays under 1 even for a policy whose cuts lost nothing: the "ceiling" row is the
  ratio such a policy would reach, the re-sent share of the input over the uncut session's reuse;
- reuse of re-sent input: per request, what was already in the previous request (everything but the
  messages appended since: the model's last reply, new tool results, the next prompt), and the share
  of that which came back byte for byte as the request's leading messages. This is what a provider's
  prefix cache can read back of what it could have held, i.e. how intact cuts leave the cache (100%
  with no cut at all);
- mean context (the meter's figure at each request) as a share of the budget — target ≥ 35%;
- list-price input cost on gpt-4o (genai-prices) with the reused prefix billed as cached input, and
  without any caching, for reference.

The cut-rate arithmetic (printed for each scenario): between two cuts the context only grows at its
end, by g tokens per turn (measured on the uncut session). Over a session the tokens the cuts free
add up to what the turns added, so the cut rate is g ÷ (mean tokens freed per cut). A cut from the
budget down to the low-water mark frees (1 − `compact_target`) × budget (plus however far the
request that triggered it went past the budget), so a policy whose cuts land at the mark cuts in
about g ÷ ((1 − `compact_target`) × budget) of the turns; only cutting deeper than the mark (less
context kept) or by larger overshoots cuts less often.

Last, the message-count trigger at its default (`max_history_messages` 40) against an agent that
makes `--calls` (20) sequential tool calls per turn (`--calls-turns` turns, files of 1–3 KB): how
often it cuts and how much context it leaves.

Run: `.venv/bin/python benchmarks/economy.py` (about three minutes on an idle machine). To measure other code (say main's),
put its checkout first on the path: `PYTHONPATH=/path/to/checkout .venv/bin/python benchmarks/economy.py`
(the checkout needs tests/providers/scripted_session.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after PYTHONPATH: a checkout named there is the code measured

from tests.providers.loopback import LoopbackServer  # noqa: E402
from tests.providers.scripted_session import SessionRecord, run_session, shared_prefix, write_files  # noqa: E402

UNCUT_BUDGET = 10_000_000
MODEL = "openai-chat:gpt-4o"


@dataclass(frozen=True)
class Scenario:
    name: str
    turns: int
    budget: int  # 0: derived from the model's context window, as co-tui derives it


async def record_session(
    strategy: str,
    budget: int,
    turns: int,
    files_per_turn: int,
    *,
    uncut: bool = False,
    sequential: bool = False,
    max_kb: int = 15,
) -> Any:
    """One scripted session; returns (record, the session's governance policy, messages per turn)."""
    from co_tui.config import Settings
    from co_tui.governance.lookahead import turn_growth
    from co_tui.session.chat import ChatSession

    server = LoopbackServer().start()
    try:
        os.environ.update(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-bench")
        with tempfile.TemporaryDirectory() as tmp:
            workspace = Path(tmp)
            files = write_files(workspace, turns, files_per_turn, seed=11, max_kb=max_kb)
            values: dict[str, Any] = {"model": MODEL, "context_strategy": strategy, "request_timeout_s": 60.0}
            if budget:
                values["context_budget_tokens"] = budget
            if uncut:
                values["max_history_messages"] = 0  # the message-count trigger off, as well as the budget
            chat = ChatSession(Settings(**values), workspace=workspace)
            record = await run_session(chat, server, files, report_estimate=True, sequential=sequential)
            growth = turn_growth(chat.context, recent=turns)
            return record, chat.policy, growth.messages if growth else 0.0
    finally:
        server.stop()


def _dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, sort_keys=True)


def appended_from(previous: list[dict[str, Any]], current: list[dict[str, Any]]) -> int:
    """Index in `current` where what was appended since `previous` starts: just after the previous
    request's last message (cuts keep the newest turn, so it is normally there); when a cut rewrote or
    dropped it, after the last message of `current` that `previous` held byte for byte."""
    if not previous:
        return 0
    last = _dumps(previous[-1])
    dumped = [_dumps(m) for m in current]
    for j in range(len(dumped) - 1, -1, -1):
        if dumped[j] == last:
            return j + 1
    held = set(map(_dumps, previous))
    for j in range(len(dumped) - 1, -1, -1):
        if dumped[j] in held:
            return j + 1
    return 0


def measure(record: SessionRecord, turns: int, budget: int) -> dict[str, Any]:
    """The figures of one session's first `turns` turns."""
    requests = [(r, t) for r, t in zip(record.requests, record.tokens, strict=False) if r[0] < turns]
    reused = total = resent = cached_tokens = 0
    previous: list[dict[str, Any]] = []
    for (_, messages), tokens in requests:
        sizes = [len(_dumps(m)) for m in messages]
        whole = sum(sizes)
        head = sum(sizes[: shared_prefix(previous, messages)])
        reused += head
        total += whole
        resent += sum(sizes[: appended_from(previous, messages)])
        cached_tokens += int(tokens * head / whole) if whole else 0
        previous = messages
    cuts = [c for c in record.cuts[:turns] if c]
    return {
        "cut_turns": len(cuts),
        "count_only": sum(1 for c in cuts if all(e.reason == "message_count" for e in c)),
        "turns": turns,
        "summary_calls": record.summary_calls,
        "reuse": reused / total if total else 0.0,
        "resent_reuse": reused / resent if resent else 1.0,
        "resent_share": resent / total if total else 0.0,
        "context_share": sum(t for _, t in requests) / len(requests) / budget if requests else 0.0,
        "input_tokens": sum(t for _, t in requests),
        "cached_tokens": cached_tokens,
        "freed_per_cut": sum(c[0].tokens_before - c[-1].tokens_after for c in cuts) / len(cuts) if cuts else 0.0,
        "landing": sum(c[-1].tokens_after for c in cuts) / len(cuts) / budget if cuts else 0.0,
    }


def growth_per_turn(uncut: SessionRecord, turns: int) -> float:
    """Mean tokens a turn adds: the uncut session's first request of the last turn over the turns before."""
    firsts: dict[int, int] = {}
    for (turn, _), tokens in zip(uncut.requests, uncut.tokens, strict=False):
        firsts.setdefault(turn, tokens)
    last = min(turns, len(firsts)) - 1
    return (firsts[last] - firsts[0]) / last if last > 0 else 0.0


def _cost(input_tokens: int, cached_tokens: int) -> tuple[float, float]:
    from genai_prices import Usage, calc_price

    cached = calc_price(
        Usage(input_tokens=input_tokens, cache_read_tokens=cached_tokens), model_ref="gpt-4o", provider_id="openai"
    )
    plain = calc_price(Usage(input_tokens=input_tokens), model_ref="gpt-4o", provider_id="openai")
    return float(cached.total_price), float(plain.total_price)


def report(
    scenario: Scenario, results: dict[str, dict[str, Any]], policy: Any, growth: float, messages_per_turn: float
) -> None:
    uncut = results["uncut"]
    budget, target, limit = policy.budget_tokens, policy.compact_target, policy.max_history_messages
    judged = scenario.name == "defaults"
    print(
        f"\n== {scenario.name}: {scenario.turns} turns, budget {budget:,}"
        + (" (derived from gpt-4o's window)" if not scenario.budget else "")
        + f", compact_target {target}, max_history_messages {limit}; targets {'judged here' if judged else 'for reference'}"
    )
    print(f"{'':36}{'trim':>12}{'summarize':>12}{'uncut':>12}   target")
    rows = [
        ("turns with a cut", lambda r: f"{r['cut_turns']}/{r['turns']} {r['cut_turns'] / r['turns']:.0%}", "<= 25%"),
        ("  of which by message count only", lambda r: f"{r['count_only']}", ""),
        ("summariser calls per turn", lambda r: f"{r['summary_calls'] / r['turns']:.2f}", "<= 0.25"),
        ("prefix reuse (share of all input)", lambda r: f"{r['reuse']:.0%}", ""),
        ("prefix reuse vs uncut", lambda r: f"{r['reuse'] / uncut['reuse']:.3f}x", ">= 0.90x"),
        ("  ceiling: if cuts lost nothing", lambda r: f"{r['resent_share'] / uncut['reuse']:.2f}x", ""),
        ("reuse of re-sent input", lambda r: f"{r['resent_reuse']:.1%}", ""),
        ("mean context / budget", lambda r: "n/a" if r is uncut else f"{r['context_share']:.0%}", ">= 35%"),
        ("mean tokens freed per cut", lambda r: f"{r['freed_per_cut']:,.0f}" if r["cut_turns"] else "-", ""),
        ("mean context after a cut / budget", lambda r: f"{r['landing']:.0%}" if r["cut_turns"] else "-", ""),
        ("input tokens sent", lambda r: f"{r['input_tokens']:,}", ""),
        ("gpt-4o input $, prefix cached", lambda r: f"{_cost(r['input_tokens'], r['cached_tokens'])[0]:.3f}", ""),
        ("gpt-4o input $, no caching", lambda r: f"{_cost(r['input_tokens'], r['cached_tokens'])[1]:.3f}", ""),
    ]
    for label, show, goal in rows:
        print(f"{label:36}" + "".join(f"{show(results[k]):>12}" for k in ("trim", "summarize", "uncut")) + f"   {goal}")
    room = (1 - target) * budget
    print(
        f"cut-rate arithmetic, tokens: a turn adds g = {growth:,.0f} tokens ({growth / budget:.0%} of the budget); "
        f"a cut from the budget to the mark frees ~(1 - {target}) x budget = {room:,.0f}, so cuts landing at the "
        f"mark come in ~{min(1.0, growth / room):.0%} of the turns; measured: "
        + ", ".join(
            f"{s} g / {results[s]['freed_per_cut']:,.0f} freed per cut = {growth / results[s]['freed_per_cut']:.0%}"
            for s in ("trim", "summarize")
            if results[s]["cut_turns"]
        )
    )
    if limit:
        freed = limit - policy.target_messages
        print(
            f"cut-rate arithmetic, messages: a turn adds {messages_per_turn:.1f} messages; a cut from "
            f"{limit} to the mark ({policy.target_messages}) frees {freed}, so the message-count trigger alone cuts "
            f"in ~{min(1.0, messages_per_turn / freed):.0%} of the turns"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--defaults-turns", type=int, default=80)
    parser.add_argument("--stress-turns", type=int, default=40)
    parser.add_argument("--stress-budget", type=int, default=30_000)
    parser.add_argument("--files", type=int, default=3)
    parser.add_argument("--calls-turns", type=int, default=12, help="turns of the many-tool-calls session")
    parser.add_argument("--calls", type=int, default=20, help="sequential tool calls per turn in that session")
    args = parser.parse_args()

    import co_tui

    print(f"code: {Path(co_tui.__file__).parent.parent}")
    print(f"each turn reads {args.files} files of 1-15 KB; every setting not named is at its default")
    scenarios = [
        Scenario("defaults", args.defaults_turns, 0),
        Scenario("stress", args.stress_turns, args.stress_budget),
    ]
    # One uncut session serves both scenarios: its first turns are the shorter scenario's session.
    longest = max(s.turns for s in scenarios)
    uncut, _, per_turn = asyncio.run(record_session("trim", UNCUT_BUDGET, longest, args.files, uncut=True))
    for scenario in scenarios:
        results: dict[str, dict[str, Any]] = {}
        for strategy in ("trim", "summarize"):
            record, policy, _ = asyncio.run(record_session(strategy, scenario.budget, scenario.turns, args.files))
            results[strategy] = measure(record, scenario.turns, policy.budget_tokens)
        results["uncut"] = measure(uncut, scenario.turns, policy.budget_tokens)
        report(scenario, results, policy, growth_per_turn(uncut, scenario.turns), per_turn)

    # The message-count trigger at its default against an agent that makes many calls per turn.
    record, policy, per_turn = asyncio.run(
        record_session("trim", 0, args.calls_turns, args.calls, sequential=True, max_kb=3)
    )
    figures = measure(record, args.calls_turns, policy.budget_tokens)
    print(
        f"\n== many calls: {args.calls_turns} turns of {args.calls} sequential read_file calls (files of 1-3 KB), "
        f"every setting at its default (max_history_messages {policy.max_history_messages}): "
        f"{per_turn:.0f} messages per turn; turns with a cut {figures['cut_turns']}/{args.calls_turns}, "
        f"of which by message count only {figures['count_only']}; mean context {figures['context_share']:.0%} "
        f"of the budget; reuse of re-sent input {figures['resent_reuse']:.1%}"
    )


if __name__ == "__main__":
    main()
