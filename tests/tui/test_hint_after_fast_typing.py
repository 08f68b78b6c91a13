"""A command typed fast still shows its hint: `/pin` typed and sent right after `/undo` left
"nothing to undo…" on the terminal (a new user's walk-through). The key echo painted the prompt on
its own and Textual then forgot the hint's pending repaint (docs/architecture.md, "Streaming").
The real `co-tui` in a real terminal (tmux): what the test reads is what the terminal shows."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pilot_helpers import Tmux

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]


def test_a_hint_typed_fast_after_another_reaches_the_terminal(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    tmux = Tmux(f"hint-{tmp_path.name}")
    tmux.start_co_tui(CO_TUI, tmp_path, data=tmp_path / "data", config=tmp_path / "config.toml", cwd=ws)
    try:
        tmux.wait_for("Ask anything")
        tmux.wait_for("0/")  # the meter: the session is ready, commands run at once
        tmux.submit("/undo")
        tmux.wait_for("nothing to undo")
        for command, hint in [("/pin", "nothing to pin yet"), ("/undo", "nothing to undo"), ("/pin", "nothing to pin")]:
            tmux("send-keys", "-t", "t", "-l", command)
            tmux("send-keys", "-t", "t", "Enter")
            tmux.wait_for(hint, timeout=20)
    finally:
        tmux("kill-server")
