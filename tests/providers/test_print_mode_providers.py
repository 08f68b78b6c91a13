"""`co-tui -p … --model openai-chat:NAME` with `OPENAI_BASE_URL` at the loopback server: the real
command as a user runs it against a local OpenAI-compatible server: called in-process (`co_tui`),
and as a real process where a signal is the point.

Exit status 0 on success, 1 with exactly one line on stderr on provider errors, 130 on Ctrl+C;
`history_trimmed` shows up as a jsonl line when an overflow is recovered.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .harness import co_tui, provider_env
from .loopback import LoopbackServer, Reply, anthropic_error, openai_error, windowed

FAST = {"retry-after-ms": "1"}


def jsonl(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def stderr_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.strip()]


def test_openai_compatible_server_jsonl(loopback: LoopbackServer, tmp_path: Path) -> None:
    loopback.script(Reply("Local model says hi", input_tokens=42, output_tokens=5))
    proc = co_tui(
        "-p",
        "hello there",
        "--model",
        "openai-chat:qwen-local",
        "--output-format",
        "jsonl",
        cwd=tmp_path,
        env=provider_env(loopback),
    )
    assert proc.returncode == 0, proc.stderr
    events = jsonl(proc.stdout)
    assert "".join(e["text"] for e in events if e["type"] == "text_delta") == "Local model says hi"
    assert events[-1]["type"] == "done" and events[-1]["output"] == "Local model says hi"
    usage = [e for e in events if e["type"] == "usage"]
    assert usage and usage[-1]["window_is_guess"] is True, "an unknown local model's window is a guess"
    [request] = loopback.requests
    assert request.path == "/v1/chat/completions" and request.body["model"] == "qwen-local"
    assert "hello there" in request.text()


def test_anthropic_via_base_url_text(loopback: LoopbackServer, tmp_path: Path) -> None:
    loopback.script(Reply("Claude over loopback"))
    proc = co_tui("-p", "hi", "--model", "anthropic:claude-sonnet-4-6", cwd=tmp_path, env=provider_env(loopback))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Claude over loopback"
    assert loopback.requests[0].path == "/v1/messages"


def test_server_errors_exit_1_with_one_line(loopback: LoopbackServer, tmp_path: Path) -> None:
    err = openai_error(503, "unavailable", type="server_error", headers=FAST)
    loopback.script(err, err, err, err)
    proc = co_tui(
        "-p",
        "hello",
        "--model",
        "openai-chat:gpt-4o",
        cwd=tmp_path,
        env={**provider_env(loopback), "CO_TUI_MAX_RETRIES": "2"},
    )
    assert proc.returncode == 1
    assert stderr_lines(proc) == [f"co-tui: the server at 127.0.0.1:{loopback.port} server error 503 after 2 retries"]
    assert "Traceback" not in proc.stderr
    assert loopback.count() == 3


def test_401_exit_1_names_key(loopback: LoopbackServer, tmp_path: Path) -> None:
    loopback.script(anthropic_error(401, "authentication_error", "invalid x-api-key"))
    proc = co_tui("-p", "hello", "--model", "anthropic:claude-sonnet-4-6", cwd=tmp_path, env=provider_env(loopback))
    assert proc.returncode == 1
    [line] = stderr_lines(proc)
    assert line.startswith("co-tui: ") and "ANTHROPIC_API_KEY" in line and "401" in line


def test_overflow_recovery_is_a_jsonl_event(loopback: LoopbackServer, tmp_path: Path) -> None:
    env = {**provider_env(loopback), "CO_TUI_CONTEXT_BUDGET_TOKENS": "100000", "CO_TUI_CONTEXT_STRATEGY": "trim"}
    long_answer = "lorem " * 700  # ~1000 server tokens
    loopback.responder = windowed(1500, lambda req: Reply(long_answer))
    first = co_tui("-p", "first question", "--model", "openai-chat:gpt-4o", cwd=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    loopback.responder = windowed(1500, lambda req: Reply("recovered answer"))
    before = loopback.count()
    proc = co_tui(
        "-p",
        "second question " + "detail " * 400,
        "--continue",
        "--model",
        "openai-chat:gpt-4o",
        "--output-format",
        "jsonl",
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    events = jsonl(proc.stdout)
    trims = [e for e in events if e["type"] == "history_trimmed"]
    assert trims and trims[0]["reason"] == "context_overflow" and trims[0]["strategy"] == "turn_trim"
    assert trims[0]["dropped_turns"] == 1
    types = [e["type"] for e in events]
    assert types.index("history_trimmed") < types.index("text_delta") and types[-1] == "done"
    assert events[-1]["output"] == "recovered answer"
    retried = loopback.requests[before:]
    assert len(retried) == 2
    assert "first question" in retried[0].text()
    # Dropped but for the breadcrumb's line naming the turn (and its recall).
    assert retried[1].text().count("first question") == 1 and '- turn 1: "first question"' in retried[1].text()
    assert "[Earlier conversation trimmed" in retried[1].text()


def test_overflow_unrecoverable_exit_1_no_loop(loopback: LoopbackServer, tmp_path: Path) -> None:
    loopback.responder = windowed(500, lambda req: Reply("never"))
    proc = co_tui(
        "-p",
        "x " * 5000,
        "--model",
        "openai-chat:gpt-4o",
        cwd=tmp_path,
        env={**provider_env(loopback), "CO_TUI_CONTEXT_BUDGET_TOKENS": "100000"},
    )
    assert proc.returncode == 1
    assert stderr_lines(proc) == [
        "co-tui: the conversation is too long for gpt-4o's context window even after trimming"
    ]
    assert loopback.count() <= 2, "one try, at most one in-turn shrink, then the error"


@pytest.mark.slow
def test_ctrl_c_mid_stream_exit_130_and_session_saved(loopback: LoopbackServer, tmp_path: Path) -> None:
    # The scenario: a stream still running when Ctrl+C comes (sent once its first delta is read).
    loopback.script(Reply("tick " * 60, chunk_delay=0.1, chunks=60))
    proc = subprocess.Popen(
        [sys.executable, "-m", "co_tui", "-p", "count", "--model", "openai-chat:gpt-4o", "--output-format", "jsonl"],
        cwd=tmp_path,
        env={**os.environ, **provider_env(loopback)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the first text_delta: the stream is flowing
        assert json.loads(first)["type"] == "text_delta"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert [line for line in err.splitlines() if line.strip()] == ["co-tui: interrupted: the partial answer is kept"]
    done = jsonl(first + out)[-1]
    assert done["type"] == "done" and done["interrupted"] is True
    assert 0 < len(done["output"]) < len("tick " * 60)
    # The partial answer is in the saved session; the next turn continues from it.
    loopback.script(Reply("continuing"))
    again = co_tui(
        "-p", "go on", "--continue", "--model", "openai-chat:gpt-4o", cwd=tmp_path, env=provider_env(loopback)
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "continuing"
    assert "tick" in loopback.requests[-1].text()
