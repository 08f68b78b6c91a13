"""The approval dialog in a real terminal (tmux): the real `co-tui`, a real OpenAI client talking to
the loopback server (tests/providers/loopback.py), which asks for the hostile calls of issue 33
item 2, and a real MCP server process. What matters is what the screen shows above the buttons."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pilot_helpers import Tmux, poll_until
from providers.loopback import LoopbackServer, Reply, ToolCallSpec

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"
DEMO = ROOT / "tests" / "mcp_servers" / "demo_server.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    server = LoopbackServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def terminal(tmp_path: Path, loopback: LoopbackServer) -> Iterator[tuple[Tmux, Path, Path]]:
    """(tmux, workspace, config file): co-tui is started by the test, on the loopback server."""
    ws = tmp_path / "ws"
    ws.mkdir()
    tmux = Tmux(f"approval-{tmp_path.name}")
    try:
        yield tmux, ws, tmp_path / "config.toml"
    finally:
        tmux("kill-server")


def start(tmux: Tmux, tmp_path: Path, ws: Path, config: Path, loopback: LoopbackServer) -> Path:
    return tmux.start_co_tui(
        CO_TUI,
        tmp_path,
        data=tmp_path / "data",
        config=config,
        cwd=ws,
        CO_TUI_MODEL="openai-chat:gpt-4o",
        OPENAI_BASE_URL=loopback.openai_base_url,
        OPENAI_API_KEY="sk-test",
    )


def test_a_hidden_command_and_a_6000_character_mcp_argument_show_what_runs(terminal, loopback, tmp_path) -> None:
    """Issue 33 item 2, both hostile calls in one co-tui (a start and the MCP server's are the cost):
    `touch …;` + 80 newlines + `ls -la` showed only `ls -la` above Deny/Run; a destructive MCP call
    with a 6,000-character argument showed only dots, the tool's name and the path off screen."""
    tmux, ws, config = terminal
    config.write_text(
        "allow_shell = true\n"
        f"[mcp_servers.demo]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(DEMO))}]\n"
    )
    command = "touch pwned.txt;" + "\n" * 80 + "ls -la"
    path = "." * 6000 + "/notes.txt"
    loopback.script(
        Reply("hello there"),
        Reply(tool_calls=(ToolCallSpec("run_shell", {"command": command}),)),
        Reply("all done"),
        Reply(tool_calls=(ToolCallSpec("demo_wipe", {"path": path}),)),
        Reply("all tidy"),
    )
    done = start(tmux, tmp_path, ws, config, loopback)
    tmux.wait_for("Ask anything")
    tmux.submit("hello")
    tmux.wait_for("hello there")  # the session is open: /mcp shows the server's state, live
    tmux.submit("/mcp")
    tmux.wait_for("running")  # the server is up and its tools are offered
    tmux("send-keys", "-t", "t", "Escape")
    tmux.wait_for("MCP servers", gone=True)

    tmux.submit("list the files")
    tmux.wait_for("Deny (n)")
    screen = tmux.pane()
    assert "touch pwned.txt;" in screen
    assert "79 blank lines" in screen and "ls -la" in screen
    assert "run_shell · 81 lines (79 blank) · 102 characters" in screen
    tmux("send-keys", "-t", "t", "n")
    tmux.wait_for("all done")
    assert not (ws / "pwned.txt").exists()

    tmux.submit("tidy up")
    tmux.wait_for("Deny (n)")
    screen = tmux.pane()
    assert "Call this MCP tool?" in screen
    assert "demo_wipe · 1 argument · 1 line · 6,032 characters" in screen
    assert "path: ......" in screen and "(6,010 characters)" in screen
    tmux.wait_for("more rows below")  # the box scrolls; the rest is one key away
    tmux("send-keys", "-t", "t", "End")
    tmux.wait_for("end of the call")
    assert 'tes.txt"' in tmux.pane()  # the end of the path, wrapped at "/no…"
    tmux("send-keys", "-t", "t", "n")
    tmux.wait_for("all tidy")
    tmux("send-keys", "-t", "t", "C-q")
    poll_until(done.exists, lambda: f"co-tui to exit:\n{tmux.pane()}")


def test_keys_typed_as_the_dialog_shows_go_to_the_prompt_then_file_edits_diff_allow_and_revoke(tmp_path) -> None:
    """Two things a person meets with no key (the offline model), in one co-tui:
    - A `y` typed a moment after the dialog appeared answered it: the file was written. Its
      answers arm a moment after it is shown (screens/arming.py), each key typed meanwhile starting
      that again: the burst sent as soon as the dialog shows is prompt text; once armed, n answers.
      The period is 5 s here (`CO_TUI_ARMING_S`), so a stalled host cannot let it pass before the
      burst is sent: the test waits on what the screen shows, never on a clock.
    - Issue 30 item 4 and issue 32 item 13: the diff, "allow edits", /permissions and its revoke."""
    ws = tmp_path / "ws"
    ws.mkdir()
    tmux = Tmux(f"edits-{tmp_path.name}")
    try:
        done = tmux.start_co_tui(
            CO_TUI, tmp_path, data=tmp_path / "data", config=tmp_path / "config.toml", cwd=ws, CO_TUI_ARMING_S="5"
        )
        tmux.wait_for("Ask anything")
        tmux.submit("write hello to notes.txt")
        poll_until(lambda: "Write this file?" in tmux.pane(), "the dialog", timeout=60)
        tmux("send-keys", "-t", "t", "-l", "and then y")  # one burst, as a typist who goes on typing
        tmux.wait_for("Allow edits (a)")  # armed
        assert "and then y" in tmux.pane()  # in the prompt under the dialog
        assert not (ws / "notes.txt").exists()
        tmux("send-keys", "-t", "t", "n")
        tmux.wait_for("Write this file?", gone=True)
        assert not (ws / "notes.txt").exists()
        assert "and then y" in tmux.pane()
        tmux.wait_turn_over()
        tmux("send-keys", "-t", "t", "C-u")  # the prompt emptied (ctrl+u: delete to the line's start)
        tmux.wait_for("and then y", gone=True)

        tmux.submit("write hello to notes.txt")
        tmux.wait_for("Allow edits (a)")
        screen = tmux.pane()
        assert "Write this file?" in screen and "write_file · notes.txt · a new file · +1 −0 lines" in screen
        assert "+hello" in screen and "a: allow file edits (write_file, edit_file) for this session" in screen
        tmux("send-keys", "-t", "t", "a")
        tmux.wait_for("Done: wrote notes.txt")
        assert (ws / "notes.txt").read_text() == "hello\n"
        tmux.submit("replace hello with bye in notes.txt")  # allowed: no dialog
        tmux.wait_for("Done: edited notes.txt")
        assert (ws / "notes.txt").read_text() == "bye\n"
        tmux.submit("/permissions")
        tmux.wait_for("always allowed in this session")
        assert "file edits (write_file, edit_file)" in tmux.pane()
        tmux("send-keys", "-t", "t", "d")
        tmux.wait_for("Nothing is always allowed")
        tmux("send-keys", "-t", "t", "Escape")
        tmux.wait_for("always allowed in this session", gone=True)
        tmux.submit("replace bye with hi in notes.txt")  # revoked: asked again
        tmux.wait_for("Edit this file?")
        tmux.wait_for("Deny (n)")  # the answers armed (screens/arming.py)
        tmux("send-keys", "-t", "t", "n")
        tmux.wait_for("Edit this file?", gone=True)
        assert (ws / "notes.txt").read_text() == "bye\n"
        tmux("send-keys", "-t", "t", "C-q")
        poll_until(done.exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
    finally:
        tmux("kill-server")
