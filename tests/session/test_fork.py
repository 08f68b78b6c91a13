"""Forks (issue 30 item 3): `/fork` and `--fork-session` copy a session, from now or from just before
an earlier prompt, into a new saved session that says where it came from; `--resume ID --at TURN -p`
sends a prompt from an earlier point on a new branch. Real ChatSession (offline model), real SQLite
file, and the `co-tui` command (called in-process: its flags and what it saves are the point)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_process import call_co_tui
from support.turns import run_turn

from co_tui.config import load_settings
from co_tui.governance.refused import Refused
from co_tui.session.chat import ChatSession
from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore


def _dump(messages: Any) -> bytes:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return ModelMessagesTypeAdapter.dump_json(list(messages))


def _session(tmp_path: Path, store: SessionStore) -> ChatSession:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "README.md").write_text("# demo\n" + "A line of the readme that the tool returns.\n" * 80)
    settings = load_settings(context_budget_tokens=2_500, context_strategy="trim", tool_output_trim_chars=200)
    return ChatSession(settings, workspace=ws, store=store)


async def test_fork_now_and_from_an_earlier_prompt_leave_the_source_as_it_was(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path / "data")
    session = _session(tmp_path, store)
    with pytest.raises(Refused, match="nothing saved to fork"):
        await session.fork()
    await run_turn(session, "hello")
    await session.pin_newest()
    await run_turn(session, "read README.md")
    before_third = (_dump(session.context), len(session.ledger), list(session.pins))
    await run_turn(session, "read README.md again")
    await run_turn(session, "and again read README.md")
    source = (_dump(session.context), list(session.ledger), len(session.transcript))
    third = next(p for p in session.rewind_points() if p.turn == 3)

    whole = await session.fork(title="try another way")
    early = await session.fork(third.position)
    assert (_dump(session.context), list(session.ledger), len(session.transcript)) == source, "unchanged"

    metas = {m.id: m for m in store.list_sessions()}
    assert metas[whole].forked_from == session.id and metas[whole].forked_at == 4
    assert metas[whole].title == "try another way"
    assert metas[early].forked_from == session.id and metas[early].forked_at == 2
    assert metas[early].title == "fork of hello"

    session.release_claim()
    copy = resume_session(session.settings, workspace=session.workspace, store=store, session_id=whole)
    assert (_dump(copy.context), list(copy.ledger), len(copy.transcript)) == source
    assert list(copy.pins) == list(session.pins)
    copy.release_claim()
    back = resume_session(session.settings, workspace=session.workspace, store=store, session_id=early)
    assert (_dump(back.context), len(back.ledger), list(back.pins)) == before_third
    assert len(back.transcript) == third.position
    await run_turn(back, "read README.md, differently")  # it goes on as its own session
    assert back.history.branch == 0 and len(back.transcript) > third.position
    back.release_claim()
    store.close()


def _jsonl(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_fork_session_and_at_turn_from_the_command_line(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {"CO_TUI_DATA_DIR": str(tmp_path / "data"), "CO_TUI_CONFIG_FILE": str(tmp_path / "config.toml")}
    first = call_co_tui("-p", "the first question", "--output-format", "jsonl", cwd=ws, env=env)
    assert first.returncode == 0, first.stderr
    sid = _jsonl(first.stdout)[0]["session_id"]
    second = call_co_tui("--continue", "-p", "the second question", cwd=ws, env=env)
    assert second.returncode == 0, second.stderr

    forked = call_co_tui(
        "--continue", "--fork-session", "-p", "on the fork", "--output-format", "jsonl", cwd=ws, env=env
    )
    assert forked.returncode == 0, forked.stderr
    fork_id = _jsonl(forked.stdout)[0]["session_id"]
    assert fork_id != sid
    listing = call_co_tui("--list-sessions", cwd=ws, env=env)
    line = next(row for row in listing.stdout.splitlines() if row.startswith(fork_id[:8]))
    assert f"(fork of {sid[:8]} after 2 turns)" in line

    at = call_co_tui(
        "--resume", sid, "--at", "2", "-p", "the second, edited", "--output-format", "jsonl", cwd=ws, env=env
    )
    assert at.returncode == 0, at.stderr
    events = _jsonl(at.stdout)
    assert events[0]["type"] == "history_trimmed" and events[0]["reason"] == "rewind"
    assert events[0]["rewound_to_turn"] == 2 and events[0]["session_id"] == sid
    with SessionStore.open(tmp_path / "data") as store:
        loaded = store.load(sid)
        prompts = [m.parts[0].content for m in loaded.transcript if m.kind == "request"]
        assert prompts == ["the first question", "the second, edited"] and loaded.branch == 1

    text = call_co_tui("--resume", sid, "--at", "1", "-p", "from the start", cwd=ws, env=env)
    assert text.returncode == 0 and "⎇ Conversation rewound · to before turn 1" in text.stderr, text.stderr

    for args, words in (
        (("--fork-session", "-p", "x"), "--fork-session applies to --continue or --resume ID"),
        (("--continue", "--at", "1", "-p", "x"), "--at TURN applies to --resume ID with -p"),
        (("--resume", sid, "--at", "9", "-p", "x"), "the session has no turn 9"),
    ):
        bad = call_co_tui(*args, cwd=ws, env=env)
        assert bad.returncode == 2 and words in bad.stderr and bad.stderr.count("\n") == 1, bad.stderr
