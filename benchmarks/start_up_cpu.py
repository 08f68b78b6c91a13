"""Start-up in CPU time and instructions (issue 44; not a test): what co-tui spends before its first
frame and before ready, against the bare apps of `benchmarks/start_up.py`, and where it goes.

Each program runs on a pseudo-terminal of its own (120x36) with a clean environment. A probe in
the child wraps Textual's driver `write`: the first write that carries a marker (the prompt's
placeholder for the first frame; the meter's ` tokens (` or the bare app's `AGENT-READY` for ready)
reads `time.process_time()` (the process's threads, in nanoseconds, from the interpreter's own
start), and the child leaves at the last marker; `App.run` being called marks the end of the
imports. A loaded host stretches wall time, and CPU time less, but not nothing (on this 2-core host
a bare app's first frame took 190 ms of CPU at load 3 and 355 ms at load 14): compare kinds of one
run, medians of many rounds, or count instructions.

- default: CPU to the imports' end, first paint and ready, medians of `--runs` interleaved rounds;
- `--instructions`: each kind's instructions to `--until` (run, paint or ready), one start under
  valgrind (`cachegrind`, no cache simulation, hashes seeded): to the first frame the count is the
  same to 0.1% at any load (to ready it is not: the UI thread's timers run longer under valgrind);
- `--profile KIND`: cProfile of one start until `--until`, the main thread and the threads that ended
  by then (the session's opening worker among them) (`--from-run`: the main thread from
  `App.run`, after the imports), by cumulative and by own time;
- `--importtime KIND`: `python -X importtime` until the first frame (or `--until`), each module's least self time
  over `--repeat` starts, summed by top-level package; co-tui's slowest modules (`--all`: every one);
- `--census KIND`: what the first frame is made of: widgets, CSS rules, stylesheet sources, modules.

KIND is co-tui (this checkout), bare, or the NAME of a `--base [NAME=]DIR`: another checkout
(`git archive <commit> | tar -x -C DIR`), run with this environment's packages (repeatable).
Bytecode is compiled first, as in `benchmarks/start_up.py`.

Run: `.venv/bin/python benchmarks/start_up_cpu.py [--runs 15] [--base before=DIR] [--instructions]`.
"""

from __future__ import annotations

import argparse
import ast
import fcntl
import json
import os
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from start_up import AGENT_MARKER, COLS, PAINT_MARKER, READY_MARKER, ROOT, ROWS, child_env, compile_bytecode  # noqa: E402

TIMEOUT_S = 60.0

