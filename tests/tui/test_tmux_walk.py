"""What a new user met walking through co-tui in a real terminal (tmux): the real `co-tui`, a real
SQLite file. Each test is a problem found that way, fixed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from cli_process import run_co_tui
from pilot_helpers import Tmux, poll_until

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]


@pytest.fixture
def walk(tmp_path: Path):
    """(start, tmux, ws, env): `start(*args)` runs `co-tui args…` in a 100x30 tmux pane in the
    workspace `ws`, its data and config under `tmp_path` (`env`: the same for a print-mode run);
    the exit status lands in `tmp_path/exit-code`."""
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {"CO_TUI_DATA_DIR": str(tmp_path / "data"), "CO_TUI_CONFIG_FILE": str(tmp_path / "config.toml")}
    tmux = Tmux(f"walk-{tmp_path.name}")

    def start(*args: str) -> None:
        fixed = [f"PATH={os.environ['PATH']}", f"HOME={tmp_path}", "LANG=C.UTF-8", "TERM=tmux-256color"]
        command = " ".join(["env", "-i", *fixed, *(f"{k}={v}" for k, v in env.items()), str(CO_TUI), *args])
        tmux(
            "new-session", "-d", "-s", "t", "-x", "100", "-y", "30", "-c", str(ws), f"{command}; echo $? > ../exit-code"
        )

    try:
        yield start, tmux, ws, env
    finally:
        tmux("kill-server")


def test_a_bare_resume_opens_the_session_picker(walk) -> None:
    """`co-tui --resume` without an id started a new conversation: README says it lets you pick one."""
    start, tmux, ws, env = walk
    saved = run_co_tui("-p", "hello from the walk", cwd=ws, env=env)
    assert saved.returncode == 0, saved.stderr
    start("--resume")
    tmux.wait_for("Sessions in ws")  # the picker, filled in after it opens:
    tmux.wait_for("hello from the walk")
    tmux("send-keys", "-t", "t", "Enter")
    tmux.wait_for("Resumed “hello from the walk”")
    tmux("send-keys", "-t", "t", "C-q")
    poll_until((ws.parent / "exit-code").exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
