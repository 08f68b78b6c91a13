"""Start-up in tmux (issue 44; not a test): co-tui's first paint and ready against bare apps.

Every program runs in a tmux session of its own (120x36, a private server, no user config), its
output copied to a file (`pipe-pane`); the moment a marker first shows in that output is when it
was painted. Interleaved rounds (who goes first rotates), one warm-up round, medians:

- **first paint**: co-tui's prompt placeholder on screen, against a bare Textual app (Header,
  three Statics, an Input) — target ≤ 1.1×;
- **ready**: co-tui's context meter showing tokens (the session built, pydantic-ai loaded),
  against a bare app that, after its first paint, imports pydantic-ai and builds an `Agent` on a
  `FunctionModel` in a thread and then shows a marker — target ≤ 1.1×;
- the same ratios in CPU seconds (the program's, all threads, from /proc when its marker shows):
  a loaded host stretches wall time, much less the work;
- with `--base DIR` (another checkout of co-tui, e.g. the previous release's: `git archive <it> |
  tar -x -C DIR`), its co-tui in the same rounds with this environment's packages: ready no slower
  than it (target ≤ 1.0×, within the noise). Both co-tuis then run as `python -m co_tui` with their
  checkout on `PYTHONPATH`.

Bytecode is compiled first (`compileall` over co-tui and the packages start-up imports), as a
user's first run leaves it: this host's environment sets `PYTHONDONTWRITEBYTECODE`, and without
bytecode co-tui compiles every module it imports (first paint then measured 1.37–1.49×). The
children run with a clean environment (`env -i`), which does not carry the variable.

Run: `.venv/bin/python benchmarks/start_up.py [--runs 5] [--base DIR] [--json FILE]`.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLS, ROWS = 120, 36
PAINT_MARKER = b"sk anything"  # both apps' placeholder "Ask anything…" (its "A" sits under the cursor)
READY_MARKER = b" tokens ("  # co-tui's meter: `~1.2k/102k tokens (1%)`, once the session is built
AGENT_MARKER = b"AGENT-READY"
TIMEOUT_S = 60.0
TARGETS = {"paint_ratio": 1.1, "ready_ratio": 1.1, "ready_vs_base": 1.0}


def run_bare(with_agent: bool) -> None:
    """The reference apps: the same shape as the chat screen; with `with_agent`, after the first
    paint a thread imports pydantic-ai and builds an Agent on a FunctionModel, then shows a marker."""
    import threading

    from textual.app import App, ComposeResult
    from textual.widgets import Header, Input, Static

    class Bare(App[None]):
        BINDINGS = [("ctrl+q", "quit", "Quit")]

        def compose(self) -> ComposeResult:
            yield Header()
            yield Static("A bare Textual app", id="one")
            yield Static("with a few Static widgets", id="two")
            yield Static("and an Input", id="three")
            yield Input(placeholder="Ask anything")

        def on_mount(self) -> None:
            if with_agent:
                self.call_after_refresh(lambda: threading.Thread(target=self._load, daemon=True).start())

        def _load(self) -> None:
            from pydantic_ai import Agent
            from pydantic_ai.messages import ModelResponse, TextPart
            from pydantic_ai.models.function import FunctionModel

            Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("ok")])))
            self.call_from_thread(lambda: self.query_one("#one", Static).update(AGENT_MARKER.decode()))

    Bare().run()


class TmuxRun:
    """One program in a tmux session of its own; `wait_for` scans what it wrote."""

    runs = 0

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, out: Path) -> None:
        TmuxRun.runs += 1  # a server of its own each run: a killed one may still be shutting down
        self.socket = f"co-tui-start-up-{os.getpid()}-{TmuxRun.runs}"
        self.out = out
        out.write_bytes(b"")
        variables = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
        command = f"read _ && exec env -i {variables} {' '.join(shlex.quote(a) for a in argv)}"
        self.tmux("new-session", "-d", "-s", "t", "-x", str(COLS), "-y", str(ROWS), "-c", str(cwd), command)
        self.tmux("pipe-pane", "-t", "t", "-o", f"cat >> {shlex.quote(str(out))}")
        listed = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", "list-panes", "-t", "t", "-F", "#{pane_pid}"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.split()
        self.pid = int(listed[0]) if listed else None  # the shell, then (exec) the program
        self.started = time.monotonic()
        self.tmux("send-keys", "-t", "t", "Enter")  # the shell's `read` returns: the program starts now
        self._seen = b""

    def cpu_s(self) -> float:
        """The program's CPU seconds so far (user + system, all its threads), from /proc."""
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def tmux(self, *args: str) -> None:
        subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args], check=False, capture_output=True)

    def wait_for(self, marker: bytes) -> float | None:
        """Seconds from the start to `marker` in the output, or None after `TIMEOUT_S`."""
        deadline = self.started + TIMEOUT_S
        with self.out.open("rb") as stream:
            while time.monotonic() < deadline:
                chunk = stream.read()
                if chunk:
                    self._seen += chunk
                    if marker in self._seen:
                        return time.monotonic() - self.started
                else:
                    time.sleep(0.002)
        return None

    def close(self) -> None:
        self.tmux("kill-server")


def compile_bytecode(python: Path, checkout: Path) -> None:
    """`compileall` co-tui and its environment's packages (quick when already compiled)."""
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for path in (checkout / "co_tui", Path(site)):
        subprocess.run([str(python), "-m", "compileall", "-q", "-j", "0", str(path)], env=env, check=False)


