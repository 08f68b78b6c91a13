"""Issue 43 item 16: the offline model's example prompts (F1 help, `help`, the keys doc, its
greeting) work in any folder — here an empty one: no example names a file or folder that a
user's workspace may not have."""

from __future__ import annotations

import re
from pathlib import Path

from support.turns import run_turn

from co_tui.agent.offline_intents import TRIGGERS
from co_tui.config import load_settings
from co_tui.session.approvals import ApprovalRequest, Decision
from co_tui.session.chat import ChatSession

NEEDS_MORE = {"use demo_echo text=hi": "an MCP server", "slow …": "not a tool request"}


async def _yes(_: ApprovalRequest) -> Decision:
    return "once"


async def test_every_example_runs_in_an_empty_folder_in_the_order_help_lists_them(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    session = ChatSession(load_settings(allow_shell=True), workspace=empty, model="offline", ask=_yes)
    for example, _ in TRIGGERS:
        if example in NEEDS_MORE:
            continue
        events = await run_turn(session, example)
        failed = [e.content for e in events if e.type == "tool_result" and e.is_error]
        assert not failed, (example, failed)
        answer = events[-1].output
        assert not re.search(r"not found|no such file|does not exist", answer, re.I), (example, answer)


def test_the_greeting_suggests_only_what_works_anywhere() -> None:
    from co_tui.agent.offline_intents import parse_intent
    from co_tui.agent.offline_replies import canned_reply

    greeting = canned_reply(parse_intent("hello"), "hello", ["read_file", "list_dir", "search_text"])
    suggested = re.findall(r"`([^`]+)`", greeting.split("Type `help`")[0])
    assert suggested == ["list .", "search TODO", "write hello to notes.txt"]


def test_exploring_the_workspace_root_searches_the_whole_workspace() -> None:
    from co_tui.agent.offline_intents import delegation_task

    # `.` was taken for sentence punctuation: the task became "search TODO in " (pattern "TODO in").
    assert delegation_task("explore . in a subagent and tell me which file mentions TODO") == "search TODO"
    assert delegation_task("explore docs in a subagent and tell me which file mentions TODO") == "search TODO in docs"
