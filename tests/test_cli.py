"""The `co-tui` command as a user runs it: the offline model, no API key. What it prints, exits with and
saves is checked with the command called in-process (`call_co_tui`); a real process answers in
`test_print_hello_offline` and on a terminal (the closed pipe and signals: test_cli_unix.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_process import ROOT, run_co_tui
from cli_process import call_co_tui as co_tui


def test_version() -> None:
    proc = co_tui("--version")
    assert proc.returncode == 0
    from co_tui import __version__

    assert proc.stdout.strip() == f"co-tui {__version__}"


def test_help_shows_print_mode_and_flags() -> None:
    proc = co_tui("--help")
    assert proc.returncode == 0
    for flag in ("-p", "--output-format", "--model", "--resume", "--continue", "--list-sessions", "--export"):
        assert flag in proc.stdout
    # --yes approves MCP calls that ask first too (README, "Bring your tools"), not only run_shell
    assert "MCP tools" in " ".join(proc.stdout.split())
    assert "without ID, pick one (in the TUI)" in " ".join(proc.stdout.split())  # -p needs an id


def test_bad_flag_is_one_line_exit_2() -> None:
    proc = co_tui("--output-format", "xml", "-p", "hi")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_print_hello_offline() -> None:
    """The real command, as a process: `python -m co_tui` answers and exits 0."""
    proc = run_co_tui("-p", "hello", "--model", "offline")
    assert proc.returncode == 0, proc.stderr
    assert "offline" in proc.stdout.lower()
    assert proc.stdout.strip()


def test_jsonl_read_readme_has_tool_call_and_done() -> None:
    proc = co_tui("-p", "read README.md", "--output-format", "jsonl")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[-1] == "done"
    calls = [e for e in events if e["type"] == "tool_call"]
    assert calls and calls[0]["tool_name"] == "read_file" and "README.md" in calls[0]["args"]
    results = [e for e in events if e["type"] == "tool_result"]
    assert results and "co-tui" in results[0]["content"]
    assert "usage" in types
    assert all(set(e) >= {"type"} for e in events)


def test_reading_outside_workspace_is_refused() -> None:
    proc = co_tui("-p", "read ../../../../etc/passwd", "--output-format", "jsonl")
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines() if '"tool_result"' in line]
    assert results, proc.stdout
    assert "root:" not in proc.stdout
    assert "outside" in results[0]["content"].lower()


def test_missing_api_key_is_one_line_exit_1() -> None:
    proc = co_tui("-p", "hi", "--model", "openai:gpt-4o")
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "OPENAI_API_KEY" in lines[0]
    assert "Traceback" not in proc.stderr


def test_empty_prompt_is_usage_error() -> None:
    proc = co_tui("-p", "   ")
    assert proc.returncode == 2


@pytest.mark.parametrize("fmt", ["text", "jsonl"])
def test_print_mode_saves_a_session_that_lists(fmt: str) -> None:
    proc = co_tui("-p", "hello there", "--output-format", fmt)
    assert proc.returncode == 0, proc.stderr
    listing = co_tui("--list-sessions")
    assert listing.returncode == 0, listing.stderr
    assert "hello there" in listing.stdout


@pytest.mark.slow
def test_print_mode_on_a_terminal_has_no_pydantic_ai_banner() -> None:
    """pydantic-ai greets first runs on a TTY; print mode's output must be the answer alone."""
    import pty

    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_VERSION", "CI", "PYDANTIC_AI_NO_BANNER")}
    pid, fd = pty.fork()
    if pid == 0:  # child: stdout is the pty
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, "-m", "co_tui", "-p", "hello"], env)
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    out = b"".join(chunks).decode(errors="replace")
    assert "offline" in out.lower()
    assert "pydantic-ai v" not in out and "observability" not in out


