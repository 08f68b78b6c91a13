"""Quitting mid-turn keeps the turn: Ctrl+Q, SIGTERM and SIGHUP (a closed terminal)
interrupt the running turn and save it, as Esc does, before co-tui exits. The real `co-tui` in a
real terminal (tmux), the real SQLite file afterwards."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from pilot_helpers import Tmux, poll_until
from support.processes import children

from co_tui.store.session_store import SessionStore

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]

PROMPT = "tell me a long story"


@pytest.fixture
def tui(tmp_path: Path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    tmux = Tmux(f"quit-{tmp_path.name}")
    done = tmux.start_co_tui(
        CO_TUI, tmp_path, data=data, config=tmp_path / "config.toml", cwd=ws, CO_TUI_OFFLINE_DELAY="0.3"
    )
    try:
        tmux.wait_for("Ask anything")
        yield tmux, data, done
    finally:
        tmux("kill-server")


def _co_tui_pid(tmux: Tmux) -> int:
    shell = int(tmux("display", "-p", "-t", "t", "#{pane_pid}").strip())
    started = children(shell)
    return started[0] if started else shell


@pytest.mark.parametrize("how", ["ctrl+q", "sigterm", "sighup"])
def test_quitting_mid_turn_keeps_the_prompt_and_the_partial_answer(tui, how: str) -> None:
    tmux, data, done = tui
    tmux.submit(PROMPT)
    tmux.wait_for("offline stand-in")  # the answer is streaming, 0.3 s a chunk
    if how == "ctrl+q":
        tmux("send-keys", "-t", "t", "C-q")
    else:
        os.kill(_co_tui_pid(tmux), signal.SIGTERM if how == "sigterm" else signal.SIGHUP)
    poll_until(done.exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
    with SessionStore.open(data) as store:
        [meta] = store.list_sessions()
        loaded = store.load(meta.id)
    parts = [(p.part_kind, getattr(p, "content", "")) for m in loaded.transcript for p in m.parts]
    assert ("user-prompt", PROMPT) in parts
    answer = "".join(str(c) for kind, c in parts if kind == "text")
    assert "offline stand-in" in answer and "OLLAMA_BASE_URL" not in answer  # partial, as streamed so far
    assert loaded.context[-1].kind == "response"  # the model will see its partial answer next time