def child_env(home: Path) -> dict[str, str]:
    """The environment a measured start gets (`env -i` plus these): a user's terminal, and `home`
    for its data and config, so no setting or saved session of the host's changes what is timed."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "tmux-256color",
        "CO_TUI_DATA_DIR": str(home / "data"),
        "CO_TUI_CONFIG_FILE": str(home / "config.toml"),
    }


def measure(runs: int, base: Path | None) -> dict[str, list[float]]:
    """Interleaved rounds; per kind the seconds to its markers (round 0, the warm-up, dropped)."""
    python = Path(sys.executable)
    kinds: dict[str, tuple[list[str], bytes | None, dict[str, str]]] = {
        "co-tui": ([str(python), "-m", "co_tui"], READY_MARKER, {"PYTHONPATH": str(ROOT)}),
        "bare": ([str(python), __file__, "--child", "bare"], None, {}),
        "bare-agent": ([str(python), __file__, "--child", "bare-agent"], AGENT_MARKER, {}),
    }
    if base is not None:
        kinds["base"] = ([str(python), "-m", "co_tui"], READY_MARKER, {"PYTHONPATH": str(base)})
    times: dict[str, list[float]] = {
        f"{k}:{m}": [] for k in kinds for m in ("paint", "ready", "paint-cpu", "ready-cpu")
    }
    order = list(kinds)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = child_env(home)
        for round_ in range(runs + 1):
            shift = round_ % len(order)
            for kind in order[shift:] + order[:shift]:
                argv, ready_marker, extra = kinds[kind]
                run = TmuxRun(argv, {**env, **extra}, home, home / f"out-{round_}-{kind}")
                try:
                    painted = run.wait_for(PAINT_MARKER)
                    paint_cpu = run.cpu_s()
                    ready = run.wait_for(ready_marker) if ready_marker is not None and painted is not None else painted
                    ready_cpu = run.cpu_s()
                finally:
                    run.close()
                if painted is None or ready is None:
                    raise SystemExit(f"{kind} did not paint (or get ready) within {TIMEOUT_S:.0f} s")
                if round_:
                    times[f"{kind}:paint"].append(painted)
                    times[f"{kind}:ready"].append(ready)
                    times[f"{kind}:paint-cpu"].append(paint_cpu)
                    times[f"{kind}:ready-cpu"].append(ready_cpu)
    return times


def report(times: dict[str, list[float]], runs: int) -> dict[str, float]:
    """Prints the table; returns the ratios."""
    med = {k: statistics.median(v) for k, v in times.items() if v}
    ratios = {
        "paint_ratio": med["co-tui:paint"] / med["bare:paint"],
        "ready_ratio": med["co-tui:ready"] / med["bare-agent:ready"],
        "paint_cpu_ratio": med["co-tui:paint-cpu"] / med["bare:paint-cpu"],
        "ready_cpu_ratio": med["co-tui:ready-cpu"] / med["bare-agent:ready-cpu"],
    }
    if "base:ready" in med:
        ratios["ready_vs_base"] = med["co-tui:ready"] / med["base:ready"]
        ratios["ready_cpu_vs_base"] = med["co-tui:ready-cpu"] / med["base:ready-cpu"]
    load = os.getloadavg()[0]
    print(f"start-up in tmux, median of {runs} interleaved rounds (load average {load:.1f} on {os.cpu_count()} cores)")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("this host sets PYTHONDONTWRITEBYTECODE: bytecode compiled first, children run without it")
    print(f"{'':20}{'first paint':>12}{'ready':>10}{'CPU: paint':>12}{'ready':>10}")
    for kind in ("co-tui", "bare", "bare-agent", "base"):
        if f"{kind}:paint" in med:
            cells = [med[f"{kind}:{m}"] * 1e3 for m in ("paint", "ready", "paint-cpu", "ready-cpu")]
            print(f"{kind:20}{cells[0]:>10.0f}ms{cells[1]:>8.0f}ms{cells[2]:>10.0f}ms{cells[3]:>8.0f}ms")
    words = {
        "paint_ratio": "first paint / bare app's",
        "ready_ratio": "ready / bare app + Agent in a thread",
        "ready_vs_base": "ready / base checkout's",
    }
    for key, label in words.items():
        if key not in ratios:
            continue
        cpu = ratios[key.replace("_ratio", "_cpu_ratio").replace("_vs_", "_cpu_vs_")]
        verdict = "MET" if ratios[key] <= TARGETS[key] else "NOT MET"
        print(f"{label:38}{ratios[key]:>6.2f}x (CPU {cpu:.2f}x)  target <= {TARGETS[key]}x -> {verdict}")
    return ratios


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        run_bare(with_agent=sys.argv[2] == "bare-agent")
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", type=Path, help="another checkout of co-tui (run in the same rounds)")
    parser.add_argument("--json", type=Path, help="also write the ratios and medians to this file")
    args = parser.parse_args()
    compile_bytecode(Path(sys.executable), ROOT)
    if args.base is not None:
        compile_bytecode(Path(sys.executable), args.base)
    times = measure(args.runs, args.base)
    ratios = report(times, args.runs)
    if args.json:
        medians = {k: statistics.median(v) for k, v in times.items() if v}
        args.json.write_text(json.dumps({"ratios": ratios, "medians": medians}))


if __name__ == "__main__":
    main()
