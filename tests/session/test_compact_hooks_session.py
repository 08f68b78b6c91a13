"""The compaction hooks in a real session on the offline model: `/compact` runs them (trigger
`manual`, its output in the instructions, a veto not honoured), a veto of an automatic cut reaches
the chat as one notice, and a failing `post_compact` is one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support.turns import collect

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession


def _hook(tmp_path: Path, name: str, body: str) -> list[str]:
    path = tmp_path / f"{name}.py"
    path.write_text(f"import sys\nopen({str(tmp_path / f'{name}.json')!r}, 'w').write(sys.stdin.read())\n{body}\n")
    return [sys.executable, str(path)]


@pytest.mark.slow
async def test_compact_runs_both_hooks_and_a_veto_does_not_stop_it(workspace: Path, tmp_path: Path) -> None:
    hooks = {
        "pre_compact": _hook(tmp_path, "pre", "print('Keep the file names.'); sys.exit(2)"),
        "post_compact": _hook(tmp_path, "post", "sys.exit(1)"),
    }
    session = ChatSession(load_settings(hooks=hooks), workspace=workspace, model="offline")
    await collect(session.run_turn("hello"))
    events = await collect(session.compact("the files"))
    [event] = [e for e in events if e.type == "history_trimmed"]
    assert event.summary_instructions == ["co-tui", "pre_compact hook", "/compact focus"]
    assert [e.message for e in events if e.type == "notice"] == ["post_compact hook failed (exit 1)"]
    pre = json.loads((tmp_path / "pre.json").read_text())
    assert pre["trigger"] == "manual" and pre["session_id"] == session.id and pre["strategy"] == "compact"
    assert pre["preview"]["reason"] == "manual_compact"
    post = json.loads((tmp_path / "post.json").read_text())
    assert post["trigger"] == "manual" and post["summary"] and post["summary"] in event.summary


@pytest.mark.slow
async def test_a_veto_of_an_automatic_cut_is_one_notice_in_the_turn(workspace: Path, tmp_path: Path) -> None:
    settings = load_settings(max_history_messages=8, hooks={"pre_compact": _hook(tmp_path, "pre", "sys.exit(2)")})
    session = ChatSession(settings, workspace=workspace, model="offline")
    seen = []
    for prompt in ("one", "two", "three", "four", "five", "six"):
        seen += await collect(session.run_turn(prompt))
    notices = [e.message for e in seen if e.type == "notice"]
    assert notices and all("vetoed the automatic cut" in n for n in notices)
    assert not [e for e in seen if e.type == "history_trimmed"]
    assert json.loads((tmp_path / "pre.json").read_text())["trigger"] == "auto"


async def test_no_hook_runs_unless_configured(workspace: Path) -> None:
    session = ChatSession(load_settings(max_history_messages=8), workspace=workspace, model="offline")
    assert session.binding.governance.hooks is None
    seen = []
    for prompt in ("one", "two", "three", "four", "five", "six"):
        seen += await collect(session.run_turn(prompt))
    assert [e for e in seen if e.type == "history_trimmed"]  # the same turns cut without a hook...
    assert not [e for e in seen if e.type == "notice"]  # ...and nothing is said about hooks
