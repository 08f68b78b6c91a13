"""Session store benchmark (not a test): does saving a turn stay flat as a session grows?

Builds a 2,000-turn session (8,000 messages) whose tool outputs are real ones from the shared corpus
of agent transcripts (`../shared/corpus/transcripts` beside the checkout) mixed with generated large
ones (file reads, logs, minified JSON, up to ~30 KB), saves it turn by turn the way ChatSession does
(new transcript messages + the governed context), and prints, side by side:

- per-turn save time around turn 10, turn 500 and turn 2,000 (target: turn 2,000 at most 1.5x
  turn 10), wall clock and CPU, measured in interleaved rounds so all see the same machine load;
  and the worst case where every context message arrives as a fresh copy (`==`, not identity);
- for reference, what the seed design (one JSON blob per session, rewritten every turn) costs there;
- load time and resident memory of a 2,000-message session, measured in a fresh process.

The context evolves as ChatSession keeps it: each turn the real zero-LLM policy
(`governance.fit_to_budget`) runs over the previous context plus the new turn — old tool outputs
trimmed, oldest whole turns dropped behind one breadcrumb — and its result is the new context.
Run: `.venv/bin/python benchmarks/sessions.py` (about a minute).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage  # noqa: E402

from co_tui.governance.events import HistoryTrimmed  # noqa: E402
from co_tui.governance.trim import fit_to_budget  # noqa: E402
from co_tui.store.session_store import SessionStore  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "transcripts"
TURNS = 2000
BUDGET_TOKENS = 100_000
TRIM_CHARS = 2000  # tool_output_trim_chars default
LOAD_MESSAGES = 2000
# Turns whose saves are compared (medians of 30, to ride out fsync jitter): around turn 10, around
# turn 500 (the context reached its budget near turn 360: every turn now brings a cut), the last 30.
EARLY = range(1, 31)
STEADY = range(486, 516)
LATE = range(TURNS - 29, TURNS + 1)
WINDOWS = (EARLY, STEADY, LATE)


def corpus_outputs() -> list[str]:
    """Tool outputs from the real transcripts (empty list if the corpus is absent)."""
    outputs = []
    for path in sorted(CORPUS.glob("*.json")):
        if path.name.startswith("_"):
            continue
        for message in json.loads(path.read_text(encoding="utf-8")):
            if message.get("role") == "tool" and message.get("content"):
                outputs.append(message["content"])
    return outputs


def generated_outputs() -> list[str]:
    """Large outputs real sessions have and the corpus lacks."""
    source = "".join(f"    def method_{i}(self, arg):\n        return self.helper(arg) + {i}\n" for i in range(400))
    log = "".join(
        f"2025-01-01T00:00:{i % 60:02d}Z INFO worker[{i % 7}] processed batch {i} in {i % 97} ms\n" for i in range(300)
    )
    blob = json.dumps([{"id": i, "name": f"item-{i}", "tags": ["a", "b"], "score": i / 7} for i in range(400)])
    return [source[:30_000], log, blob[:25_000], source[:8_000]]


def build_turn(i: int, outputs: list[str]) -> list[ModelMessage]:
    output = outputs[i % len(outputs)]
    call = f"call_{i}"
    return [
        ModelRequest(parts=[UserPromptPart(f"Step {i}: look at the next file and tell me what to change.")]),
        ModelResponse(
            parts=[TextPart("Reading it."), ToolCallPart("read_file", {"path": f"src/m{i}.py"}, tool_call_id=call)],
            usage=RequestUsage(input_tokens=40_000 + i, output_tokens=40),
        ),
        ModelRequest(parts=[ToolReturnPart("read_file", output, tool_call_id=call)]),
        ModelResponse(
            parts=[TextPart(f"In src/m{i}.py the handler should validate its input first. " * 3)],
            usage=RequestUsage(input_tokens=41_000 + i, output_tokens=120),
        ),
    ]


class Governance:
    """The context as ChatSession keeps it across turns: the real zero-LLM policy
    (`governance.fit_to_budget`) applied to the previous context plus the new turn, persistently."""

    def __init__(self) -> None:
        self.context: list[ModelMessage] = []
        self.cuts = 0

    def add(self, turn: list[ModelMessage]) -> tuple[list[ModelMessage], list[HistoryTrimmed]]:
        result = fit_to_budget(self.context + turn, BUDGET_TOKENS, tool_output_trim_chars=TRIM_CHARS)
        self.cuts += len(result.events)
        self.context = list(result.messages)
        return self.context, list(result.events)


def _rebuilt(context: list[ModelMessage]) -> list[ModelMessage]:
    """Worst case for the store: every message a fresh (equal) object, as a governance that
    rebuilt everything on every pass would hand over."""
    return [replace(m, parts=list(m.parts)) for m in context]


class _Session:
    """One benchmark session: its id, its governed context, its transcript so far."""

    def __init__(self, store: SessionStore, title: str) -> None:
        self.store, self.gov, self.turn, self.transcript = store, Governance(), 0, []
        self.id = store.create_session(model="bench", workspace=ROOT, title=title)

    def advance(self, outputs: list[str]) -> tuple[list[ModelMessage], list[ModelMessage], list[HistoryTrimmed]]:
        self.turn += 1
        new = build_turn(self.turn, outputs)
        self.transcript += new
        return (new, *self.gov.add(new))

    def save(
        self, new: list[ModelMessage], context: list[ModelMessage], events: list[HistoryTrimmed]
    ) -> tuple[float, float]:
        start, start_cpu = time.perf_counter(), time.process_time()
        self.store.save_turn(self.id, new_transcript=new, context=context, new_events=events, tokens=40_000 + self.turn)
        return time.perf_counter() - start, time.process_time() - start_cpu


def save_timings(data_dir: Path, outputs: list[str]) -> dict[str, object]:
    """Build sessions to just before turns ~10, ~500 and ~2,000, then time their next 30 saves in
    interleaved rounds, so all three windows see the same machine load (the host is shared)."""
    store = SessionStore.open(data_dir)
    sessions = [_Session(store, f"bench {w.start}") for w in WINDOWS]
    for session, window in zip(sessions, WINDOWS, strict=False):
        while session.turn < window.start - 1:
            session.save(*session.advance(outputs))
    wall: list[list[float]] = [[] for _ in WINDOWS]
    cpu: list[list[float]] = [[] for _ in WINDOWS]
    worst: list[list[float]] = [[] for _ in WINDOWS]
    for _round in range(len(EARLY)):
        for k, session in enumerate(sessions):
            took, took_cpu = session.save(*session.advance(outputs))
            wall[k].append(took)
            cpu[k].append(took_cpu)
    for _round in range(len(EARLY)):
        for k, session in enumerate(sessions):
            context = session.gov.context
            start = time.perf_counter()
            store.save_turn(session.id, new_transcript=[], context=_rebuilt(context), new_events=[])
            worst[k].append(time.perf_counter() - start)
            # Hand the store the real objects again (untimed), so the next round compares copies again.
            store.save_turn(session.id, new_transcript=[], context=context, new_events=[])
    last = sessions[-1]
    start = time.perf_counter()
    (data_dir / "seed-style-blob.json").write_bytes(ModelMessagesTypeAdapter.dump_json(last.transcript))
    blob = time.perf_counter() - start
    store.close()
    return {
        "wall": wall,
        "cpu": cpu,
        "worst": worst,
        "blob": blob,
        "context_len": len(last.gov.context),
        "cuts": last.gov.cuts,
        "turn": last.turn,
    }


_LOAD_PROBE = r"""
import os, resource, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from co_tui.store.session_store import SessionStore
import pydantic_ai.messages  # imports are not the session's memory
store = SessionStore.open(Path(sys.argv[2]))
sid = store.list_sessions()[0].id
def rss_kb():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
store.load(sid)  # warm up: pydantic builds its validators on first use
before = rss_kb()
start = time.perf_counter()
loaded = store.load(sid)
took = time.perf_counter() - start
after = rss_kb()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(took, before, after, peak, len(loaded.transcript), len(loaded.context))
"""


def load_figures(outputs: list[str]) -> tuple[float, int, int, int, int, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        store = SessionStore.open(data_dir)
        sid = store.create_session(model="bench", workspace=ROOT, title="load")
        gov = Governance()
        for i in range(1, LOAD_MESSAGES // 4 + 1):
            turn = build_turn(i, outputs)
            context, events = gov.add(turn)
            store.save_turn(sid, new_transcript=turn, context=context, new_events=events)
        store.close()
        size = sum(p.stat().st_size for p in data_dir.iterdir())
        out = subprocess.run(
            [sys.executable, "-c", _LOAD_PROBE, str(ROOT), str(data_dir)], capture_output=True, text=True, check=True
        ).stdout.split()
        took, before, after, peak, n_transcript, n_context = float(out[0]), *map(int, out[1:])
        return took, before, after, peak, n_transcript, n_context, size


def main() -> int:
    real = corpus_outputs()
    outputs = real + generated_outputs()
    print(
        f"tool outputs: {len(real)} from the corpus + {len(generated_outputs())} generated "
        f"(largest {max(map(len, outputs)):,} chars)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        result = save_timings(Path(tmp), outputs)
    print(
        f"context at turn {result['turn']:,}: {result['context_len']} messages (governed to {BUDGET_TOKENS:,} tokens; "
        f"{result['cuts']} history_trimmed events on the way)"
    )
    print(
        f"{'per-turn save, median of 30':44}{'turn ~10':>10}{'turn ~500':>11}{f'turn ~{TURNS:,}':>13}"
        f"{'2000/10':>9}{'2000/500':>9}"
    )
    ratio = 0.0
    for label, series in (
        ("save_turn, wall clock", result["wall"]),
        ("save_turn, CPU (no fsync wait)", result["cpu"]),
        ("worst case: every context message a copy", result["worst"]),
    ):
        early, steady, late = (statistics.median(times) for times in series)  # type: ignore[attr-defined]
        ratio = ratio or late / early
        print(
            f"{label:44}{early * 1e3:>8.2f}ms{steady * 1e3:>9.2f}ms{late * 1e3:>11.2f}ms"
            f"{late / early:>8.2f}x{late / steady:>8.2f}x"
        )
    print(
        f"target: wall clock turn ~{TURNS:,} <= 1.5x turn ~10: {'met' if ratio <= 1.5 else 'MISSED'} ({ratio:.2f}x)."
        " From turn ~360 on every save also carries a cut (breadcrumb, trimmed copy, dropped turn),"
    )
    print(
        "  which turn ~10 does not; the worst case compares every context message by == and grows with the"
        " context, which the budget bounds."
    )
    late = statistics.median(result["wall"][-1])  # type: ignore[index]
    blob = result["blob"]
    print(
        f"seed design (rewrite one JSON blob per turn) at turn {TURNS:,}: {blob * 1e3:.0f} ms, "
        f"{blob / late:.0f}x a save_turn"
    )
    took, before, after, peak, n_transcript, n_context, size = load_figures(outputs)
    print(
        f"load a {n_transcript:,}-message session ({n_context} in context, {size / 1e6:.1f} MB on disk): "
        f"{took * 1e3:.0f} ms; RSS {before / 1024:.0f} -> {after / 1024:.0f} MB "
        f"(+{(after - before) / 1024:.1f} MB for the session), peak {peak / 1024:.0f} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
