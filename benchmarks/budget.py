"""The performance budget (issue 44; `make bench`): every figure co-tui keeps, against its target,
in one table.

Runs each benchmark that measures one (each writes its figures with `--json`), then prints:

- start-up (`start_up.py`, tmux): first paint / a bare Textual app's, ready / a bare app that loads
  an Agent on a FunctionModel in a thread after its first paint — ≤ 1.1× each;
- the policy pass (`governance.py --known-only`): `fit_to_budget` with counts known / `dump_json`
  on real 300–440-message histories — ≤ 0.15×;
- economy (`economy.py --only defaults,stress,corpus,rereads`): turns with a cut ≤ 25% (defaults,
  corpus; stress with `summarize`), prefix reuse vs uncut ≥ 0.9× (defaults, corpus), mean context
  ≥ 35% of the budget;
- streaming and resume (`tui.py --only b --only c`): tokens taken ≥ 2,000/s, a typed letter painted
  in ≤ 50 ms (p95), a 1,000-turn session on screen in ≤ 1 s, a 5,000-turn one ready in ≤ 1.5 s
  and ≤ 120 MB;
- dedup savings (`dedup.py`, and economy's re-reading scenario): what repeated reads cost and
  what a cut's notes free (reference, no target).

The host is shared: timings are ratios or medians of interleaved runs, and the load average is
printed with them. `--skip start_up,economy,…` leaves benchmarks out; `--from DIR` prints the
table from the JSON files a run left in DIR without measuring; `--keep DIR` keeps them there.
Takes about an hour on a quiet 2-core host (economy is most of it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RUNS: dict[str, list[str]] = {
    "start_up": ["start_up.py", "--runs", "5"],
    "governance": ["governance.py", "--known-only"],
    "economy": ["economy.py", "--only", "defaults,stress,corpus,rereads"],
    "tui": ["tui.py", "--only", "b", "--only", "c"],
    "dedup": ["dedup.py"],
}

Line = tuple[str, str, str, bool | None]  # figure, measured, target, met (None: reference)


def run_all(folder: Path, skip: set[str]) -> None:
    for name, argv in RUNS.items():
        if name in skip:
            continue
        print(f"== {name}: {' '.join(argv)} (load {os.getloadavg()[0]:.1f})", flush=True)
        started = time.time()
        subprocess.run(
            [sys.executable, str(HERE / argv[0]), *argv[1:], "--json", str(folder / f"{name}.json")], check=True
        )
        print(f"== {name}: {time.time() - started:.0f} s", flush=True)


def _load(folder: Path, name: str) -> dict[str, Any] | None:
    path = folder / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def start_up_lines(data: dict[str, Any]) -> list[Line]:
    r = data["ratios"]
    return [
        ("start-up: first paint / bare Textual app", f"{r['paint_ratio']:.2f}x", "<= 1.1x", r["paint_ratio"] <= 1.1),
        (
            "start-up: ready / bare app + Agent in a thread",
            f"{r['ready_ratio']:.2f}x",
            "<= 1.1x",
            r["ready_ratio"] <= 1.1,
        ),
    ]


def governance_lines(data: dict[str, Any]) -> list[Line]:
    ratio = data["pass_ratio"]
    return [("policy pass, counts known / dump_json", f"{ratio:.3f}x", "<= 0.15x", ratio <= 0.15)]


def economy_lines(data: dict[str, Any]) -> list[Line]:
    lines: list[Line] = []
    for key, figures in data.items():
        if key == "code" or not isinstance(figures, dict):
            continue
        name = key.split("@")[0]
        uncut = figures["uncut"]
        for strategy in ("trim", "summarize"):
            f = figures[strategy]
            cuts = f["cut_turns"] / f["turns"]
            reuse = f["reuse"] / uncut["reuse"] if uncut["reuse"] else 0.0
            judged = name in ("defaults", "corpus") or (name == "stress" and strategy == "summarize")
            lines.append(
                (
                    f"economy {name}/{strategy}: turns with a cut",
                    f"{cuts:.0%}",
                    "<= 25%" if judged else "",
                    cuts <= 0.25 if judged else None,
                )
            )
            judged_reuse = name in ("defaults", "corpus")
            lines.append(
                (
                    f"economy {name}/{strategy}: prefix reuse vs uncut",
                    f"{reuse:.3f}x",
                    ">= 0.9x" if judged_reuse else "",
                    reuse >= 0.9 if judged_reuse else None,
                )
            )
            lines.append(
                (
                    f"economy {name}/{strategy}: mean context / budget",
                    f"{f['context_share']:.0%}",
                    ">= 35%",
                    f["context_share"] >= 0.35,
                )
            )
            if name == "rereads":
                lines.append(
                    (f"dedup: {name}/{strategy} outputs noted as repeats", f"{f.get('deduplicated', 0):,}", "", None)
                )
    return lines


def tui_lines(data: dict[str, Any]) -> list[Line]:
    lines: list[Line] = []
    for label, value, _ref, target, verdict in data["rows"]:
        if not target or "[" in label:
            continue
        lines.append(
            (
                ("streaming: " if label.startswith("c.") else "resume: ") + label[3:],
                value,
                target,
                None if not verdict else verdict in ("ok", "under target"),  # tui.py's `_verdict` words
            )
        )
    return lines


def dedup_lines(data: dict[str, Any]) -> list[Line]:
    dup, saved = data["duplication"]["all"], data["savings"]
    share = dup["repeat_tokens"] / dup["output_tokens"] if dup["output_tokens"] else 0.0
    return [
        (
            "dedup: corpus tool-output tokens that repeat a later output",
            f"{share:.1%} ({dup['repeats']} outputs)",
            "",
            None,
        ),
        (
            "dedup: corpus replay, tokens a cut's notes free (share)",
            f"{saved['dedup_per_cut']:,.0f} ({saved['dedup_share_of_freed']:.1%})",
            "",
            None,
        ),
    ]


SECTIONS: dict[str, Callable[[dict[str, Any]], list[Line]]] = {
    "start_up": start_up_lines,
    "governance": governance_lines,
    "economy": economy_lines,
    "tui": tui_lines,
    "dedup": dedup_lines,
}


def print_table(folder: Path) -> int:
    """The table; returns how many judged figures missed their target."""
    lines: list[Line] = []
    for name, make in SECTIONS.items():
        data = _load(folder, name)
        if data is None:
            lines.append((f"{name}: not measured", "", "", None))
            continue
        lines += make(data)
    width = max(len(line[0]) for line in lines)
    print(
        f"\nperformance budget · {time.strftime('%Y-%m-%d %H:%M')} · load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(f"{'figure':{width}}  {'measured':>24}  {'target':>10}  verdict")
    missed = 0
    for figure, measured, target, met in lines:
        verdict = "" if met is None else "met" if met else "MISSED"
        missed += met is False
        print(f"{figure:{width}}  {measured:>24}  {target:>10}  {verdict}")
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip", default="", help="comma-separated: start_up,governance,economy,tui,dedup")
    parser.add_argument("--from", dest="source", type=Path, help="print the table from this folder's JSON files")
    parser.add_argument("--keep", type=Path, help="write the JSON files here (kept)")
    args = parser.parse_args()
    if args.source:
        return 1 if print_table(args.source) else 0
    with tempfile.TemporaryDirectory(prefix="co-tui-budget-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        run_all(folder, set(filter(None, args.skip.split(","))))
        return 1 if print_table(folder) else 0


if __name__ == "__main__":
    raise SystemExit(main())
