"""A subagent in a real terminal (tmux): the real `co-tui` with the offline model (held: its answers
never end, CO_TUI_OFFLINE_HOLD, so the child is still running when the keys come, whatever the
load), asked to delegate as a user without a key would. The block shows the child live; Shift+Tab
and Enter open its transcript while it runs, Esc there returns to the chat with the child still
going, Esc in the chat stops the turn and the block says `cancelled`; the prompt works after."""

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

ASK = "explore docs in a subagent and tell me which file mentions zephyr"


def test_open_a_running_subagent_then_stop_the_turn(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "a.md").write_text("# A\nnothing here\n")
    (ws / "docs" / "b.md").write_text("# B\nthe zephyr lives here\n")
    tmux = Tmux(f"subagent-{tmp_path.name}")
    try:
        # The scenario: a model whose answers do not end while the hold file is missing (the test
        # never creates it), so the child is still answering when the keys come, however slow the
        # host; every step below waits for what the screen shows, never for a time.
        done = tmux.start_co_tui(
            CO_TUI,
            tmp_path,
            data=tmp_path / "data",
            config=tmp_path / "config.toml",
            cwd=ws,
            CO_TUI_OFFLINE_HOLD=str(tmp_path / "never-created"),
        )
        tmux.wait_for("Ask anything")
        tmux.submit(ASK)
        tmux.wait_for("◆ explore · search zephyr in docs  running")
        # The child's tool in its block: its `⚙ search_text(…) running…` line shows only while the
        # search runs (milliseconds, often between two frames), so what stays is waited for: its
        # count, then the answer being written; the call itself is checked in the transcript below.
        tmux.wait_for("1 tool call")
        tmux.wait_for("writing its answer…")
        # Shift+Tab from the prompt focuses the newest row (the block); Enter opens it.
        tmux("send-keys", "-t", "t", "BTab")
        tmux.wait_for("⏎ Open subagent")
        tmux("send-keys", "-t", "t", "Enter")
        tmux.wait_for("Subagent explore-1 · its own context, as it runs")
        screen = tmux.pane()
        assert "▌ search zephyr in docs" in screen  # the task it was sent
        assert "search_text(pattern=" in screen and "running" in screen
        tmux.wait_for("writing its answer…")  # it streams on while open
        # Esc there returns to the chat; the child goes on.
        tmux("send-keys", "-t", "t", "Escape")
        tmux.wait_for("Subagent explore-1 · its own context", gone=True)
        assert "running" in tmux.pane() and "interrupted" not in tmux.pane()
        # Esc in the chat stops the whole turn, the child with it.
        tmux("send-keys", "-t", "t", "Escape")
        tmux.wait_for("◆ explore · search zephyr in docs  cancelled")
        tmux.wait_for("interrupted: the partial answer is kept")
        screen = tmux.pane()
        assert "zephyr lives here" not in screen.split("cancelled")[0]  # no child text in the main flow above
        tmux.submit("hello")
        tmux.wait_for("▌ hello")  # the prompt works after
        tmux("send-keys", "-t", "t", "C-q")
        poll_until(done.exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
    finally:
        tmux("kill-server")
