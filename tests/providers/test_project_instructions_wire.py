"""Project instructions on the wire: the real OpenAI client against the loopback server.

AGENTS.md (and the global one beside config.toml) reach the model in the system message of every
request; an edit between turns is announced in one `notice` and the next request carries the new
text; `/clear` reads the files again; `project_instructions = false` sends none; the meter's
overhead counts them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support.turns import collect, of_type

from co_tui.governance import estimate_text_tokens

from .harness import session
from .loopback import LoopbackServer, Reply


def _system(request) -> str:
    return "\n".join(m["content"] for m in request.body["messages"] if m["role"] == "system")


async def test_agents_md_reaches_every_request_and_an_edit_is_announced(env: LoopbackServer, workspace: Path) -> None:
    agents = workspace / "AGENTS.md"
    agents.write_text("Always answer in French.\n")
    global_file = Path(os.environ["CO_TUI_CONFIG_FILE"]).parent / "AGENTS.md"
    global_file.write_text("Sign every answer with -- bot.\n")
    chat = session(workspace)
    assert [f.scope for f in chat.instruction_files] == ["global", "project"]
    env.script(Reply("bonjour"), Reply("salut"), Reply("ciao"))

    first = await collect(chat.run_turn("hello"))
    assert not of_type(first, "notice") and not first[-1].failed
    system = _system(env.requests[-1])
    assert "You are co-tui" in system, "co-tui's own instructions first"
    assert system.index("Sign every answer with -- bot.") < system.index("Always answer in French.")

    second = await collect(chat.run_turn("again"))
    assert not of_type(second, "notice"), "no change, no line"
    assert "Always answer in French." in _system(env.requests[-1])

    agents.write_text("Always answer in Italian, and keep it short.\n")
    third = await collect(chat.run_turn("and now?"))
    (notice,) = of_type(third, "notice")
    assert "Project instructions changed" in notice.message and "AGENTS.md" in notice.message
    assert third.index(notice) == 0, "announced before the turn's request goes out"
    system = _system(env.requests[-1])
    assert "Always answer in Italian" in system and "French" not in system
    assert "Sign every answer" in system, "the global file stays"
    assert len(env.requests) == 3


async def test_clear_reads_the_files_again(env: LoopbackServer, workspace: Path) -> None:
    chat = session(workspace)
    assert chat.instruction_files == ()
    env.script(Reply("one"), Reply("two"))
    await collect(chat.run_turn("hello"))
    assert "Use ruff" not in _system(env.requests[-1])
    (workspace / "CLAUDE.md").write_text("Use ruff.\n")
    await chat.clear()
    assert [f.path.name for f in chat.instruction_files] == ["CLAUDE.md"]
    events = await collect(chat.run_turn("hello again"))
    assert not of_type(events, "notice"), "read by /clear, not a change between turns"
    assert "Use ruff." in _system(env.requests[-1])


async def test_turned_off_nothing_is_sent(env: LoopbackServer, workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("Always answer in French.\n")
    chat = session(workspace, project_instructions=False)
    env.script(Reply("hi"))
    await collect(chat.run_turn("hello"))
    assert chat.instruction_files == ()
    assert "French" not in env.requests[-1].text() and "You are co-tui" in _system(env.requests[-1])


async def test_a_file_gone_bad_between_turns_is_one_line_and_the_turn_runs(
    env: LoopbackServer, workspace: Path
) -> None:
    agents = workspace / "AGENTS.md"
    agents.write_text("Always answer in French.\n")
    chat = session(workspace)
    env.script(Reply("one"), Reply("two"))
    await collect(chat.run_turn("hello"))
    agents.write_bytes(b"\xff\xfe broken\n")
    events = await collect(chat.run_turn("again"))
    messages = [n.message for n in of_type(events, "notice")]
    assert any("not UTF-8" in m and "AGENTS.md" in m for m in messages), messages
    assert not events[-1].failed and not of_type(events, "error")
    assert "French" not in _system(env.requests[-1])


async def test_the_meter_overhead_counts_the_instructions(env: LoopbackServer, workspace: Path) -> None:
    bare = session(workspace)
    text = "Follow the style guide in docs/style.md and never touch vendor/.\n" * 40
    (workspace / "AGENTS.md").write_text(text)
    with_file = session(workspace)
    grown = with_file.binding.overhead - bare.binding.overhead
    assert grown >= estimate_text_tokens(text), (grown, estimate_text_tokens(text))
    (workspace / "AGENTS.md").write_text("short\n")
    env.script(Reply("ok"))
    await collect(with_file.run_turn("hello"))
    assert with_file.binding.overhead < bare.binding.overhead + grown, "a reload updates the overhead"


# --- a hostile repository's AGENTS.md, through print mode (issue 33.1) ---------------------------

SECRET = "hunter2-db-password-7f3a"


def _never_sends_a_linked_secret(loopback: LoopbackServer, tmp_path: Path, target: str, co_tui: Any) -> None:
    """AGENTS.md links to `target` ("outside": a credentials file beside the workspace) holding the
    secret; `co_tui` runs `co-tui -p hello` with the secret in its environment too."""
    from .harness import provider_env

    workspace = tmp_path / "cloned-repo"
    workspace.mkdir()
    if target == "outside":
        outside = tmp_path / "credentials"
        outside.write_text(f"password={SECRET}\n")
        target = str(outside)
    (workspace / "AGENTS.md").symlink_to(target)
    loopback.script(Reply("hi"))
    env = {**provider_env(loopback), "DATABASE_URL": f"postgres://app:{SECRET}@db/prod"}
    proc = co_tui("-p", "hello", "--model", "openai-chat:gpt-4o", cwd=workspace, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "hi"
    [request] = loopback.requests
    assert SECRET not in json.dumps(request.body) and "sk-test" not in json.dumps(request.body)
    assert "You are co-tui" in _system(request), "the turn ran with co-tui's own instructions"
    [line] = [line for line in proc.stderr.splitlines() if line.strip()]
    assert line.startswith("co-tui: instructions skipped: ") and "AGENTS.md" in line, line
    assert SECRET not in proc.stderr


@pytest.mark.slow  # a process started with the secret: /proc/self/environ is its own environment
def test_print_mode_never_sends_a_linked_secret_from_its_environment(loopback: LoopbackServer, tmp_path: Path) -> None:
    from tests.cli_process import run_co_tui

    _never_sends_a_linked_secret(loopback, tmp_path, "/proc/self/environ", run_co_tui)


def test_print_mode_never_sends_a_linked_secret_outside_the_workspace(loopback: LoopbackServer, tmp_path: Path) -> None:
    from .harness import co_tui  # in-process: the file outside is the point, not the process

    _never_sends_a_linked_secret(loopback, tmp_path, "outside", co_tui)
