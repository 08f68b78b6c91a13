"""Long-session benchmark (not a test): does a turn cost the same at turn 5,000 as at turn 1, and
does the history inspector open fast and lean on such a session? (issue 33, item 11)

a. Turn cost. Runs `--turns` turns (default 5,000) of the built-in offline model through the real
   `ChatSession` with a real SQLite store in a temp data dir (prompts rotate: a chat line, a file
   read, a listing, a recap), in process, no TUI. Prints the median wall and CPU time of a turn
   over windows of 20 turns (the first ones, then the 20 before each 1,000th), then the same after
   the session is resumed from the store, each with its ratio to the start.
b. The history inspector on that session (`--inspector`): in a fresh process, `co-tui --resume`
   in the real CoTuiApp (headless, 120x36), `f2`, and the time until the Transcript table shows its
   first rows with the totals drawn; then, in another fresh process, the same under tracemalloc
   (the peak of Python allocations while it opens) and the process's peak RSS growth.

With `--base DIR` (another checkout, e.g. `git archive main | tar -x -C /tmp/perfbase`) every
measurement runs for it too, in its own process with this .venv's interpreter, and is printed
beside, with the ratio: a loaded host only compares within one run.

Run: `flock /tmp/bench.lock .venv/bin/python benchmarks/long_session.py --base /tmp/perfbase --inspector`
(5,000 turns: several minutes per checkout; `--turns 2000` for a quicker look).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WINDOW = 20
PROMPTS = ("hello, how is it going?", "read README.md", "list", "what did we do so far?")
SIZE = (120, 36)


def _isolated_env(base: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not (k.startswith("CO_TUI_") or k.endswith("_API_KEY"))}
    env.update(CO_TUI_DATA_DIR=str(base / "data"), CO_TUI_CONFIG_FILE=str(base / "config.toml"), LANG="C.UTF-8")
    return env


def _workspace(base: Path) -> Path:
    workspace = base / "workspace"
    workspace.mkdir(exist_ok=True)
    (workspace / "README.md").write_text(
        "# Bench\n\nA workspace for the long-session benchmark.\n\n## Usage\n\nRun it.\n" * 3
    )
    return workspace


def _windows(turns: int) -> list[tuple[str, range]]:
    """(label, turn numbers) of the windows reported: the first turns, then before each 1,000th."""
    windows = [(f"turns 1-{WINDOW}", range(1, WINDOW + 1))]
    for end in range(1000, turns + 1, 1000):
        windows.append((f"turns {end - WINDOW + 1}-{end}", range(end - WINDOW + 1, end + 1)))
    if turns % 1000 and turns > WINDOW:
        windows.append((f"turns {turns - WINDOW + 1}-{turns}", range(turns - WINDOW + 1, turns + 1)))
    return windows


def run_turns_child(checkout: Path, base: Path, turns: int) -> None:
    """(child) Run the turns in `checkout`'s co-tui; print JSON: per-window medians, then resumed."""
    sys.path.insert(0, str(checkout))
    os.environ.update(_isolated_env(base))
    from co_tui.config import load_settings
    from co_tui.session.chat import ChatSession
    from co_tui.session.opening import resume_session
    from co_tui.store.session_store import SessionStore

    workspace = _workspace(base)
    settings = load_settings()
    windows = _windows(turns)
    wanted = {n for _label, numbers in windows for n in numbers}

    async def run(session: Any, count: int, keep: set[int] | None) -> dict[int, tuple[float, float]]:
        times: dict[int, tuple[float, float]] = {}
        for n in range(1, count + 1):
            prompt = PROMPTS[n % len(PROMPTS)]
            wall, cpu = time.perf_counter(), time.process_time()
            async for event in session.run_turn(prompt):
                if event.type == "error":
                    raise SystemExit(f"turn {n}: {event.message}")
            if keep is None or n in keep:
                times[n] = (time.perf_counter() - wall, time.process_time() - cpu)
        return times

    store = SessionStore.open(base / "data")
    session = ChatSession(settings, workspace=workspace, store=store, model="offline")
    times = asyncio.run(run(session, turns, wanted))
    session_id = session.id
    session.release_claim()
    store.close()
    store = SessionStore.open(base / "data")
    resumed = resume_session(settings, workspace=workspace, store=store, session_id=session_id, model="offline")
    after = asyncio.run(run(resumed, WINDOW, None))
    resumed.release_claim()
    store.close()

    def medians(samples: list[tuple[float, float]]) -> dict[str, float]:
        return {
            "wall_ms": 1000 * statistics.median(s[0] for s in samples),
            "cpu_ms": 1000 * statistics.median(s[1] for s in samples),
        }

    rows = {label: medians([times[n] for n in numbers]) for label, numbers in windows}
    rows[f"resumed, next {WINDOW} turns"] = medians(list(after.values()))
    print(json.dumps({"rows": rows, "session_id": session_id}))


