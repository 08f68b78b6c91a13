"""The tmux smoke script (scripts/tmux_smoke.sh) against the real `co-tui` in a real terminal.

It types a prompt, reads the pane (tool call line, the offline answer, the meter), opens and
closes the help with F1 and /help, quits with ctrl+q and checks the turn was saved. Skipped when
tmux or the venv's `co-tui` is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "tmux_smoke.sh"
CO_TUI = Path(sys.executable).with_name("co-tui")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.skipif(not CO_TUI.exists(), reason="no co-tui console script next to this Python")
def test_tmux_smoke() -> None:
    env = {**os.environ, "CO_TUI": str(CO_TUI), "SMOKE_TIMEOUT": "30"}
    result = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    assert result.stdout.rstrip().endswith("tmux_smoke: ok")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_tmux_smoke_fails_with_the_pane_when_no_tui_shows(tmp_path: Path) -> None:
    # A program that never draws the prompt: the script must fail on the first wait and show the pane.
    fake = tmp_path / "co-tui"
    fake.write_text("#!/bin/sh\necho 'no prompt here'\nsleep 30\n")
    fake.chmod(0o755)
    env = {**os.environ, "CO_TUI": str(fake), "SMOKE_TIMEOUT": "2"}
    result = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "FAILED: the prompt" in result.stderr
    assert "no prompt here" in result.stderr  # the captured pane