# The child (run with `-c`): wraps the driver's write, notes the CPU time at each marker, leaves at
# the last one. Its argv: kind (co-tui or bare), until (paint or ready), the file for the figures.
_PROBE = r"""
import os, sys, time
kind, until, out = sys.argv[1], sys.argv[2], sys.argv[3]
profile = os.environ.get("START_UP_PROFILE")
if profile:
    import cProfile
    profiler = cProfile.Profile()
    if not os.environ.get("START_UP_PROFILE_RUN"):
        profiler.enable()
    # Threads too (the session opens in a thread worker: a call in the loop's executor): each
    # thread and executor call has its own profiler, merged into the main thread's when it ends;
    # one still running at the marker is left out.
    import asyncio, threading
    thread_profiles = []
    def profiled(call):
        def profiled_call(*args, **kwargs):
            own = cProfile.Profile()
            own.enable()
            try:
                return call(*args, **kwargs)
            finally:
                own.disable()
                thread_profiles.append(own)
        return profiled_call
    threading.Thread.run = profiled(threading.Thread.run)
    in_executor = asyncio.BaseEventLoop.run_in_executor
    def profiled_in_executor(self, executor, func, *args):
        return in_executor(self, executor, profiled(func), *args)
    asyncio.BaseEventLoop.run_in_executor = profiled_in_executor

def dump_profile():
    profiler.disable()
    import pstats
    stats = pstats.Stats(profiler)
    for own in thread_profiles:
        stats.add(own)
    stats.dump_stats(profile)
markers = [(PAINT, "paint")] + ([(READY, "ready")] if until == "ready" else [])
seen = {}

def census(app):
    import json
    from collections import Counter
    widgets = list(app.screen.walk_children(with_self=True))
    data = {
        "widgets": len(widgets),
        "widget_types": Counter(type(w).__name__ for w in widgets).most_common(),
        "rules": len(app.stylesheet.rules),
        "sources": sorted({str(key[0]).rsplit("site-packages/", 1)[-1] for key in app.stylesheet.source}),
        "modules": sorted(sys.modules),
    }
    with open(os.environ["START_UP_CENSUS"], "w") as f:
        json.dump(data, f)

def patch_driver(linux_driver):
    write = linux_driver.LinuxDriver.write
    def noting_write(self, data):
        write(self, data)
        for marker, name in markers:
            if name not in seen and marker in data:
                seen[name] = time.process_time()
        if all(name in seen for _, name in markers):
            if profile:
                dump_profile()
            if os.environ.get("START_UP_CENSUS"):
                census(self._app)
            with open(out, "w") as f:
                f.write(repr(seen))
            os._exit(0)
    linux_driver.LinuxDriver.write = noting_write

def patch_app(app_module):
    run = app_module.App.run
    def noting_run(self, *args, **kwargs):
        seen["run"] = time.process_time()  # the imports are done: the rest is the app's own work
        if until == "run":
            if profile:
                dump_profile()
            with open(out, "w") as f:
                f.write(repr(seen))
            os._exit(0)
        if profile and os.environ.get("START_UP_PROFILE_RUN"):
            profiler.enable()
        return run(self, *args, **kwargs)
    app_module.App.run = noting_run

# Patched as each module is loaded, not imported here first: the program imports in its own order
# (co-tui turns the garbage collector off before it imports Textual).
class Patcher:
    patches = {"textual.drivers.linux_driver": patch_driver, "textual.app": patch_app}
    def find_spec(self, name, path=None, target=None):
        patch = self.patches.pop(name, None)
        if patch is None:
            return None
        import importlib.util
        spec = importlib.util.find_spec(name)
        exec_module = spec.loader.exec_module
        def patched(module):
            exec_module(module)
            patch(module)
        spec.loader.exec_module = patched
        return spec
sys.meta_path.insert(0, Patcher())
if kind == "bare":
    sys.path.insert(0, os.environ["START_UP_BENCH"])
    import start_up
    start_up.run_bare(with_agent=until == "ready")
else:
    from co_tui.cli import main
    main([])
"""


def _probe_source(kind: str) -> str:
    ready = AGENT_MARKER if kind == "bare" else READY_MARKER
    return _PROBE.replace("PAINT", repr(PAINT_MARKER.decode())).replace("READY", repr(ready.decode()))


