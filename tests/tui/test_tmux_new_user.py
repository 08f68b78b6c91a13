"""What a new user coming from Claude Code or Codex tripped over (issue 32), in a real terminal
(tmux): the real `co-tui`, a real SQLite file, keys sent in one burst as a fast typist or a paste
sends them."""

from __future__ import annotations

import re
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
def term(tmp_path: Path):
    """(tmux, ws, done): co-tui running in a 100×30 pane in workspace `ws` (a README.md in it);
    `done` is the file its exit status lands in."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "README.md").write_text("# Demo\n\nA small workspace for the walk.\n")
    tmux = Tmux(f"newuser-{tmp_path.name}")
    done = tmux.start_co_tui(CO_TUI, tmp_path, data=tmp_path / "data", config=tmp_path / "config.toml", cwd=ws)
    try:
        # Typed before the screen is drawn, the terminal (still in line mode) echoes the text and
        # turns the Enter that follows into a line break: start on the drawn prompt.
        tmux.wait_for("Ask anything")
        yield tmux, ws, done
    finally:
        tmux("kill-server")


def _keys(tmux: Tmux, *keys: str) -> None:
    """Send `keys` in one tmux command: one write to the terminal, read by co-tui as one burst
    (a string that names no key is sent as its characters)."""
    tmux("send-keys", "-t", "t", *keys)


def _prompt_line(tmux: Tmux) -> str:
    """The text in the prompt box (its first line)."""
    lines = tmux.pane().splitlines()
    top = max(i for i, line in enumerate(lines) if line.lstrip().startswith("╭"))
    return lines[top + 1].strip().strip("│").strip()


def _summary_banner_focused(tmux: Tmux) -> None:
    """Two turns, /compact (the offline summary loses items: `r` recovers), then shift+tab onto its banner."""
    tmux.submit("please look at notes_v7.md")
    tmux.wait_for("Type help to see")
    tmux.submit("hello there")
    tmux.wait_for("Hello! I am")
    tmux.wait_turn_over()  # /compact is refused while a turn runs
    tmux.submit("/compact")
    tmux.wait_for("Compact the conversation?")
    _keys(tmux, "Enter")
    tmux.wait_for("Conversation compacted")
    tmux.wait_turn_over()
    _focus_banner(tmux)


def _focus_banner(tmux: Tmux) -> None:
    """Shift+tab back from the prompt, a row at a time (each move waited for: a loaded host may draw
    it late), until the summary banner has focus; then wait for its key in the footer."""
    for _ in range(4):
        before = tmux.focused_row()
        _keys(tmux, "BTab")
        poll_until(lambda b=before: tmux.focused_row() != b, lambda: f"the focus to move up a row:\n{tmux.pane()}")
        if "Conversation compacted" in (tmux.focused_row() or ""):
            tmux.wait_for("r Recover lost item")
            return
    raise AssertionError(f"the banner never got focus:\n{tmux.pane()}")


def test_a_burst_typed_on_a_summary_banner_reaches_the_prompt_whole_and_r_alone_recovers(term) -> None:
    """`read README.md` typed on a focused summary banner reached the chat as `ead EADME.md` and
    ran a recovery nobody chose; `z`, Backspace, `abc` gave `zab`. The banner's own key still acts
    when it is pressed on its own. (One co-tui for both: the banner costs two turns and a /compact.)"""
    tmux, _ws, _done = term
    _summary_banner_focused(tmux)
    _keys(tmux, "read README.md", "Enter")
    tmux.wait_for("▌ read README.md")  # sent whole, as typed
    tmux.wait_for('read_file(path="README.md")')  # the offline model read the file
    tmux.wait_for("Headings (1)")
    tmux.wait_turn_over()
    assert "Bring a lost item back?" not in tmux.pane()
    _focus_banner(tmux)
    _keys(tmux, "z", "BSpace", "abc")
    poll_until(lambda: _prompt_line(tmux) == "abc", lambda: f"the prompt to read 'abc':\n{tmux.pane()}")
    assert "Bring a lost item back?" not in tmux.pane()

    # `r` pressed alone on the banner, the prompt emptied first (so an `r` typed into it would show).
    _keys(tmux, "C-u")
    poll_until(lambda: "Ask anything" in _prompt_line(tmux), lambda: f"the prompt emptied:\n{tmux.pane()}")
    _focus_banner(tmux)
    _keys(tmux, "r")
    tmux.wait_for("Bring a lost item back?")
    assert _prompt_line(tmux) != "r"


def test_editing_keys_typed_fast_act_in_order_and_ctrl_c_clears_the_prompt_then_quits(term) -> None:
    """Textual ran Backspace and the arrows once they had bubbled up to the app, behind the letters
    already queued: `xyz`, Backspace ×2, `abc` gave `xyza`; `ab`, Left, `c` gave `abc`.
    In a real terminal, ctrl+c said `press ctrl+q`; now it clears typed text, says a second press
    quits, and the second press quits (with the exit status of a normal quit)."""
    tmux, _ws, done = term
    _keys(tmux, "xyz", "BSpace", "BSpace", "abc")
    poll_until(lambda: _prompt_line(tmux) == "xabc", lambda: f"the prompt to read 'xabc':\n{tmux.pane()}")
    _keys(tmux, "BSpace", "BSpace", "BSpace", "BSpace", "ab", "Left", "c")
    poll_until(lambda: _prompt_line(tmux) == "acb", lambda: f"the prompt to read 'acb':\n{tmux.pane()}")

    _keys(tmux, " a half-typed thought", "C-c")
    tmux.wait_for("ctrl+c again quits")
    assert "a half-typed thought" not in tmux.pane() and "acb" not in _prompt_line(tmux)
    # The second press quits within the window (2 s). On a loaded host the key can reach co-tui
    # after the window closed, and then it is a first press again: press again, a few times at most.
    for _ in range(3):
        _keys(tmux, "C-c")
        poll_until(lambda: done.exists() or "ctrl+c again quits" in tmux.pane(), lambda: tmux.pane())
        if done.exists():
            break
    poll_until(done.exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
    assert done.read_text().strip() == "0"


def test_after_a_tool_row_is_opened_the_next_answer_is_followed(term) -> None:
    """A tool row opened with Enter stopped the chat following: the next answer streamed
    off-screen with no hint. Now the row shows with `more below`, and the next answer is followed."""
    tmux, ws, _done = term
    (ws / "README.md").write_text("".join(f"line {n} of a long README\n" for n in range(200)))
    tmux.submit("read README.md")
    tmux.wait_for("read_file(path=")
    tmux.wait_for("I read lines")
    tmux.wait_turn_over()  # the turn's end must not take the focus back from the row
    _keys(tmux, "BTab")
    poll_until(
        lambda: tmux.row_focused("read_file"),
        lambda: f"the tool row to take focus:\n{tmux('capture-pane', '-e', '-p', '-t', 't')!r}",
    )
    _keys(tmux, "Enter")
    tmux.wait_for("line 5 of a long README")  # the row is open and in view
    tmux.wait_for("↓ more below")
    _keys(tmux, "help", "Enter")
    tmux.wait_for("CO_TUI_MODEL).")  # the end of the answer is on the screen
    assert "↓" not in tmux.pane()
