"""Approval dialog benchmark (not a test): how long the dialog takes to open on a large call, with
the call's box painting only the rows in view (`CallBox`, a ScrollView) side by side with the same
lines in one `Static` (how the box was first built: a 5,000-line command took ~5 s to open).

The real app with a scripted session under Textual's pilot at 100×30: the approver is called, the
time runs until the dialog is on screen and laid out; best of 3 per case, in ms. The pilot's own
pauses are in both columns alike.

Run: `.venv/bin/python benchmarks/approval_dialog.py`. The host is shared: the load average is printed.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

CASES = [
    ("a short command", "ls -la", "run_shell"),
    ("a 6,000-character MCP argument", "demo_wipe " + json.dumps({"path": "." * 6000}), "demo_wipe"),
    ("400 lines", "\n".join(f"echo {i}" for i in range(400)), "run_shell"),
    ("5,000 lines", "\n".join(f"echo {i}" for i in range(5000)), "run_shell"),
    ("1 MB on one line (50,000 shown)", "x" * 1_000_000, "run_shell"),
]


def static_box() -> Any:
    """The box as one Static holding every line (the comparison)."""
    from textual.app import ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Static

    from co_tui.tui.widgets import call_box

    class StaticBox(VerticalScroll):
        DEFAULT_CSS = "StaticBox { height: auto; max-height: 12; }"

        def __init__(self, lines: Any, *, id: str | None = None) -> None:
            super().__init__(id=id)
            self.lines = tuple(lines)

        def compose(self) -> ComposeResult:
            yield Static(call_box.lines_content(self.lines))

    return StaticBox


async def open_once(command: str, tool: str) -> float:
    from quiet_app import QuietApp
    from tui_fakes import fake_factory

    from co_tui.config import Settings
    from co_tui.tui.screens.approval import ApprovalDialog

    app = QuietApp(Settings(), Path(tempfile.mkdtemp()), session_factory=fake_factory())
    async with app.run_test(size=(100, 30)) as pilot:
        while app.session is None:
            await pilot.pause(0.01)
        start = time.perf_counter()
        app.run_worker(app.approvals.approve_shell(command, tool))
        while not isinstance(app.screen, ApprovalDialog):
            await pilot.pause(0)
        await pilot.pause()
        return (time.perf_counter() - start) * 1000


async def best(command: str, tool: str) -> float:
    return min([await open_once(command, tool) for _ in range(3)])


async def main() -> None:
    from co_tui.tui.screens import approval

    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'case':34s} {'CallBox':>9s} {'Static':>9s}  ratio")
    for name, command, tool in CASES:
        line_api = await best(command, tool)
        original = approval.CallBox
        approval.CallBox = static_box()  # type: ignore[misc]
        try:
            whole = await best(command, tool)
        finally:
            approval.CallBox = original  # type: ignore[misc]
        print(f"{name:34s} {line_api:7.0f} ms {whole:7.0f} ms  {whole / line_api:4.1f}x")


if __name__ == "__main__":
    asyncio.run(main())
