"""Searching the sessions picker (issue 32 item 14) in a real terminal (tmux): the real `co-tui` over a
real SQLite file, `/` and the words typed in one burst as a fast typist sends them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pilot_helpers import Tmux, poll_until
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from co_tui.store.session_store import SessionStore

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]


def _save(store: SessionStore, ws: Path, title: str, prompt: str, answer: str) -> None:
    sid = store.create_session(model="offline", workspace=ws, title=title)
    turn = [ModelRequest(parts=[UserPromptPart(prompt)]), ModelResponse(parts=[TextPart(answer)])]
    store.save_turn(sid, new_transcript=turn, context=turn, new_events=[])


def test_slash_and_words_in_one_burst_filter_the_picker(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    with SessionStore.open(tmp_path / "data") as store:
        _save(store, ws, "Plan the trip", "where should we go?", "Zanzibar has the warmest water in May.")
        _save(store, ws, "Fix the build", "why does CI fail?", "The lockfile is stale.")
    tmux = Tmux(f"search-{tmp_path.name}")
    tmux.start_co_tui(CO_TUI, tmp_path, data=tmp_path / "data", config=tmp_path / "config.toml", cwd=ws)
    try:
        tmux.wait_for("Ask anything")
        tmux.submit("hello there")  # answered: the session is ready (before, /sessions waits for it)
        tmux.wait_for("Hello! I am")
        tmux.wait_turn_over()  # /sessions is refused while a turn runs
        tmux.submit("/sessions")
        tmux.wait_for("Fix the build")
        tmux("send-keys", "-t", "t", "/zanz")  # one write: the field takes every character, `/` included
        tmux.wait_for("1 session matches")
        # One whole frame: on a loaded host a capture can land while the next frame is half written.
        want = ("1 session matches", "Plan the trip", "Zanzibar has the warmest water", "zanz")
        seen: list[str] = []

        def whole() -> bool:
            seen[:] = [tmux.pane()]
            return all(text in seen[0] for text in want)

        poll_until(whole, lambda: f"the filtered picker:\n{seen[0] if seen else ''}")
        screen = seen[0]
        assert "Plan the trip" in screen and "Fix the build" not in screen
        assert "Zanzibar has the warmest water" in screen  # the words around the hit, under the title
        assert "zanz" in screen and "/zanz" not in screen  # `/` opened the field; the rest is the query
        tmux("send-keys", "-t", "t", "Escape")  # clears the search: both sessions again
        tmux.wait_for("Fix the build")
        tmux("send-keys", "-t", "t", "Escape")
        tmux.wait_for("Sessions in", gone=True)
        tmux.wait_for("Ask anything")
    finally:
        tmux("kill-server")