def run_once(
    kind: str,
    until: str,
    *,
    checkouts: dict[str, Path],
    extra_env: dict[str, str] | None = None,
    flags: tuple[str, ...] = (),
    wrapper: tuple[str, ...] = (),
) -> tuple[dict[str, float], str]:
    """One start of `kind` on a pseudo-terminal until `until` ("paint" or "ready"): the CPU seconds
    at each marker, and everything the child wrote to its terminal (stderr included)."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        out = home / "seen"
        checkout = checkouts.get(kind, ROOT)
        env = {
            **child_env(home),
            "START_UP_BENCH": str(Path(__file__).resolve().parent),
            **({"PYTHONPATH": str(checkout)} if kind != "bare" else {}),
            **(extra_env or {}),
        }
        main_fd, child_fd = pty.openpty()
        fcntl.ioctl(child_fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        probe_kind = "bare" if kind == "bare" else "co-tui"
        argv = [*wrapper, sys.executable, *flags, "-c", _probe_source(probe_kind), probe_kind, until, str(out)]
        child = subprocess.Popen(
            argv, stdin=child_fd, stdout=child_fd, stderr=child_fd, env=env, cwd=home, start_new_session=True
        )
        os.close(child_fd)
        captured = bytearray()
        try:
            while True:
                readable, _, _ = select.select([main_fd], [], [], TIMEOUT_S)
                if not readable:
                    child.kill()
                    raise SystemExit(f"{kind}: no output for {TIMEOUT_S:.0f} s")
                try:
                    chunk = os.read(main_fd, 65536)
                except OSError:  # the child left: its end of the terminal closed
                    break
                if not chunk:
                    break
                captured += chunk
        finally:
            child.wait()
            os.close(main_fd)
        text = captured.decode(errors="replace")
        if not out.exists():
            raise SystemExit(f"{kind} left without its marker:\n{text[-3000:]}")
        seen: dict[str, float] = ast.literal_eval(out.read_text())
        return seen, text


def measure(runs: int, kinds: list[str], checkouts: dict[str, Path]) -> dict[str, list[float]]:
    """Interleaved rounds (the first, a warm-up, dropped): per kind, CPU seconds to paint and ready."""
    times: dict[str, list[float]] = {f"{k}:{m}": [] for k in kinds for m in ("run", "paint", "ready")}
    for round_ in range(runs + 1):
        shift = round_ % len(kinds)
        for kind in kinds[shift:] + kinds[:shift]:
            seen, _ = run_once(kind, "ready", checkouts=checkouts)
            if round_:
                times[f"{kind}:run"].append(seen["run"])
                times[f"{kind}:paint"].append(seen["paint"])
                times[f"{kind}:ready"].append(seen["ready"])
    return times


def report(times: dict[str, list[float]], runs: int) -> None:
    """The medians (and least) per kind, and the ratios."""
    med = {k: statistics.median(v) for k, v in times.items() if v}
    print(f"CPU time from process start, median of {runs} rounds (load average {os.getloadavg()[0]:.1f})")
    print(f"{'':12}{'imports':>10}{'first paint':>14}{'ready':>10}   (least: paint, ready)")
    kinds = list(dict.fromkeys(k.split(":")[0] for k in times))
    for kind in kinds:
        lo_p, lo_r = min(times[f"{kind}:paint"]), min(times[f"{kind}:ready"])
        cells = [med[f"{kind}:{m}"] * 1e3 for m in ("run", "paint", "ready")]
        print(
            f"{kind:12}{cells[0]:>8.0f}ms{cells[1]:>12.0f}ms{cells[2]:>8.0f}ms   ({lo_p * 1e3:.0f} ms, {lo_r * 1e3:.0f} ms)"
        )
    for kind in kinds[1:]:
        against = "bare app (+ Agent in a thread, for ready)" if kind == "bare" else kind
        print(
            f"co-tui / {against}: first paint {med['co-tui:paint'] / med[f'{kind}:paint']:.3f}x, "
            f"ready {med['co-tui:ready'] / med[f'{kind}:ready']:.3f}x"
        )


def profile(kind: str, checkouts: dict[str, Path], until: str, top: int, from_run: bool) -> None:
    """cProfile of one start until `until`: the main thread, and every thread that ended by then."""
    import pstats

    with tempfile.TemporaryDirectory() as tmp:
        stats_file = Path(tmp) / "prof"
        seen, _ = run_once(
            kind,
            until,
            checkouts=checkouts,
            extra_env={"START_UP_PROFILE": str(stats_file), **({"START_UP_PROFILE_RUN": "1"} if from_run else {})},
        )
        print(f"{kind}: CPU to {until} {seen[until] * 1e3:.0f} ms (under the profiler)")
        stats = pstats.Stats(str(stats_file))
        stats.sort_stats("cumulative").print_stats(top)
        stats.sort_stats("tottime").print_stats(top)


def importtime(kind: str, checkouts: dict[str, Path], repeat: int, every: bool, until: str = "paint") -> None:
    """`-X importtime` of `repeat` starts until `until` (the first frame by default); each module's
    self time is its least over the starts (a loaded host adds to a single reading, never takes
    from it)."""
    best: dict[str, int] = {}
    for _ in range(repeat):
        _, captured = run_once(kind, until, checkouts=checkouts, flags=("-X", "importtime"))
        for line in captured.splitlines():
            found = re.search(r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)", line)
            if found:
                name, self_us = found.group(3), int(found.group(1))
                best[name] = min(best.get(name, self_us), self_us)
    by_top: dict[str, int] = {}
    for name, us in best.items():
        by_top[name.split(".")[0]] = by_top.get(name.split(".")[0], 0) + us
    print(
        f"{kind}: -X importtime until {'the first frame' if until == 'paint' else until}: {len(best)} modules, "
        f"least self time of {repeat} starts summed {sum(best.values()) / 1e3:.0f} ms"
    )
    for name, us in sorted(by_top.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {name:34}{us / 1e3:8.1f} ms")
    own = sorted(((us, n) for n, us in best.items() if n.split(".")[0] == "co_tui"), reverse=True)
    if own:
        print(f"  co-tui's own: {len(own)} modules, {sum(us for us, _ in own) / 1e3:.1f} ms; the slowest:")
    for us, name in own[:20]:
        print(f"    {name:50}{us / 1e3:7.1f} ms")
    if every:
        for name, us in sorted(best.items(), key=lambda kv: -kv[1]):
            print(f"  {name:60}{us / 1e3:7.2f} ms")


def instructions(kinds: list[str], checkouts: dict[str, Path], until: str) -> None:
    """Each kind's instructions to `until`, counted by valgrind (`cachegrind`, no cache simulation):
    the same work counts the same at any load, to a fraction of a per cent (hashes seeded)."""
    counts: dict[str, int] = {}
    for kind in kinds:
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "valgrind.log"
            wrapper = ("valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null")
            run_once(
                kind,
                until,
                checkouts=checkouts,
                extra_env={"PYTHONHASHSEED": "0"},
                wrapper=(*wrapper, f"--log-file={log}"),
            )
            found = re.search(r"I\s+refs:\s+([\d,]+)", log.read_text())
            if found is None:
                raise SystemExit(f"{kind}: no instruction count in valgrind's log")
            counts[kind] = int(found.group(1).replace(",", ""))
    print(f"instructions to {until} (valgrind, millions)")
    for kind, count in counts.items():
        ratio = f"  co-tui / {kind}: {counts['co-tui'] / count:.3f}x" if kind != "co-tui" and "co-tui" in counts else ""
        print(f"  {kind:12}{count / 1e6:10.0f}{ratio}")


def census(kind: str, checkouts: dict[str, Path]) -> None:
    """What `kind`'s first frame holds, as JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "census.json"
        run_once(kind, "paint", checkouts=checkouts, extra_env={"START_UP_CENSUS": str(out)})
        data = json.loads(out.read_text())
        data["module_count"] = len(data["modules"])
        print(json.dumps(data))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument(
        "--base",
        action="append",
        default=[],
        metavar="[NAME=]DIR",
        help="another checkout of co-tui, run as kind NAME (default: base); may be repeated",
    )
    parser.add_argument("--profile", metavar="KIND", help="co-tui, bare or a --base name")
    parser.add_argument("--from-run", action="store_true", help="with --profile: from `App.run` (after the imports)")
    parser.add_argument("--until", choices=("run", "paint", "ready"), default="paint", help="run: until `App.run`")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--importtime", metavar="KIND")
    parser.add_argument("--repeat", type=int, default=5, help="with --importtime: the starts to take the least of")
    parser.add_argument("--all", action="store_true", help="with --importtime: every module")
    parser.add_argument("--instructions", action="store_true", help="count instructions with valgrind instead")
    parser.add_argument("--kinds", nargs="+", help="with --instructions: only these kinds")
    parser.add_argument("--census", metavar="KIND")
    args = parser.parse_args()
    checkouts = {}
    for given in args.base:
        name, _, path = given.rpartition("=")
        checkouts[name or "base"] = Path(path)
    compile_bytecode(Path(sys.executable), ROOT)
    for checkout in checkouts.values():
        compile_bytecode(Path(sys.executable), checkout)
    if args.profile:
        profile(args.profile, checkouts, args.until, args.top, args.from_run)
    elif args.importtime:
        importtime(args.importtime, checkouts, args.repeat, args.all, args.until)
    elif args.instructions:
        instructions(args.kinds or ["co-tui", "bare", *checkouts], checkouts, args.until)
    elif args.census:
        census(args.census, checkouts)
    else:
        report(measure(args.runs, ["co-tui", "bare", *checkouts], checkouts), args.runs)


if __name__ == "__main__":
    main()