def test_print_mode_with_a_bad_instructions_file_says_so_and_answers(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"\xff\xfe not text\n")
    proc = co_tui("-p", "hello", "--output-format", "jsonl", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("\n") == 1 and "instructions skipped" in proc.stderr and "not UTF-8" in proc.stderr
    assert [json.loads(line)["type"] for line in proc.stdout.splitlines()][-1] == "done"


def test_the_tui_without_a_terminal_is_one_line_exit_2(tmp_path: Path) -> None:
    """`co-tui < /dev/null` (stdout a pipe) drew the screen into the pipe and spun a core on stdin's
    end of file until killed: it is a usage error, pointing at print mode."""
    env = {"CO_TUI_DATA_DIR": str(tmp_path / "data")}
    proc = co_tui(cwd=tmp_path, env=env)
    assert proc.returncode == 2
    assert (
        proc.stderr
        == "co-tui: the full-screen chat needs a terminal and stdin is not one: for one turn without it, use -p\n"
    )
    assert proc.stdout == "" and not (tmp_path / "data").exists()  # nothing drawn, nothing created


def test_print_mode_without_yes_tells_the_model_it_could_not_ask(tmp_path: Path) -> None:
    """Without --yes the model read `The user declined…` though nobody was asked; and the jsonl
    stream repeated its last `usage` line (issue 32, item 8)."""
    proc = co_tui("-p", "run ls", "--output-format", "jsonl", cwd=tmp_path, env={"CO_TUI_ALLOW_SHELL": "1"})
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert "print mode cannot ask for approval" in result["content"] and "declined" not in result["content"]
    assert "pass --yes" in proc.stderr
    usage = [json.dumps(e, sort_keys=True) for e in events if e["type"] == "usage"]
    assert usage and all(a != b for a, b in zip(usage, usage[1:], strict=False)), "no line twice in a row"
    assert not events[-1]["output"].startswith("Not run: Not run")


def test_print_mode_refuses_file_edits_unless_yes(tmp_path: Path) -> None:
    """Issue 30 item 4: nobody can look at a diff in print mode, so an edit needs --yes."""
    refused = co_tui("-p", "write hello to notes.txt", "--output-format", "jsonl", cwd=tmp_path)
    assert refused.returncode == 0, refused.stderr
    assert refused.stderr == (
        "co-tui: write_file refused (notes.txt): pass --yes to approve file edits in print mode\n"
    )
    assert not (tmp_path / "notes.txt").exists()
    [result] = [json.loads(line) for line in refused.stdout.splitlines() if '"tool_result"' in line]
    # Nobody was asked: the model reads that print mode could not ask (issue 32, item 8).
    assert (
        "print mode cannot ask for approval" in result["content"] and "notes.txt was not changed" in result["content"]
    )

    written = co_tui("-p", "write hello to notes.txt", "--yes", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "notes.txt").read_text() == "hello\n"
    assert "Done: wrote notes.txt: a new file, 1 line, 6 bytes." in written.stdout


def test_print_mode_attaches_a_mentioned_file_and_sends_bang_as_a_prompt(tmp_path: Path) -> None:
    """Issue 32 items 11 and 12 in print mode: `@path` attaches the file (said on stderr, as every
    notice); `!command` is an ordinary prompt (print mode runs no command the model did not ask for)."""
    (tmp_path / "notes.md").write_text("The parser is fast.\n")
    proc = co_tui("-p", "explain @notes.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("From what you attached:\n- notes.md: lines 1-1 of 1")
    assert proc.stderr.startswith("co-tui: attached notes.md (file) · ~")
    bang = co_tui("-p", "!touch made.txt", cwd=tmp_path)
    assert bang.returncode == 0, bang.stderr
    assert not (tmp_path / "made.txt").exists() and '"!touch made.txt"' in bang.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("-p", "hello"),
        ("-p", "hello", "--resume", "no-such-session"),
        ("-p", "hello", "--mcp"),
        ("--list-sessions",),
        ("--list-sessions", "--search", "hello"),
        ("--export", "no-such-session"),
    ],
    ids=["a turn", "an unknown session", "a malformed .mcp.json", "list", "search", "export"],
)
def test_commands_close_every_store_they_open(
    args: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Print mode and the session commands close the session store they opened, whether the command
    ran or was refused: a caller that embeds them (ACP, a test) outlives the run, and must not be
    left an open SQLite file."""
    from co_tui.store.session_store import SessionStore

    assert co_tui("-p", "hello").returncode == 0  # a saved session to list, search and export
    opened: list[SessionStore] = []
    closed: list[SessionStore] = []
    real_close = SessionStore.close

    def recording(real_open: Any) -> classmethod[SessionStore, ..., SessionStore]:
        def opening(cls: type[SessionStore], *a: object, **k: object) -> SessionStore:
            store = real_open(cls, *a, **k)
            opened.append(store)
            return store

        return classmethod(opening)

    def recording_close(self: SessionStore) -> None:
        closed.append(self)
        real_close(self)

    for name in ("open", "open_read_only"):
        monkeypatch.setattr(SessionStore, name, recording(getattr(SessionStore, name).__func__))
    monkeypatch.setattr(SessionStore, "close", recording_close)
    (tmp_path / ".mcp.json").write_text("{not json")
    mcp = "--mcp" in args  # the project file is read only when the settings allow it
    env = {"CO_TUI_MCP_PROJECT_CONFIG": "true"} if mcp else None
    proc = co_tui(*[a for a in args if a != "--mcp"], cwd=tmp_path if mcp else ROOT, env=env)
    assert opened, proc.stderr
    assert proc.returncode == (2 if "no-such-session" in args or "--mcp" in args else 0), proc.stderr
    # (open_read_only opens through open: one store, recorded twice)
    assert {id(s) for s in closed} == {id(s) for s in opened}, (args, proc.returncode, proc.stderr)
