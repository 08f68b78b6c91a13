"""The model's `remember` in print mode, through the real OpenAI client and the loopback server:
without `--yes` nobody can approve it, and stderr says what it is — a note into memory.md at its
path, with the exact line — not a file edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .harness import co_tui, provider_env
from .loopback import LoopbackServer, Reply, ToolCallSpec

pytestmark = pytest.mark.slow  # the real co-tui, as a process


def test_print_mode_says_a_refused_note_is_a_note(loopback: LoopbackServer, tmp_path: Path) -> None:
    loopback.script(Reply(tool_calls=(ToolCallSpec("remember", {"note": "use tabs"}, "c1"),)), Reply("ok"))
    model = ("--model", "openai-chat:gpt-4o", "--output-format", "jsonl")
    proc = co_tui("-p", "remember that I use tabs", *model, cwd=tmp_path, env=provider_env(loopback))
    assert proc.returncode == 0, proc.stderr
    memory = tmp_path.resolve() / ".co-tui" / "memory.md"
    assert proc.stderr == (
        f"co-tui: remember refused (remembering a note into memory.md at {memory}: '- use tabs'): "
        "pass --yes to approve memory notes in print mode\n"
    )
    assert not memory.exists()
    [result] = [json.loads(line) for line in proc.stdout.splitlines() if '"tool_result"' in line]
    assert result["tool_call_id"] == "c1" and "print mode cannot ask" in result["content"]
