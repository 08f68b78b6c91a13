"""What a new user tripped over, round four (issue 43 items 1-5 and 9), in a real terminal (tmux):
the real `co-tui` on the offline model, a real SQLite file, the keys a terminal sends (tmux sends
Alt+Enter as ESC CR, PgUp as its escape sequence)."""

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


@pytest.fixture
def tmux(tmp_path: Path):
    terminal = Tmux(f"four-{tmp_path.name}")
    try:
        yield terminal
    finally:
        terminal("kill-server")


def _keys(tmux: Tmux, *keys: str) -> None:
    tmux("send-keys", "-t", "t", *keys)


def _prompt_lines(tmux: Tmux) -> list[str]:
    """The lines inside the prompt box."""
    lines = tmux.pane().splitlines()
    top = max(i for i, line in enumerate(lines) if line.lstrip().startswith("╭"))
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i].lstrip().startswith("╰"))
    return [line.strip().strip("│").strip() for line in lines[top + 1 : bottom]]


def test_bang_output_newlines_scrolling_ctrl_c_and_the_sessions_hint(tmux: Tmux, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    done = tmux.start_co_tui(CO_TUI, tmp_path, data=tmp_path / "data", config=tmp_path / "config.toml", cwd=ws)
    tmux.wait_for("Ask anything")

    # 1: a !command's output, inline, with +N lines and its exit status; an error's text too.
    tmux.submit("!seq 101 115")
    tmux.wait_for("You typed !, to run in the workspace:")
    tmux.wait_for("Run (y)")  # armed
    _keys(tmux, "y")
    tmux.wait_for("+5 lines · enter opens the rest")
    screen = tmux.pane()
    assert "101" in screen and "110" in screen and "111" not in screen and "exit 0" in screen
    tmux.submit("!ls nonexist")
    tmux.wait_for("Run (y)")
    _keys(tmux, "y")
    tmux.wait_for("No such file or directory")
    tmux.wait_turn_over()  # /sessions below is refused while the command's job runs
    assert "exit 2" in tmux.pane()

    # 2: Alt+Enter (ESC CR here) starts a new line; nothing is sent.
    _keys(tmux, "-l", "first line")
    tmux.wait_for("first line")
    _keys(tmux, "M-Enter")
    _keys(tmux, "-l", "second line")
    poll_until(lambda: _prompt_lines(tmux)[:2] == ["first line", "second line"], lambda: tmux.pane())

    # 3: PgUp scrolls the chat from the prompt (the log says there is more below); Ctrl+End goes back.
    _keys(tmux, "PageUp")
    tmux.wait_for("more below")
    assert _prompt_lines(tmux)[:2] == ["first line", "second line"], "the prompt keeps its text"
    _keys(tmux, "C-End")
    tmux.wait_for("more below", gone=True)

    # 4: Ctrl+C clears the prompt; its hint goes when the window to quit closes; the app stays.
    _keys(tmux, "C-c")
    tmux.wait_for("ctrl+c again quits")
    tmux.wait_for("ctrl+c again quits", gone=True)
    _keys(tmux, "C-c")
    tmux.wait_for("ctrl+c again quits")  # a fresh first press: co-tui still runs
    assert not done.exists()

    # 5: /sessions names the key that deletes.
    tmux.submit("/sessions")
    tmux.wait_for("Del delete")
    _keys(tmux, "Escape")
    tmux.wait_for("Del delete", gone=True)
    _keys(tmux, "C-q")
    poll_until(done.exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
