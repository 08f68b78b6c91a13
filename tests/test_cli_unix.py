"""`co-tui` as a Unix tool: closed pipes, stdin, flag misuse, session ids in jsonl; the offline
model, no API key.

What concerns the process runs it as a user's shell would (`slow`: a closed pipe, `| head`, a
terminal or an open silent pipe on stdin, signals, piped stdin once); what the command makes of
its arguments and input is checked with it called in-process (`call`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import call_co_tui
from pilot_helpers import poll_until

ROOT = Path(__file__).resolve().parents[1]
CMD = [sys.executable, "-m", "co_tui"]


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


def run(
    *args: str, stdin: int | None = subprocess.DEVNULL, data: str | None = None, cwd: Path = ROOT, **extra: str
) -> subprocess.CompletedProcess[str]:
    """`co-tui ARGS` with stdin from /dev/null (or `data`), output captured."""
    return subprocess.run(
        [*CMD, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=90,
        stdin=None if data is not None else stdin,
        input=data,
        env=env(**extra),
    )


def call(*args: str, data: str = "", cwd: Path = ROOT, **extra: str) -> subprocess.CompletedProcess[str]:
    """`co-tui ARGS` called in this process, `data` on its stdin (empty: as /dev/null)."""
    return call_co_tui(*args, cwd=cwd, env=extra, stdin=data.encode())


def run_into_closed_pipe(*args: str) -> tuple[int, str]:
    """`co-tui ARGS` writing into a pipe whose reader has already gone: (exit status, stderr)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # closed before the process starts: every write to stdout fails
    try:
        proc = subprocess.run(
            [*CMD, *args],
            cwd=ROOT,
            stdout=write_end,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=90,
            env=env(),
        )
    finally:
        os.close(write_end)
    return proc.returncode, proc.stderr


