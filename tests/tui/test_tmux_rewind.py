"""Esc Esc in a real terminal (tmux), typed in one burst as a fast typist would: the real `co-tui`,
a real SQLite file. The picker opens, Down Enter rewinds to the earlier prompt, its text is back in
the input; edited and resent, it goes out on the new branch; /branches lists the tree and Enter
switches back, and the database keeps the branch last used."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from cli_process import call_co_tui
from pilot_helpers import Tmux, poll_until

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]


def test_esc_esc_down_enter_rewinds_to_the_earlier_prompt(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {"CO_TUI_DATA_DIR": str(tmp_path / "data"), "CO_TUI_CONFIG_FILE": str(tmp_path / "config.toml")}
    for prompt, more in (("the first question", []), ("the second question", ["--continue"])):
        done = call_co_tui(*more, "-p", prompt, cwd=ws, env=env)  # the saved turns: in-process
        assert done.returncode == 0, done.stderr
    tmux = Tmux(f"rewind-{tmp_path.name}")
    fixed = [f"PATH={os.environ['PATH']}", f"HOME={tmp_path}", "LANG=C.UTF-8", "TERM=tmux-256color"]
    command = " ".join(["env", "-i", *fixed, *(f"{k}={v}" for k, v in env.items()), str(CO_TUI), "--continue"])
    try:
        tmux(
            "new-session", "-d", "-s", "t", "-x", "110", "-y", "32", "-c", str(ws), f"{command}; echo $? > ../exit-code"
        )
        tmux.wait_for("Resumed")
        tmux.wait_for("4/500 msgs")  # the session is ready (the meter's first reading)
        tmux("send-keys", "-t", "t", "Escape", "Escape")
        tmux.wait_for("Rewind to before an earlier prompt")
        assert "turn 2 · " in tmux.pane() and "turn 1 · " in tmux.pane()
        tmux("send-keys", "-t", "t", "Down", "Enter")  # turn 1
        tmux.wait_for("Conversation rewound")
        tmux.wait_for("the first question")
        assert "Rewind to before" not in tmux.pane()
        tmux("send-keys", "-t", "t", "-l", ", edited")  # edit the prompt put back, and resend it
        tmux("send-keys", "-t", "t", "Enter")
        tmux.wait_for('You said "the first question, edited"')
        tmux.wait_turn_over()  # /branches is refused while a turn runs
        tmux("send-keys", "-t", "t", "-l", "/branches")
        tmux("send-keys", "-t", "t", "Enter")
        tmux.wait_for("Branches of this conversation")
        assert "● └ branch 1 · rewound to turn 1 of branch 0 · 1 turn" in tmux.pane()
        tmux("send-keys", "-t", "t", "Up", "Enter")  # back to branch 0, exactly as it was left
        tmux.wait_for("Branch switched")
        tmux.wait_for("the second question")
        tmux("send-keys", "-t", "t", "C-q")
        poll_until((tmp_path / "exit-code").exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
    finally:
        tmux("kill-server")
    with sqlite3.connect(tmp_path / "data" / "sessions.db") as db:
        assert db.execute("SELECT branch FROM sessions WHERE branch_of IS NULL").fetchall() == [(0,)]
        assert db.execute("SELECT count(*) FROM sessions WHERE branch_of IS NOT NULL").fetchone() == (1,)
