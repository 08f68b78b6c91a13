"""MCP stdio read benchmark (not a test): what a huge tool answer costs co-tui to read.

A real stdio server (tests/mcp_servers/hostile_server.py) answers one call with N MB of text on one
line. Each case runs in a fresh process and is read two ways:

- `sdk`: the MCP SDK's `stdio_client` (through fastmcp's `StdioTransport`), which co-tui used
  before: its reader joins the buffer with each chunk and splits it again, quadratic in a line;
- `co-tui`: `co_tui.agent.mcp_stdio.CappedStdioTransport`: linear, and a message over
  `MAX_MESSAGE_BYTES` (8 MB) is not read — its call fails at once, saying so.

Printed side by side, for a 7 MB answer (under the cap: both read it whole) and a 20 MB one (the
audit's case, issue 33 item 10): wall time of the call, the process's peak RSS, and the longest
stall of the event loop during the call (a 5 ms ticker: what keys would wait for in the TUI).
Run: `.venv/bin/python benchmarks/mcp_read.py` (about a minute).
"""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "mcp_servers" / "hostile_server.py"
sys.path.insert(0, str(ROOT))


async def one(way: str, megabytes: float) -> dict:
    """Call `huge` once over `way`'s transport; the figures of that call."""
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    from co_tui.agent.mcp_stdio import CappedStdioTransport

    env = {"HOSTILE_HUGE_MB": str(megabytes)}
    if way == "sdk":
        transport = StdioTransport(
            sys.executable, [str(SERVER), "huge"], env=env, keep_alive=False, log_file=tempfile.TemporaryFile("w+")
        )
    else:
        transport = CappedStdioTransport(sys.executable, [str(SERVER), "huge"], env=env)
    stall = 0.0
    done = False

    async def ticker() -> None:
        nonlocal stall
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            stall = max(stall, now - last - 0.005)
            last = now

    async with Client(transport, timeout=600) as client:
        tick = asyncio.ensure_future(ticker())
        start = time.perf_counter()
        try:
            result = await client.call_tool("huge", {}, raise_on_error=False)
            outcome = f"read {len(result.content[0].text) / 1e6:.0f} MB"
        except Exception as exc:
            outcome = f"refused: {str(exc)[:60]}"
        seconds = time.perf_counter() - start
        done = True
        await tick
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "peak_mb": peak, "stall_ms": stall * 1000, "outcome": outcome}


def measure(way: str, megabytes: float) -> dict:
    """`one` in a fresh process (its peak RSS is its own)."""
    proc = subprocess.run(
        [sys.executable, __file__, "--one", way, str(megabytes)], capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    """Print the table."""
    print(f"{'answer':>7} | {'reader':<7} | {'time':>8} | {'peak RSS':>9} | {'loop stall':>10} | outcome")
    for megabytes in (7, 20):
        rows = {way: measure(way, megabytes) for way in ("sdk", "co-tui")}
        for way, r in rows.items():
            print(
                f"{megabytes:>4} MB | {way:<7} | {r['seconds']:>6.2f} s | {r['peak_mb']:>6.0f} MB | "
                f"{r['stall_ms']:>7.0f} ms | {r['outcome']}"
            )
        sdk, ours = rows["sdk"], rows["co-tui"]
        print(
            f"{'':>7} | ratio   | {sdk['seconds'] / ours['seconds']:>6.1f} x | {sdk['peak_mb'] / ours['peak_mb']:>6.1f} x"
            f" | {sdk['stall_ms'] / max(ours['stall_ms'], 0.1):>8.1f} x | sdk / co-tui"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(asyncio.run(one(sys.argv[2], float(sys.argv[3])))))
    else:
        main()