def jsonl(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def exported_prompts(session_id: str) -> list[str]:
    """The user prompts saved in session `session_id`, read back through `--export --format json`."""
    proc = call("--export", session_id, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    transcript = json.loads(proc.stdout)["transcript"]
    return [
        p["content"]
        for m in transcript
        if m["kind"] == "request"
        for p in m["parts"]
        if p["part_kind"] == "user-prompt"
    ]


# --- 14. a reader that closes the pipe early --------------------------------------------------------


@pytest.mark.slow
def test_list_sessions_into_a_closed_pipe_exits_quietly() -> None:
    assert call("-p", "hello").returncode == 0
    status, stderr = run_into_closed_pipe("--list-sessions")
    assert stderr == ""
    assert status == 141  # 128 + SIGPIPE, what a shell reports for `| head`


@pytest.mark.slow
def test_print_mode_into_a_closed_pipe_exits_quietly_and_saves_the_turn() -> None:
    status, stderr = run_into_closed_pipe("-p", "tell me a long story", "--output-format", "jsonl")
    assert stderr == ""
    assert status == 141
    # The turn was interrupted, not lost: the session is there to resume.
    listing = call("--list-sessions")
    assert "tell me a long story" in listing.stdout


@pytest.mark.slow
def test_head_in_a_real_shell_pipeline_leaves_stderr_empty() -> None:
    script = '"$@" -p "tell me a long story" --output-format jsonl | head -5; echo "status=${PIPESTATUS[0]}" >&2'
    proc = subprocess.run(
        ["bash", "-c", script, "co-tui", *CMD],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=90,
        stdin=subprocess.DEVNULL,
        env=env(CO_TUI_OFFLINE_DELAY="0.01"),
    )
    assert len(proc.stdout.splitlines()) == 5
    assert proc.stderr.splitlines()[-1] in ("status=141", "status=0")
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr
    assert len(proc.stderr.splitlines()) == 1


# --- 15. stdin ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", [("-p",), ("-p", "-")])
def test_stdin_is_the_prompt_without_one(flag: tuple[str, ...]) -> None:
    proc = call(*flag, "--output-format", "jsonl", data="read pyproject.toml\n")
    assert proc.returncode == 0, proc.stderr
    calls = [e for e in jsonl(proc.stdout) if e["type"] == "tool_call"]
    assert calls and calls[0]["tool_name"] == "read_file" and "pyproject.toml" in calls[0]["args"]


def test_stdin_is_attached_before_the_prompt() -> None:
    readme = (ROOT / "README.md").read_text()
    proc = call("-p", "summarise this", "--output-format", "jsonl", data=readme)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    session_id = jsonl(proc.stdout)[-1]["session_id"]
    [prompt] = exported_prompts(session_id)
    assert prompt.startswith("<stdin>\n" + readme.splitlines()[0])
    assert prompt.endswith("</stdin>\n\nsummarise this")
    listing = call("--list-sessions")
    assert "summarise this (with stdin)" in listing.stdout


def test_huge_stdin_is_capped_and_both_user_and_model_are_told() -> None:
    from co_tui.print_input import STDIN_CAP_CHARS

    big = "0123456789\n" * 30_000  # 330,000 characters
    proc = call("-p", "how long is this?", "--output-format", "jsonl", data=big)
    assert proc.returncode == 0, proc.stderr
    [line] = proc.stderr.splitlines()
    assert "330,000" in line and f"{STDIN_CAP_CHARS:,}" in line
    [prompt] = exported_prompts(jsonl(proc.stdout)[-1]["session_id"])
    assert len(prompt) < STDIN_CAP_CHARS + 500
    assert f"the first {STDIN_CAP_CHARS:,} of 330,000 characters are shown" in prompt


@pytest.mark.slow
def test_a_terminal_on_stdin_with_no_prompt_is_a_usage_error() -> None:
    controller, terminal = os.openpty()
    try:
        proc = subprocess.run(
            [*CMD, "-p"], cwd=ROOT, stdin=terminal, capture_output=True, text=True, timeout=90, env=env()
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert proc.returncode == 2
    [line] = proc.stderr.splitlines()
    assert "-p needs a prompt" in line
    assert proc.stdout == ""


@pytest.mark.slow
def test_an_open_silent_stdin_is_not_waited_for_forever() -> None:
    """A harness that leaves stdin open and never writes: the prompt runs after a short wait, and
    a line says stdin was skipped."""
    proc = subprocess.Popen(
        [*CMD, "-p", "hello"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        out = proc.stdout.read()  # to the end: the process exits with stdin still open
        err = proc.stderr.read()
        proc.wait(timeout=60)
    finally:
        proc.stdin.close()
    assert proc.returncode == 0, err
    assert "offline" in out.lower()
    [line] = err.splitlines()
    assert "no input on stdin" in line


# --- 16. flag misuse: one line, exit 2, before anything is drawn or run --------------------------------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--format", "json"), "--format"),
        (("--output-format", "jsonl"), "--output-format"),
        (("--output-format", "text"), "--output-format"),
        (("-p", "hi", "--export", "abcd"), "not allowed"),
        (("--list-sessions", "--export", "abcd"), "not allowed"),
        (("--yes",), "--yes"),
        (("--list-sessions", "--model", "openai:gpt-5"), "--model applies to a chat"),
        (("--export", "abcd", "--allow-shell"), "--allow-shell applies to a chat"),
        (("--resume", "abcd", "--continue"), "not allowed"),
        (("--export", "abcd", "--resume", "abcd"), "--resume"),
        (("--resume", "nope"), "not a session id"),
        (("--resume", "ffffffff"), "no session matches"),
        (("--continue",), "no saved session"),
    ],
)
def test_flag_misuse_is_one_line_exit_2_before_any_screen(args: tuple[str, ...], says: str, tmp_path: Path) -> None:
    proc = call(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout[-300:]
    [line] = proc.stderr.splitlines()
    assert line.startswith("co-tui: ") and says in line
    assert proc.stdout == ""  # no screen was drawn


# --- 17. the session id in the jsonl stream ------------------------------------------------------------


def test_jsonl_names_the_session_first_and_in_done() -> None:
    first = call("-p", "hello", "--output-format", "jsonl")
    assert first.returncode == 0, first.stderr
    events = jsonl(first.stdout)
    session_id = events[0]["session_id"]
    assert len(session_id) == 32 and events[-1] == {**events[-1], "type": "done", "session_id": session_id}
    assert list(events[0])[:2] == ["type", "session_id"]
    # It is the id to resume with: a second turn continues the same session.
    again = call("--resume", session_id, "-p", "hello again", "--output-format", "jsonl")
    assert again.returncode == 0, again.stderr
    later = jsonl(again.stdout)
    assert later[0]["session_id"] == later[-1]["session_id"] == session_id
    assert exported_prompts(session_id) == ["hello", "hello again"]


@pytest.mark.slow
def test_an_interrupt_line_starts_on_its_own_line_after_a_partial_answer() -> None:
    """Ctrl+C mid-answer on a terminal (stdout and stderr on one screen) showed
    `You co-tui: interrupted: the partial answer is kept`: the partial answer's line is ended first."""
    proc = subprocess.Popen(
        [*CMD, "-p", "tell me a story"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one screen, as on a terminal
        env=env(CO_TUI_OFFLINE_DELAY="0.3"),
    )
    assert proc.stdout is not None
    shown = os.read(proc.stdout.fileno(), 4096)  # the first words of the answer, streamed
    proc.send_signal(signal.SIGINT)
    shown += proc.stdout.read()
    assert proc.wait(timeout=60) == 130
    text = shown.decode()
    answer, line, end = text.partition("co-tui: interrupted: the partial answer is kept")
    assert line, text
    assert answer and answer.endswith("\n") and not answer.endswith("\n\n"), text  # one newline, before it
    assert end == "\n", text


@pytest.mark.slow
def test_ctrl_c_while_waiting_for_stdin_is_one_line_not_a_traceback() -> None:
    """`sleep 10 | co-tui -p hi`, Ctrl+C during the wait for stdin, printed a KeyboardInterrupt traceback."""
    proc = subprocess.Popen(
        [*CMD, "-p", "hi"],
        cwd=ROOT,
        stdin=subprocess.PIPE,  # open and silent: co-tui waits on it (select) before the turn
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        # A shell without job control starts background commands with SIGINT ignored, and Python
        # then keeps it ignored: the test would pass or fail by how pytest itself was started.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    wchan = Path(f"/proc/{proc.pid}/wchan")  # where the process sleeps (Linux)
    try:
        poll_until(lambda: wchan.read_text().startswith(("poll_schedule_timeout", "do_select")), "the wait on stdin")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)  # closes stdin
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err == "co-tui: interrupted\n"
    assert out == ""


@pytest.mark.slow
def test_the_readmes_summarise_stdin_example_summarises_stdin() -> None:
    """README's `cat notes.txt | co-tui -p "summarise this"` answered with the offline model's
    conversation recap (`Nothing yet…`), not a summary of what was piped in (issue 32, item 8).
    A real process with a real pipe on stdin (the other stdin cases call co-tui in-process)."""
    notes = (
        "The migration to FTS5 failed on Tuesday because the schema version was wrong.\n"
        "We decided to key migrations on PRAGMA user_version.\n"
        "The fix is in session/migrations.py and must ship before Friday.\n"
    )
    proc = run("-p", "summarise this", data=notes)
    assert proc.returncode == 0, proc.stderr
    assert "Nothing yet" not in proc.stdout
    assert "The text you attached (3 lines" in proc.stdout
    assert "session/migrations.py" in proc.stdout and "FTS5" in proc.stdout
