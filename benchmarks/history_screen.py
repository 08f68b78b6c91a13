"""History inspector benchmark (not a test): does opening `f2` on a long session stall the UI loop?

Builds a 1,000-turn session with the real SessionStore (benchmarks/tui.py `build_long_session`:
corpus and generated tool outputs, the context governed turn by turn), then, in fresh processes,
resumes it in the real CoTuiApp (headless, 120x36), waits until it is ready, and presses `f2`
while a probe task on the UI loop wakes every 5 ms. Printed per program, medians of the runs:

- the longest stall of the loop (the longest gap between two wake-ups of the probe, less its 5 ms)
  from the key until the inspector's transcript table holds every message (a paged table: knows
  them all and shows its first page) (docs/architecture.md,
  "Nothing blocks the UI loop": target, a frame or two, not seconds);
- the time from the key until then (settled);
- the same two for `r` (re-read) with the inspector open.

With `--base DIR` (another checkout with its own .venv, e.g. /tmp/mainbase) its co-tui opens the
same session too, in the same rounds, interleaved, and is printed beside: a loaded host only
compares within one run.

Run: `flock /tmp/bench.lock .venv/bin/python benchmarks/history_screen.py --base /tmp/mainbase`
(about two minutes; `--runs N`, `--turns N`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE_S = 0.005
SIZE = (120, 36)


def run_child(checkout: Path, session_id: str) -> None:
    """(child, run with `checkout`'s python) open the inspector on `session_id`; print JSON figures."""
    import asyncio

    sys.path.insert(0, str(checkout))
    from textual.widgets import DataTable

    from co_tui.config import load_settings
    from co_tui.tui.app import CoTuiApp

    async def main() -> dict[str, float]:
        app = CoTuiApp(load_settings(), Path.cwd(), resume_id=session_id)
        figures: dict[str, float] = {}
        async with app.run_test(size=SIZE) as pilot:

            async def until(predicate: object, timeout: float = 120.0) -> None:
                deadline = time.monotonic() + timeout
                while not predicate():  # type: ignore[operator]
                    if time.monotonic() > deadline:
                        raise SystemExit("timed out")
                    await pilot.pause(0.01)

            await until(lambda: getattr(app, "session", None) is not None and not app.session.busy)
            await pilot.pause()
            messages = len(app.session.transcript)
            wakes: list[float] = []

            async def probe() -> None:
                while True:
                    wakes.append(time.perf_counter())
                    await asyncio.sleep(PROBE_S)

            task = asyncio.create_task(probe())
            for key, name in (("f2", "open"), ("r", "reload")):
                await until(lambda: len(wakes) > 2)
                start = len(wakes)
                began = time.perf_counter()
                await pilot.press(key)

                def settled() -> bool:
                    screen = app.screen
                    if type(screen).__name__ != "HistoryScreen" or not getattr(screen, "loaded", True):
                        return False
                    table = screen.query_one("#transcript-table", DataTable)
                    # A paged table (tui/widgets/paged_table.py) holds every row once it knows them all.
                    return getattr(table, "total", table.row_count) == messages

                if name == "reload":  # a re-read starts by saying so (or, on a loop-bound read, is over)
                    await pilot.pause()
                await until(settled)
                ended = time.perf_counter()
                after = len(wakes) + 2
                await until(lambda after=after: len(wakes) > after)  # the probe ran after it settled
                seen = [began, *wakes[start:]]
                gaps = [b - a for a, b in zip(seen, seen[1:], strict=False) if a <= ended]
                figures[f"{name}_stall_ms"] = 1000 * (max(gaps) - PROBE_S)
                figures[f"{name}_settled_ms"] = 1000 * (ended - began)
            task.cancel()
            figures["messages"] = messages
        return figures

    print(json.dumps(asyncio.run(main())))


def measure(python: Path, checkout: Path, box: object, session_id: str) -> dict[str, float]:
    out = subprocess.run(
        [str(python), str(Path(__file__).resolve()), "--child", str(checkout), session_id],
        check=True,
        capture_output=True,
        text=True,
        env=box.env,  # type: ignore[attr-defined]
        cwd=box.workspace,  # type: ignore[attr-defined]
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--base", type=Path, help="another checkout (with .venv) to measure beside this one")
    parser.add_argument("--child", nargs=2, metavar=("CHECKOUT", "SESSION"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_child(Path(args.child[0]), args.child[1])
        return 0
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import tui as tui_bench  # the TUI benchmark's sandbox and long session

    programs = {"this": (Path(sys.executable), ROOT)}
    if args.base:
        programs["base"] = (args.base.resolve() / ".venv" / "bin" / "python", args.base.resolve())
    with tempfile.TemporaryDirectory(prefix="co-tui-history-bench-") as tmp:
        box = tui_bench.Sandbox(Path(tmp))
        session_id, messages = tui_bench.build_long_session(box, args.turns)
        results: dict[str, list[dict[str, float]]] = {name: [] for name in programs}
        for round_ in range(args.runs):
            order = list(programs) if round_ % 2 == 0 else list(reversed(programs))
            for name in order:
                python, checkout = programs[name]
                results[name].append(measure(python, checkout, box, session_id))
    load = os.getloadavg()[0]
    print(
        f"History inspector on a {args.turns:,}-turn session ({messages:,} messages), {args.runs} runs, load {load:.1f}"
    )
    names = list(programs)
    print(f"{'median ms':<34}" + "".join(f"{name:>12}" for name in names) + ("   ratio" if len(names) > 1 else ""))
    for key, label in (
        ("open_stall_ms", "f2: longest loop stall"),
        ("open_settled_ms", "f2: until every row is shown"),
        ("reload_stall_ms", "r: longest loop stall"),
        ("reload_settled_ms", "r: until every row is shown"),
    ):
        values = [statistics.median(run[key] for run in results[name]) for name in names]
        ratio = f"   {values[0] / values[1]:.2f}x" if len(values) > 1 and values[1] else ""
        print(f"{label:<34}" + "".join(f"{v:>12.0f}" for v in values) + ratio)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
