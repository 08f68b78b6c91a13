"""ACP start-up benchmark (not a test): how soon `co-tui acp` answers `initialize`, against the TUI's
ready time measured in the same run (docs/acp.md; issue "co-tui in every editor": start-up over ACP
answers `initialize` within the TUI's ready time).

Each round, interleaved (who goes first alternates), in the TUI benchmark's sandbox (a temp
workspace, data dir and config; benchmarks/tui.py):

- `co-tui acp` as an editor starts it: pipes on stdin/stdout, the `initialize` request written at
  once; the time from the spawn until its answer's line is read (and its CPU seconds then), and
  until `session/new` is answered (the session built: settings, pydantic-ai, the offline model);
- the TUI on a pseudo-terminal, the way benchmarks/tui.py part a measures it: its first paint (the
  prompt's placeholder) and its ready time (the OFFLINE badge: the session built).

Printed: medians, and the ratios `initialize` / TUI ready (target <= 1.0) and `session/new` / TUI
ready (the same work, no screen: about 1.0). One warm-up round is not counted.

Run: `.venv/bin/python benchmarks/acp_startup.py [--runs N]` (default 7; about a minute).
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
TARGET = 1.0  # initialize answered within the TUI's ready time


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _answer(process: subprocess.Popen[bytes], request_id: int) -> None:
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        if not line:
            raise SystemExit("co-tui acp closed stdout before answering")
        message = json.loads(line)
        if message.get("id") == request_id and "method" not in message:
            if "error" in message:
                raise SystemExit(f"co-tui acp answered with an error: {message['error']}")
            return


def acp_once(co_tui: Path, env: dict[str, str], workspace: Path) -> dict[str, float]:
    """One `co-tui acp`: seconds (and CPU seconds) until `initialize`, then `session/new`, answer."""
    started = time.monotonic()
    process = subprocess.Popen(
        [str(co_tui), "acp"],
        cwd=workspace,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    process.stdin.write(json.dumps(initialize).encode() + b"\n")
    process.stdin.flush()
    _answer(process, 1)
    figures = {"initialize": time.monotonic() - started, "initialize-cpu": _cpu_s(process.pid)}
    new = {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(workspace), "mcpServers": []}}
    process.stdin.write(json.dumps(new).encode() + b"\n")
    process.stdin.flush()
    _answer(process, 2)
    figures["session/new"] = time.monotonic() - started
    process.stdin.close()
    process.wait(30)
    return figures


def tui_once(tui_bench: object, box: object) -> dict[str, float]:
    """One TUI start on a pty (benchmarks/tui.py's `Terminal`): first paint, ready."""
    term = box.start([str(tui_bench.CO_TUI)])  # type: ignore[attr-defined]
    painted = term.wait_for(tui_bench.PROMPT_MARKER, 30)  # type: ignore[attr-defined]
    ready = term.wait_for(tui_bench.READY_MARKER, 30)  # type: ignore[attr-defined]
    ready_cpu = term.cpu_s() if ready is not None else 0.0
    term.close()
    if painted is None or ready is None:
        raise SystemExit("the TUI did not paint and get ready within 30 s")
    return {"paint": painted, "ready": ready, "ready-cpu": ready_cpu}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="rounds counted (one more warms up)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import tui as tui_bench  # the TUI benchmark's sandbox and pty terminal

    figures: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="co-tui-acp-bench-") as tmp:
        box = tui_bench.Sandbox(Path(tmp))
        for round_ in range(args.runs + 1):
            kinds = ("acp", "tui") if round_ % 2 else ("tui", "acp")
            for kind in kinds:
                got = acp_once(tui_bench.CO_TUI, box.env, box.workspace) if kind == "acp" else tui_once(tui_bench, box)
                if round_:  # round 0 warms the page cache and bytecode
                    for key, value in got.items():
                        figures.setdefault(key, []).append(value)
    med = {key: statistics.median(values) for key, values in figures.items()}
    load = os.getloadavg()[0]
    print(f"ACP start-up vs the TUI, {args.runs} interleaved rounds, medians (load average {load:.2f})")
    rows = [
        ("co-tui acp: initialize answered", med["initialize"], med["initialize-cpu"]),
        ("co-tui acp: session/new answered", med["session/new"], None),
        ("TUI: first paint", med["paint"], None),
        ("TUI: ready (OFFLINE badge)", med["ready"], med["ready-cpu"]),
    ]
    for name, wall, cpu in rows:
        cpu_text = f"  ({cpu * 1000:6.0f} ms CPU)" if cpu is not None else ""
        print(f"  {name:<36} {wall * 1000:7.0f} ms{cpu_text}")
    ratio = med["initialize"] / med["ready"]
    verdict = "ok" if ratio <= TARGET else "OVER"
    print(f"  initialize / TUI ready              {ratio:7.2f}x   target <= {TARGET:.1f}x  {verdict}")
    print(f"  initialize / TUI first paint        {med['initialize'] / med['paint']:7.2f}x")
    print(f"  session/new / TUI ready             {med['session/new'] / med['ready']:7.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
