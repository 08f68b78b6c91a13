"""A file that would drive the terminal, read in a real one (tmux): `read evil.txt` on the offline
model, its answer quoting the file, the tool row opened. The pane's title stays what it was and the
pane is not cleared: the file's `ESC ] 0 ; … BEL` and `ESC [ 2 J` are shown as text (issue 40, item 1)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pilot_helpers import Tmux, poll_until

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]


def test_a_hostile_file_read_and_opened_leaves_the_terminal_alone(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "evil.txt").write_bytes(b"before\x1b]0;REPO-PWNED\x07\x1b[2Jafter\n")
    tmux = Tmux(f"controls-{tmp_path.name}")
    try:
        done = tmux.start_co_tui(CO_TUI, tmp_path, data=tmp_path / "data", config=tmp_path / "config.toml", cwd=ws)
        tmux("select-pane", "-t", "t", "-T", "ORIGINAL-TITLE")
        tmux.wait_for("msgs")  # the meter: the session is ready
        tmux.submit("read evil.txt")
        tmux.wait_for("I read lines 1-1")  # the answer, quoting the file
        tmux.wait_for("4/500 msgs")  # the turn is over (its answer may show before it ends)
        tmux("send-keys", "-t", "t", "BTab")  # onto the tool row (the newest focusable above the prompt)
        poll_until(lambda: tmux.row_focused("read_file"), lambda: f"the tool row to take focus:\n{tmux.pane()}")
        tmux("send-keys", "-t", "t", "Enter")  # open it
        tmux.wait_for("result")
        poll_until(lambda: tmux.pane().count("\\x1b]0;REPO-PWNED") >= 2, lambda: f"the escapes shown:\n{tmux.pane()}")
        pane = tmux.pane()
        assert "read evil.txt" in pane, f"the pane was cleared:\n{pane}"
        assert "\\x1b[2Jafter" in pane
        assert tmux("display", "-p", "-t", "t", "#{pane_title}").strip() == "ORIGINAL-TITLE"
        tmux("send-keys", "-t", "t", "C-q")
        poll_until(done.exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
    finally:
        tmux("kill-server")
