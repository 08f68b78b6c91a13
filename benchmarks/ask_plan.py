"""compact_mode ask benchmark (not a test): how long planning a send takes before the ask dialog
can show (`session.ask_cut.plan_send`, run in a thread by the controller), side by side with the
history inspector's own look-ahead (`preview_next_cut`, which it wraps) on the same context.

The contexts are the largest real transcripts of the shared corpus (../shared/corpus, read in place),
and all of them one after the other (a long session), each with a budget of half its estimated
size so a cut is due; the meter is a real `TokenMeter`.
Best of 5 per case, in ms. Run: `.venv/bin/python benchmarks/ask_plan.py`. The host is shared: the
load average is printed.
"""

from __future__ import annotations

import json
import os
import sys
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
CORPUS = Path("/work/shared/corpus/transcripts")
if not CORPUS.is_dir():
    CORPUS = ROOT.parent / "shared" / "corpus" / "transcripts"


def best(call, runs: int = 5) -> float:
    """The best wall time of `runs` calls, in ms."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def _is_system(message) -> bool:
    return all(getattr(part, "part_kind", "") == "system-prompt" for part in getattr(message, "parts", ()))


def main() -> None:
    """Print one row per transcript: messages, tokens, the two timings and their ratio."""
    from governance.corpus import convert

    from co_tui.governance import GovernancePolicy, Governor, estimate_tokens
    from co_tui.governance.meter import TokenMeter
    from co_tui.governance.next_cut import preview_next_cut
    from co_tui.session.ask_cut import plan_send
    from co_tui.session.gauge import Gauge
    from co_tui.session.history import History

    files = sorted(CORPUS.glob("*.json"), key=lambda p: p.stat().st_size, reverse=True)
    cases = [(path.name, convert(json.loads(path.read_text()))) for path in files]
    everything = [m for _, messages in cases for m in messages if not _is_system(m)]
    cases = [*cases[:5], (f"all {len(cases)} transcripts", everything)]
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'transcript':<34} {'msgs':>5} {'tokens':>8} {'plan_send':>10} {'next_cut':>9} {'ratio':>6}")
    for name, messages in cases:
        tokens = estimate_tokens(messages)
        policy = GovernancePolicy(budget_tokens=max(1000, tokens // 2), strategy="summarize")
        governor = Governor(policy)
        history = History()
        history.extend(messages)
        history.set_context(messages)
        gauge = Gauge(TokenMeter(provider="openai"), governor, policy.budget_tokens, policy.max_history_messages, 2000)
        plan_ms = best(partial(plan_send, history, gauge, "and now?", window_tokens=tokens * 2))
        look_ms = best(partial(preview_next_cut, governor, messages, overhead_tokens=2000))
        print(
            f"{name[:34]:<34} {len(messages):>5} {tokens:>8,} {plan_ms:>8.1f}ms {look_ms:>7.1f}ms "
            f"{plan_ms / look_ms:>5.2f}x"
        )


if __name__ == "__main__":
    main()
