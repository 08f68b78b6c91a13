"""`!command` and `@path` in a real terminal (tmux): the real `co-tui`, a real SQLite file, keys sent
in one burst as a fast typist sends them (issue 32 items 11 and 12)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pilot_helpers import Tmux, poll_until
from support.processes import running

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]


@pytest.fixture
def term(tmp_path: Path):
    """(tmux, ws): co-tui running in a 100×30 pane in workspace `ws`."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "README.md").write_text("# Demo\n\nA small workspace.\n")
    (ws / "src").mkdir()
    (ws / "src" / "parser.py").write_text("def parse(text):\n    return text.split()  # the parser\n")
    tmux = Tmux(f"habits-{tmp_path.name}")
    tmux.start_co_tui(CO_TUI, tmp_path, data=tmp_path / "data", config=tmp_path / "config.toml", cwd=ws)
    try:
        tmux.wait_for("Ask anything")
        # Keys read while co-tui starts are held and put into the prompt as one paste (a Tab as a tab,
        # an Enter as a line break: tui/early_input.py). A first key shown in the prompt ends that;
        # only then are the bursts below read as keys, as a typist's are.
        _keys(tmux, "x")
        poll_until(lambda: "│ x " in tmux.pane(), lambda: f"the first key in the prompt:\n{tmux.pane()}")
        _keys(tmux, "BSpace")
        tmux.wait_for("Ask anything")
        yield tmux, ws
    finally:
        tmux("kill-server")


def _keys(tmux: Tmux, *keys: str) -> None:
    """Send `keys` in one tmux command: one write to the terminal, read by co-tui as one burst."""
    tmux("send-keys", "-t", "t", *keys)


def test_a_bang_command_typed_in_one_burst_asks_runs_and_stops(term) -> None:
    tmux, ws = term
    _keys(tmux, "!echo one-two-three", "Enter")
    tmux.wait_for("You typed !, to run in the workspace:")
    tmux.wait_for("Run (y)")  # armed: its answers work (screens/arming.py)
    _keys(tmux, "y")
    tmux.wait_for("$ echo one-two-three")
    tmux.wait_for("chars")  # the row has its result's size
    assert "$ echo one-two-three · 48 chars" in tmux.pane(), tmux.pane()

    _keys(tmux, "!echo started; sleep 6171", "Enter")
    tmux.wait_for("You typed !, to run in the workspace:")
    tmux.wait_for("Run (y)")  # armed: its answers work (screens/arming.py)
    _keys(tmux, "y")
    poll_until(lambda: running("sleep 6171 "), lambda: f"the command to start:\n{tmux.pane()}")
    tmux.wait_for("running !echo started; sleep 6171…")
    _keys(tmux, "Escape")
    poll_until(lambda: not running("sleep 6171 "), lambda: f"the command to be killed:\n{tmux.pane()}")
    tmux.wait_for("$ echo started; sleep 6171 · 84 chars")
    tmux.wait_for("running !echo started", gone=True)


def test_the_path_popup_and_the_meter_then_a_path_completed_and_sent_in_one_burst(term) -> None:
    """`@` opens the path popup, and a path picked from it is priced in the meter before sending.
    Then `explain @src/pa`, Tab, `please`, Enter in one write: the Tab completes from the text typed
    just before it (not from a popup a frame behind), and the file is attached."""
    tmux, _ = term
    _keys(tmux, "@")
    tmux.wait_for("@README.md")
    assert "@src/  folder" in tmux.pane()
    _keys(tmux, "READ", "Enter")
    tmux.wait_for("tokens attached on send")
    assert "@README.md" in tmux.pane()
    _keys(tmux, "C-u")  # the prompt emptied (ctrl+u: delete to the line's start)
    tmux.wait_for("tokens attached on send", gone=True)
    tmux.wait_for("Ask anything")

    _keys(tmux, "explain @src/pa", "Tab", "please", "Enter")
    tmux.wait_for("attached src/parser.py (file)")
    tmux.wait_for("From what you attached:")
    screen = tmux.pane()
    assert "explain @src/parser.py please" in screen, screen


def test_keys_typed_after_a_bang_command_are_no_answer_to_its_dialog(term) -> None:
    """`!touch made.txt`, Enter and `and then` in one burst: the keys after Enter are the next prompt,
    read before the dialog opens; its `a` (always allow) and `n` (deny) must not answer it. They stay
    in the prompt, and the dialog waits for a key pressed while it is on screen."""
    tmux, ws = term
    _keys(tmux, "!touch made.txt", "Enter", "and then")
    tmux.wait_for("You typed !, to run in the workspace:")
    tmux.wait_for("and then")  # in the prompt, under the dialog
    assert not (ws / "made.txt").exists()
    tmux.wait_for("Run (y)")  # armed: its answers work (screens/arming.py)
    _keys(tmux, "y")
    poll_until(lambda: (ws / "made.txt").exists(), lambda: f"the command to run:\n{tmux.pane()}")
    tmux.wait_for("You typed !", gone=True)
    assert "and then" in tmux.pane()
    _keys(tmux, "C-u")  # the prompt emptied (ctrl+u: delete to the line's start)
    _keys(tmux, "!touch again.txt", "Enter")
    tmux.wait_for("You typed !, to run in the workspace:")  # asked again: nothing was always allowed
    tmux.wait_for("Run (y)")
    _keys(tmux, "n")
    tmux.wait_for("`touch again.txt` was not run: you declined it")
