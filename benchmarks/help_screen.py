"""Help screen benchmark (not a test): how long F1 takes to show the keys and commands, first and
again (it once took ~2 s every time, F2 0.7 s: the help is now one widget, built once).

The real CoTuiApp with the offline model under Textual's pilot at 120×36: press F1, wait until the
help screen's text is laid out (its `#help-text` has its height and the screen refreshed), press
Esc, five times; then the same for F2 (the history inspector) for comparison. Medians in ms.

Run: `.venv/bin/python benchmarks/help_screen.py`. The host is shared: the load average is printed.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


async def measure(rounds: int = 5) -> dict[str, list[float]]:
    from pilot_helpers import wait_ready, wait_until

    from co_tui.config import load_settings
    from co_tui.tui.app import CoTuiApp

    workspace = Path(tempfile.mkdtemp())
    (workspace / "README.md").write_text("# Demo\n")
    app = CoTuiApp(load_settings(), workspace)
    times: dict[str, list[float]] = {"f1": [], "f2": []}
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_ready(pilot)
        for key, name in (("f1", "HelpScreen"), ("f2", "HistoryScreen")):
            for _ in range(rounds):
                start = time.perf_counter()
                await pilot.press(key)
                await wait_until(pilot, lambda name=name: type(app.screen).__name__ == name, what=name)
                if name == "HelpScreen":  # its text laid out (whatever widget draws it)
                    await wait_until(pilot, lambda: app.screen.query_one("#help-text").size.height > 5)
                await pilot.pause()
                times[key].append((time.perf_counter() - start) * 1000)
                await pilot.press("escape")
                await wait_until(pilot, lambda: type(app.screen).__name__ == "ChatScreen", what="chat")
    return times


def main() -> None:
    for var in ("CO_TUI_DATA_DIR", "CO_TUI_CONFIG_DIR"):
        os.environ.setdefault(var, tempfile.mkdtemp())
    times = asyncio.run(measure())
    print(f"load average: {os.getloadavg()[0]:.2f}")
    for key, label in (("f1", "F1 help"), ("f2", "F2 history (reference)")):
        runs = times[key]
        print(
            f"{label:24} first {runs[0]:7.0f} ms   again (median of {len(runs) - 1}) "
            f"{statistics.median(runs[1:]):7.0f} ms"
        )


if __name__ == "__main__":
    main()
