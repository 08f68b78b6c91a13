"""Governance economy benchmark (not a test): how often does a long agent session get cut, and
how much of each request could a provider's prompt cache read back?

A scripted agent session (tests/providers/scripted_session.py) runs through the real pydantic-ai
OpenAI client against the loopback server on 127.0.0.1: each turn reads `--files` files (default 3)
of 1–15 KB with the real `read_file` tool. The server reports input tokens with co-tui's own
estimator, so the meter and the policy count alike. Three scenarios run, each per strategy (`trim`,
`summarize`) and for the same session with nothing cut (a budget no request reaches):

- **defaults**: every setting at its default, the budget derived from gpt-4o's context window as
  co-tui derives it (`context_budget_tokens = 0`: `compact_threshold` × 128k), `--defaults-turns`
  turns (default 80), enough for many cuts.
- **corpus**: `--corpus-turns` turns (default 150) shaped like the shared corpus of agent transcripts (`../shared/corpus` beside the checkout):
  each is a real corpus turn that made tool calls, drawn at random, whose tool outputs one or two
  sequential `read_file` calls return — ~5 messages and ~750 tokens a turn, as real agent sessions;
  every setting at its default. The targets of docs/context-governance.md ("Economy") are judged
  here and in defaults.
- **stress**: `--stress-turns` turns (default 40) into a 30,000-token budget
  (`--stress-budget`), every other setting at its default. Each turn adds ~18% of the budget, so
  cuts landing at the default low-water mark would come in nearly half the turns; beside the
  measured cut rate it prints that arithmetic (below), and the prefix-reuse ceiling (0.88× there).

Per strategy it prints, beside the targets:

- turns with a cut (a `history_trimmed` banner) — target: at most 25% of the turns;
- summariser calls — target: at most one per 4 turns;
- prefix reuse vs uncut: the share of all request input that repeats the previous request's leading
  messages byte for byte (none of it when the request's tool list changed: a provider's cached
  prefix starts with the tools; "requests whose tool list changed" counts them — `recall` joins at
  the first cut — and what reuse they lost), as a ratio to the same figure for the uncut session — target ≥ 0.9×. This
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

- **rereads** (issue 44): `--rereads-turns` turns (default 80) as defaults, but each turn reads one
  new file and re-reads two files read in the ten turns before (an agent going back to what it
  read), every setting at its default (`--no-dedup`: the same code leaving repeats as they are, to
  compare). "outputs noted as repeats" counts the older copies a cut
  turned into a note naming the newer one (docs/context-governance.md, "Repeated reads"); run it
  against the checkout before (`PYTHONPATH=<it> … --only rereads --json before.json`, then
  `--side-by-side before.json after.json`) to see what the dedup changes.

Last, an agent that makes `--calls` (20) sequential tool calls per turn (`--calls-turns` turns, files
of 1–3 KB, 42 messages a turn): how often it is cut and how much context it keeps.

`--limits` (default: the default `max_history_messages`, 500) runs defaults, corpus and many calls at
each value given (stress only at the default) and ends with a table of the four targets per value
and the rule that chose the default (docs/context-governance.md, "Why 500 messages"): the smallest of
200 and 500 at which every judged target holds for both strategies and many calls cuts in at most 25%
of its turns, else 0. `--only defaults,corpus,...` runs a subset.

In stress (the 32k-window agent scenario of issue 29), with `--recall-every N` the scripted model
reads back, every N turns, one output a cut note names with `recall`, and "tokens returned by recall" adds up
what those reads cost. `--json FILE` writes every scenario's figures; `--side-by-side BEFORE AFTER`
prints two such files as the before/after table (turns with a cut, summariser calls, prefix reuse vs
uncut, mean context, cost with caching, tokens on recall).

Run: `.venv/bin/python benchmarks/economy.py` (about ten minutes on an idle machine; the decision,
`--limits 40,200,500,0`, about four times that). To measure other code (say main's),
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
    limit: int | None = None,
    corpus: bool = False,
    recall_every: int = 0,
    rereads: bool = False,
) -> Any:
    """One scripted session; returns (record, the session's governance policy, messages per turn).

    `limit`: `max_history_messages` (None: its default). `corpus`: corpus-shaped turns
    (`write_corpus_files`; `files_per_turn` and `max_kb` unused)."""
    from co_tui.config import Settings
    from co_tui.governance.lookahead import turn_growth
    from co_tui.session.chat import ChatSession

    server = LoopbackServer().start()
    try:
        os.environ.update(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-bench")
        with tempfile.TemporaryDirectory() as tmp:
            workspace = Path(tmp)
            if corpus:
                files = write_corpus_files(workspace, turns, seed=11)
            else:
                files = write_files(workspace, turns, files_per_turn, seed=11, max_kb=max_kb)
                files = with_rereads(files) if rereads else files
            values: dict[str, Any] = {"model": MODEL, "context_strategy": strategy, "request_timeout_s": 60.0}
            if budget:
                values["context_budget_tokens"] = budget
            if limit is not None:
                values["max_history_messages"] = limit
            if uncut:
                values["max_history_messages"] = 0  # the message-count trigger off, as well as the budget
            chat = ChatSession(Settings(**values), workspace=workspace)
            record = await run_session(
                chat, server, files, report_estimate=True, sequential=sequential or corpus, recall_every=recall_every
            )
            growth = turn_growth(chat.context, recent=turns)
            return record, chat.binding.policy, growth.messages if growth else 0.0
    finally:
        server.stop()


def with_rereads(files: list[list[str]], *, window: int = 10, seed: int = 5) -> list[list[str]]:
    """Each turn's first file as written, the others files read in the `window` turns before (two
    distinct ones, drawn at random): an agent re-reading what it read a little earlier."""
    import random

    rng = random.Random(seed)
    out: list[list[str]] = []
    for t, batch in enumerate(files):
        earlier = list(dict.fromkeys(name for names in out[max(0, t - window) :] for name in names))
        again = rng.sample(earlier, min(len(batch) - 1, len(earlier)))
        out.append([batch[0], *again, *batch[1 + len(again) :]])
    return out


def corpus_tool_turns() -> list[list[str]]:
    """The tool outputs of every turn of the shared corpus that made a tool call (85 turns)."""
    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    from co_tui.governance.turns import segment
    from tests.governance.corpus import load_transcript, transcript_files

    turns: list[list[str]] = []
    for path in transcript_files():
        for turn in segment(load_transcript(path)).turns:
            outputs = [
                p.content if isinstance(p.content, str) else json.dumps(p.content)
                for m in turn.messages
                if isinstance(m, ModelRequest)
                for p in m.parts
                if isinstance(p, ToolReturnPart)
            ]
            if outputs:
                turns.append(outputs)
    return turns


def write_corpus_files(workspace: Path, turns: int, *, seed: int = 0) -> list[list[str]]:
    """Corpus-shaped turns: each is a real corpus turn that made tool calls (drawn at random), its tool
    outputs as the content of one file (a turn with one output) or two (the first and second half of
    its outputs), read by one sequential `read_file` call each — ~5 messages and ~700 tokens a turn,
    as the corpus's turns. Returns the file names per turn."""
    import random

    rng = random.Random(seed)
    pool = corpus_tool_turns()
    if not pool:
        raise SystemExit(f"the corpus-shaped scenario needs the shared corpus ({ROOT.parent / 'shared' / 'corpus'})")
    names: list[list[str]] = []
    for t in range(turns):
        outputs = rng.choice(pool)
        half = (len(outputs) + 1) // 2
        parts = [outputs] if len(outputs) == 1 else [outputs[:half], outputs[half:]]
        batch = []
        for f, chunk in enumerate(parts):
            name = f"out/t{t:03d}_f{f}.txt"
            (workspace / name).parent.mkdir(parents=True, exist_ok=True)
            (workspace / name).write_text("\n".join(chunk) + "\n", encoding="utf-8")
            batch.append(name)
        names.append(batch)
    return names


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
    tool_lists = getattr(record, "tools", None) or [""] * len(record.requests)
    from co_tui.governance.tokens import estimate_text_tokens

    reused = total = resent = cached_tokens = tool_changes = lost_to_tools = tool_tokens = 0
    first_change: int | None = None
    previous: list[dict[str, Any]] = []
    previous_tools: str | None = None
    for i, (((_, messages), tokens), tools) in enumerate(zip(requests, tool_lists, strict=False)):
        sizes = [len(_dumps(m)) for m in messages]
        whole = sum(sizes)
        head = sum(sizes[: shared_prefix(previous, messages)])
        tool_tokens += estimate_text_tokens(tools) if tools else 0
        if previous_tools is not None and tools != previous_tools:
            # A provider's cached prefix starts with the tool list: a changed list re-sends it all.
            first_change = i if first_change is None else first_change
            tool_changes += 1
            lost_to_tools += head
            head = 0
        reused += head
        total += whole
        resent += sum(sizes[: appended_from(previous, messages)])
        cached_tokens += int(tokens * head / whole) if whole else 0
        previous, previous_tools = messages, tools
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
        "recall_tokens": getattr(record, "recall_tokens", 0),
        "requests": len(requests),
        "tool_changes": tool_changes,
        "first_tool_change": first_change,  # the request (0-based) whose tool list first changed
        "tool_tokens": tool_tokens,  # co-tui's estimate of the tool schemas sent, all requests
        "lost_to_tools": lost_to_tools / total if total else 0.0,
        "deduplicated": sum(getattr(e, "deduplicated_outputs", 0) for c in cuts for e in c),
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
    judged = scenario.name in JUDGED
    print(
        f"\n== {scenario.name}: {scenario.turns} turns, budget {budget:,}"
        + (" (derived from gpt-4o's window)" if not scenario.budget else "")
        + f", compact_target {target}"
        + (f" (token mark {policy.token_mark:.2f})" if getattr(policy, "token_mark", target) != target else "")
        + f", max_history_messages {limit}; targets {'judged here' if judged else 'for reference'}"
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
        ("tokens returned by recall", lambda r: f"{r['recall_tokens']:,}", ""),
        ("outputs noted as repeats", lambda r: f"{r.get('deduplicated', 0):,}", ""),
        ("requests whose tool list changed", lambda r: f"{r['tool_changes']}", ""),
        (
            "  first at request",
            lambda r: f"{r['first_tool_change'] + 1} of {r['requests']}" if r["tool_changes"] else "-",
            "",
        ),
        ("  reuse they lost (share of input)", lambda r: f"{r['lost_to_tools']:.3%}", ""),
        ("tool schema tokens sent", lambda r: f"{r['tool_tokens']:,}", ""),
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


JUDGED = ("defaults", "corpus")  # the scenarios whose four targets decide the default (docs/context-governance.md)


def targets_met(figures: dict[str, Any], uncut: dict[str, Any]) -> dict[str, bool]:
    """The four targets of one governed session against its uncut twin."""
    turns = figures["turns"]
    return {
        "cuts": figures["cut_turns"] <= 0.25 * turns,
        "summariser": figures["summary_calls"] <= 0.25 * turns,
        "reuse": figures["reuse"] >= 0.9 * uncut["reuse"],
        "context": figures["context_share"] >= 0.35,
    }


def decide(verdicts: dict[int, dict[str, bool]], candidates: tuple[int, ...] = (200, 500)) -> int | None:
    """The rule of docs/context-governance.md ("Why 500 messages"): the smallest candidate at which every
    judged target held and the many-calls session cut in at most 25% of its turns; 0 if none did;
    None when a candidate was not measured."""
    needed = {f"{name}/{strategy}" for name in JUDGED for strategy in ("trim", "summarize")} | {"calls"}
    for limit in candidates:
        if not needed <= set(verdicts.get(limit, {})):
            return None
        if all(verdicts[limit].values()):
            return limit
    return 0


def main() -> None:
    from co_tui.config import Settings

    default_limit = Settings.model_fields["max_history_messages"].default
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--defaults-turns", type=int, default=80)
    parser.add_argument("--stress-turns", type=int, default=40)
    parser.add_argument("--stress-budget", type=int, default=30_000)
    parser.add_argument("--corpus-turns", type=int, default=150, help="turns of the corpus-shaped session")
    parser.add_argument("--rereads-turns", type=int, default=80, help="turns of the re-reading session")
    parser.add_argument("--files", type=int, default=3)
    parser.add_argument("--calls-turns", type=int, default=12, help="turns of the many-tool-calls session")
    parser.add_argument("--calls", type=int, default=20, help="sequential tool calls per turn in that session")
    parser.add_argument(
        "--limits",
        default=str(default_limit),
        help=f"comma-separated max_history_messages values to run defaults, corpus and many calls at "
        f"(default: the default, {default_limit}; the decision: 40,200,500,0); stress runs at the default only",
    )
    parser.add_argument(
        "--only", default="defaults,stress,corpus,rereads,calls", help="comma-separated scenarios to run (default: all)"
    )
    parser.add_argument(
        "--recall-every",
        type=int,
        default=0,
        help="in stress, every N-th turn the scripted model reads back one cut output with recall (0: never)",
    )
    parser.add_argument("--json", help="also write every scenario's figures to this file (for --side-by-side)")
    parser.add_argument(
        "--no-dedup",
        action="store_true",
        help="cuts leave repeated reads as they are (the same code without docs/context-governance.md's "
        "'Repeated reads'), to compare with a run with them",
    )
    parser.add_argument(
        "--side-by-side",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="print two --json files' figures side by side (issue 29's table), run nothing",
    )
    args = parser.parse_args()
    if args.side_by_side:
        side_by_side(*args.side_by_side)
        return
    figures_out: dict[str, Any] = {}
    if args.no_dedup:
        from co_tui.governance import trim
        from co_tui.governance.dedup import DedupResult

        trim.dedupe_outputs = lambda messages, layout, tokens: DedupResult(messages, 0, tokens, tokens, layout)  # type: ignore[assignment]
    limits = [int(v) for v in args.limits.split(",")]
    only = set(args.only.split(","))

    import co_tui

    print(f"code: {Path(co_tui.__file__).parent.parent}")
    print(
        f"defaults/stress: each turn reads {args.files} files of 1-15 KB; corpus: each turn one or two sequential "
        f"read_file calls returning a real corpus turn's tool outputs; every setting not named is at its default"
    )
    verdicts: dict[int, dict[str, bool]] = {}
    summary: list[str] = []

    def judge(limit: int, name: str, results: dict[str, dict[str, Any]]) -> None:
        for strategy in ("trim", "summarize"):
            met = targets_met(results[strategy], results["uncut"])
            verdicts.setdefault(limit, {})[f"{name}/{strategy}"] = all(met.values())
            r, u = results[strategy], results["uncut"]
            summary.append(
                f"{limit:>6} {name:9}{strategy:10}{r['cut_turns'] / r['turns']:>7.0%}{r['summary_calls'] / r['turns']:>9.2f}"
                f"{r['reuse'] / u['reuse']:>9.3f}x{r['context_share']:>9.0%}   "
                + ("all met" if all(met.values()) else "missed: " + ", ".join(k for k, ok in met.items() if not ok))
            )

    def run_scenario(scenario: Scenario, uncut: SessionRecord, per_turn: float, limit: int | None, **kw: Any) -> None:
        results: dict[str, dict[str, Any]] = {}
        for strategy in ("trim", "summarize"):
            record, policy, _ = asyncio.run(
                record_session(strategy, scenario.budget, scenario.turns, args.files, limit=limit, **kw)
            )
            results[strategy] = measure(record, scenario.turns, policy.budget_tokens)
        results["uncut"] = measure(uncut, scenario.turns, policy.budget_tokens)
        report(scenario, results, policy, growth_per_turn(uncut, scenario.turns), per_turn)
        figures_out[f"{scenario.name}@{policy.max_history_messages}"] = {
            "budget": policy.budget_tokens,
            **{k: {**v, "cost": _cost(v["input_tokens"], v["cached_tokens"])[0]} for k, v in results.items()},
        }
        if args.json:
            Path(args.json).write_text(json.dumps({"code": str(Path(co_tui.__file__).parent.parent), **figures_out}))
        if scenario.name in JUDGED:
            judge(policy.max_history_messages, scenario.name, results)

    # One uncut session serves defaults and stress: its first turns are the shorter scenario's session.
    scenarios = [
        s
        for s in (
            Scenario("defaults", args.defaults_turns, 0),
            Scenario("stress", args.stress_turns, args.stress_budget),
        )
        if s.name in only
    ]
    if scenarios:
        longest = max(s.turns for s in scenarios)
        uncut, _, per_turn = asyncio.run(record_session("trim", UNCUT_BUDGET, longest, args.files, uncut=True))
        for limit in limits:
            for scenario in scenarios:
                if scenario.name == "defaults" or limit == default_limit:
                    recall = {"recall_every": args.recall_every} if scenario.name == "stress" else {}
                    run_scenario(scenario, uncut, per_turn, limit, **recall)
    if "corpus" in only:
        corpus = Scenario("corpus", args.corpus_turns, 0)
        uncut, _, per_turn = asyncio.run(record_session("trim", UNCUT_BUDGET, corpus.turns, 0, uncut=True, corpus=True))
        for limit in limits:
            run_scenario(corpus, uncut, per_turn, limit, corpus=True)

    if "rereads" in only:
        rereads = Scenario("rereads", args.rereads_turns, 0)
        uncut, _, per_turn = asyncio.run(
            record_session("trim", UNCUT_BUDGET, rereads.turns, args.files, uncut=True, rereads=True)
        )
        run_scenario(rereads, uncut, per_turn, None, rereads=True)

    # The message-count trigger against an agent that makes many calls per turn.
    for limit in limits if "calls" in only else []:
        record, policy, per_turn = asyncio.run(
            record_session("trim", 0, args.calls_turns, args.calls, sequential=True, max_kb=3, limit=limit)
        )
        figures = measure(record, args.calls_turns, policy.budget_tokens)
        verdicts.setdefault(policy.max_history_messages, {})["calls"] = figures["cut_turns"] <= 0.25 * args.calls_turns
        print(
            f"\n== many calls: {args.calls_turns} turns of {args.calls} sequential read_file calls (files of 1-3 KB), "
            f"every other setting at its default (max_history_messages {policy.max_history_messages}): "
            f"{per_turn:.0f} messages per turn; turns with a cut {figures['cut_turns']}/{args.calls_turns}, "
            f"of which by message count only {figures['count_only']}; mean context {figures['context_share']:.0%} "
            f"of the budget; reuse of re-sent input {figures['resent_reuse']:.1%}"
        )
        summary.append(
            f"{policy.max_history_messages:>6} calls    trim      {figures['cut_turns'] / args.calls_turns:>7.0%}"
            f"{'-':>9}{'-':>10}{figures['context_share']:>9.0%}   "
            + ("met (cuts <= 25%)" if figures["cut_turns"] <= 0.25 * args.calls_turns else "missed: cuts")
        )

    if summary:
        print("\n== targets per max_history_messages (0: no message limit)")
        print(
            f"{'limit':>6} {'scenario':9}{'strategy':10}{'cuts':>7}{'summ/t':>9}{'reuse':>10}{'context':>9}   targets"
        )
        print("\n".join(summary))
        choice = decide(verdicts)
        if choice is not None:
            print(
                f"rule (smallest of 200, 500 meeting every judged target, many calls cutting <= 25% of turns; else 0): "
                f"{choice}; the default is {default_limit}"
            )


SIDE_BY_SIDE = (
    ("turns with a cut", lambda r: f"{r['cut_turns'] / r['turns']:.0%}"),
    ("summariser calls", lambda r: f"{r['summary_calls']}"),
    ("prefix reuse vs uncut", lambda r: f"{r['reuse'] / r['_uncut']['reuse']:.3f}x"),
    ("mean context / budget", lambda r: f"{r['context_share']:.0%}"),
    ("gpt-4o input $, prefix cached", lambda r: f"{r['cost']:.3f}"),
    ("tokens returned by recall", lambda r: f"{r.get('recall_tokens', 0):,}"),
    ("outputs noted as repeats", lambda r: f"{r.get('deduplicated', 0):,}"),
    ("requests whose tool list changed", lambda r: f"{r.get('tool_changes', 0)}"),
    ("tool schema tokens sent", lambda r: f"{r['tool_tokens']:,}" if "tool_tokens" in r else "n/a"),
)


def side_by_side(before_path: str, after_path: str) -> None:
    """Issue 29's table: per scenario and strategy, the figures of two `--json` runs side by side."""
    before, after = (json.loads(Path(p).read_text()) for p in (before_path, after_path))
    print(f"before: {before.pop('code')}\nafter:  {after.pop('code')}")
    for key in [k for k in after if k in before]:
        print(f"\n== {key.replace('@', ', max_history_messages ')}, budget {after[key]['budget']:,}")
        print(f"{'':32}" + "".join(f"{s + ' before':>18}{s + ' after':>17}" for s in ("trim", "summarize")))
        for label, show in SIDE_BY_SIDE:
            cells = ""
            for strategy in ("trim", "summarize"):
                for run in (before, after):
                    figures = {**run[key][strategy], "_uncut": run[key]["uncut"]}
                    cells += f"{show(figures):>18}" if run is before else f"{show(figures):>17}"
            print(f"{label:32}{cells}")


if __name__ == "__main__":
    main()
