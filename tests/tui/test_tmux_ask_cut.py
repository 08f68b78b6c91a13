"""`compact_mode = "ask"` in a real terminal (tmux): the real `co-tui` on the offline model, the
dialog's keys sent in one burst as a fast typist sends them. Esc puts the prompt back in the input
with nothing sent; the focus field and Enter compact with that focus, then the prompt goes out."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
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
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    terminal = Tmux(f"ask-{tmp_path.name}")
    try:
        yield terminal
    finally:
        terminal("kill-server")


def test_ask_dialog_keys_in_one_burst_and_a_burst_typed_on_it_goes_to_the_prompt(tmux: Tmux, tmp_path: Path) -> None:
    """The ask dialog in a real terminal, on one session filled to its message limit:
    - its figures, and Esc puts the prompt back with nothing sent;
    - issue 43 item 9: `hello` typed on while the question shows goes to the prompt (its `o` is no
      answer) and the dialog arms again; `o` pressed on its own sends over the budget, and a line in
      the chat says so;
    - the next send is asked again: Tab, the focus and Enter in one burst compact with that focus,
      then the prompt goes out."""
    ws = tmp_path / "ws"
    ws.mkdir()
    config = tmp_path / "config.toml"
    config.write_text('compact_mode = "ask"\nmax_history_messages = 8\n')
    done = tmux.start_co_tui(CO_TUI, tmp_path, data=tmp_path / "data", config=config, cwd=ws)
    tmux.wait_for("Ask anything")
    for i in range(4):
        tmux.submit(f"note {i}")
        tmux.wait_for(f"{2 * (i + 1)}/8 msgs")
    tmux.submit("and now?")
    tmux.wait_for("This send would summarise the context first (past its message limit)")
    screen = tmux.pane()
    assert "Your prompt, not sent yet: “and now?”" in screen
    assert "summarised into one recap: “note 1” · “note 2”" in screen
    assert "Stays    1 turn and your prompt: “note 0”" in screen and "still cached" in screen
    assert "8/8 msgs" in screen and "asks before next send" in screen, "nothing was sent"

    tmux("send-keys", "-t", "t", "Escape")  # cancel: the prompt comes back
    tmux.wait_for("send cancelled: nothing was cut or sent")
    assert "and now?" in tmux.pane().split("send cancelled")[1], "the prompt is back in the input"
    assert "8/8 msgs" in tmux.pane()

    tmux("send-keys", "-t", "t", "Enter")  # the same prompt again: asked again
    tmux.wait_for("This send would summarise")
    tmux.wait_for("enter chooses · tab: the focus field")  # armed
    tmux("send-keys", "-t", "t", "-l", "hello")
    tmux.wait_for("the answers arm in a moment")
    tmux.wait_for("enter chooses · tab: the focus field")  # armed again, nothing answered
    assert "sent over the budget" not in tmux.pane() and "8/8 msgs" in tmux.pane()
    tmux("send-keys", "-t", "t", "o")
    tmux.wait_for("sent over the budget once, as you chose")
    poll_until(lambda: "10/8 msgs" in tmux.pane(), lambda: tmux.pane())
    poll_until(lambda: "hello" in tmux.pane().split("sent over the budget")[-1], lambda: tmux.pane())

    tmux.wait_turn_over()
    tmux("send-keys", "-t", "t", "Enter")  # `hello`, over the limit: asked
    tmux.wait_for("This send would summarise")
    # One burst: to the focus field, the focus, Enter compacts with it, then the prompt goes out.
    tmux("send-keys", "-t", "t", "Tab", "note", "Space", "2", "Enter")
    tmux.wait_for("Conversation compacted")
    poll_until(lambda: "▌ hello" in tmux.pane() and "This send would" not in tmux.pane(), "the prompt sent")
    tmux("send-keys", "-t", "t", "C-q")
    poll_until(done.exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
