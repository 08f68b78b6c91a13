"""Print mode never lets the model, a tool or the server drive the terminal: the command (called
in-process; on a real terminal, a process), the real OpenAI client, the loopback server playing a
hostile model (issue 33).

Before, a tool name the model chose went to stderr raw: an OSC sequence (`ESC ] 0 ; … BEL`) in it
retitled the terminal window. Every stderr line, and the answer on a terminal's stdout, is escaped
now (co_tui/escaped_output.py); a pipe's stdout stays byte-exact.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import ROOT

from .harness import co_tui, provider_env
from .loopback import LoopbackServer, Reply, ToolCallSpec, openai_error

RETITLE = "\x1b]0;pwned\x07"
C1_CSI = "\x9b2J"  # 8-bit CSI: clears the screen on terminals that read C1 controls


def test_a_hostile_tool_name_is_escaped_on_stderr(loopback: LoopbackServer, tmp_path: Path) -> None:
    loopback.script(
        Reply(tool_calls=(ToolCallSpec(f"{RETITLE}read_file\nforged line", {"path": f"a{C1_CSI}.txt"}),)),
        Reply("done"),
    )
    proc = co_tui("-p", "hello", "--model", "openai-chat:gpt-4o", cwd=tmp_path, env=provider_env(loopback))
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr and "\x9b" not in proc.stderr
    [call] = [line for line in proc.stderr.splitlines() if line.startswith("· ")]
    assert "\\x1b]0;pwned\\x07read_file\\nforged line" in call, call
    assert "forged line" not in proc.stderr.replace(call, ""), "one line per call"


def test_a_hostile_server_error_is_one_escaped_line(loopback: LoopbackServer, tmp_path: Path) -> None:
    loopback.script(openai_error(400, f"bad request{RETITLE}\nsecond line"))
    proc = co_tui("-p", "hello", "--model", "openai-chat:gpt-4o", cwd=tmp_path, env=provider_env(loopback))
    assert proc.returncode == 1
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("co-tui: "), lines


@pytest.mark.slow
def test_an_answer_is_escaped_on_a_terminal_and_exact_in_a_pipe(loopback: LoopbackServer, tmp_path: Path) -> None:
    answer = f"{RETITLE}hello\n\tworld"
    loopback.script(Reply(answer), Reply(answer))
    piped = co_tui("-p", "hi", "--model", "openai-chat:gpt-4o", cwd=tmp_path, env=provider_env(loopback))
    assert piped.returncode == 0 and piped.stdout == answer + "\n", "a pipe gets the answer byte for byte"

    main, terminal = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "co_tui", "-p", "hi", "--model", "openai-chat:gpt-4o"],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=terminal,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT), **provider_env(loopback)},
        )
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: the process closed the terminal's last descriptor
                break
            if not chunk:
                break
            shown += chunk
        assert proc.wait(timeout=60) == 0
    finally:
        os.close(main)
    text = shown.decode()
    assert "\x1b" not in text and "\\x1b]0;pwned\\x07hello" in text, repr(text)
    assert "\r\n\tworld" in text, "the answer's own newlines and tabs stay"