def inspector_child(checkout: Path, base: Path, session_id: str, memory: bool) -> None:
    """(child) Resume `session_id` in the real app, open the inspector; print JSON figures."""
    sys.path.insert(0, str(checkout))
    os.environ.update(_isolated_env(base))
    import resource
    import tracemalloc

    from textual.widgets import DataTable

    from co_tui.config import load_settings
    from co_tui.tui.app import CoTuiApp

    os.chdir(base / "workspace")

    async def main() -> dict[str, float]:
        app = CoTuiApp(load_settings(), Path.cwd(), resume_id=session_id)
        figures: dict[str, float] = {}
        async with app.run_test(size=SIZE) as pilot:

            async def until(predicate: Any, timeout: float = 300.0) -> None:
                deadline = time.monotonic() + timeout
                while not predicate():
                    if time.monotonic() > deadline:
                        raise SystemExit("timed out")
                    await pilot.pause(0.005)

            await until(lambda: getattr(app, "session", None) is not None and not app.session.busy)
            await pilot.pause()
            messages = len(app.session.transcript)
            rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            if memory:
                tracemalloc.start()
            began, cpu = time.perf_counter(), time.process_time()
            await pilot.press("f2")

            def shown() -> bool:
                screen = app.screen
                if type(screen).__name__ != "HistoryScreen" or not getattr(screen, "loaded", True):
                    return False
                table = screen.query_one("#transcript-table", DataTable)
                return table.row_count > 0 and "Transcript" in str(screen.query_one("#history-totals").render())

            try:
                await until(shown, timeout=600.0)
            except SystemExit:  # under tracemalloc a slow checkout may not open in time: no figure
                nan = float("nan")
                return {"open_ms": nan, "open_cpu_ms": nan, "traced_peak_mb": nan, "peak_rss_growth_mb": nan}
            figures["open_ms"] = 1000 * (time.perf_counter() - began)
            figures["open_cpu_ms"] = 1000 * (time.process_time() - cpu)  # on a loaded host, the steadier one
            if memory:
                figures["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
                tracemalloc.stop()
            figures["peak_rss_growth_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
            figures["messages"] = messages
            figures["rows"] = app.screen.query_one("#transcript-table", DataTable).row_count
        return figures

    print(json.dumps(asyncio.run(main())))


def _child(python: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    out = subprocess.run(
        [str(python), str(Path(__file__).resolve()), "--child", *args],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _table(title: str, names: list[str], rows: list[tuple[str, list[float]]], unit: str) -> None:
    print(title)
    print(f"{'':<28}" + "".join(f"{name:>12}" for name in names) + ("     ratio" if len(names) > 1 else ""))
    for label, values in rows:
        ratio = f"{values[0] / values[1]:>9.2f}x" if len(values) > 1 and values[1] else ""
        print(f"{label:<28}" + "".join(f"{v:>10.1f}{unit}" for v in values) + ratio)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--base", type=Path, help="another checkout to measure beside this one (this .venv)")
    parser.add_argument("--inspector", action="store_true", help="also open the history inspector (part b)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, checkout, base, *rest = args.child
        if kind == "turns":
            run_turns_child(Path(checkout), Path(base), int(rest[0]))
        else:
            inspector_child(Path(checkout), Path(base), rest[0], memory=kind == "memory")
        return 0
    programs = {"this": ROOT}
    if args.base:
        programs["base"] = args.base.resolve()
    names = list(programs)
    python = Path(sys.executable)
    turn_rows: dict[str, dict[str, Any]] = {}
    inspector: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="co-tui-long-session-") as tmp:
        for name, checkout in programs.items():
            base = Path(tmp) / name
            base.mkdir()
            result = _child(python, "turns", str(checkout), str(base), str(args.turns))
            turn_rows[name] = result["rows"]
            if args.inspector:
                inspector[name] = {
                    kind: _child(python, kind, str(checkout), str(base), result["session_id"])
                    for kind in ("time", "memory")
                }
    print(f"Turn cost over a {args.turns:,}-turn session, offline model, real store (load {os.getloadavg()[0]:.1f})")
    for measure, unit in (("wall_ms", "ms"), ("cpu_ms", "ms")):
        labels = list(turn_rows[names[0]])
        rows = [(label, [turn_rows[name][label][measure] for name in names]) for label in labels]
        _table(f"median {measure[:-3]} time of a turn", names, rows, unit)
        first = turn_rows[names[0]][labels[0]][measure]
        growth = [f"{label}: {turn_rows[names[0]][label][measure] / first:.2f}x" for label in labels[1:] if first]
        print("  growth over the first turns (this): " + ", ".join(growth))
    if inspector:
        messages = int(inspector[names[0]]["time"]["messages"])
        _table(
            f"History inspector (f2) on it ({messages:,} messages): until the first rows and totals show",
            names,
            [
                ("open, wall (ms)", [inspector[n]["time"]["open_ms"] for n in names]),
                ("open, CPU (ms)", [inspector[n]["time"]["open_cpu_ms"] for n in names]),
                ("traced peak (MB)", [inspector[n]["memory"]["traced_peak_mb"] for n in names]),
                ("peak RSS growth (MB)", [inspector[n]["time"]["peak_rss_growth_mb"] for n in names]),
            ],
            "",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
