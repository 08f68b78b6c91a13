"""Over-long names never abort a turn (issue 40, item 5): a 300-byte file name or a 4 KB path in
`read_file`, `list_dir`, `write_file` or `edit_file` is a failed tool result the model reads, as
`search_text`'s already was; the turn goes on to its answer. Through the real OpenAI client and
the loopback server, and the real command in print mode (exit 0, no `"kind": "network"`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.turns import collect, of_type

from .harness import co_tui, provider_env, session, text_of
from .loopback import LoopbackServer, Reply, ToolCallSpec

NAME = "n" * 300
DEEP = "d/" * 2100 + "x.txt"
CALLS = (
    ToolCallSpec("read_file", {"path": NAME}, "c1"),
    ToolCallSpec("list_dir", {"path": DEEP}, "c2"),
    ToolCallSpec("write_file", {"path": NAME + "/x", "content": "hi"}, "c3"),
    ToolCallSpec("edit_file", {"path": DEEP, "old_string": "a", "new_string": "b"}, "c4"),
    ToolCallSpec("read_file", {"path": "ok/" + NAME[:260]}, "c5"),
)


async def test_every_file_tool_fails_in_one_line_and_the_turn_goes_on(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, allow_edits=True)
    env.script(Reply(tool_calls=CALLS), Reply("the paths were too long"))
    events = await collect(chat.run_turn("read these"))
    assert not of_type(events, "error"), events
    assert text_of(events) == "the paths were too long"
    results = {r.tool_call_id: r for r in of_type(events, "tool_result")}
    assert sorted(results) == ["c1", "c2", "c3", "c4", "c5"]
    for result in results.values():
        assert result.is_error, result
        assert "\n" not in result.content and "Traceback" not in result.content
        assert "names stop at 255" in result.content or "paths stop at 4,095" in result.content, result.content
    tool_messages = [m for m in env.requests[-1].body["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 5


def test_print_mode_exits_0_and_labels_nothing_network(loopback: LoopbackServer, tmp_path: Path) -> None:
    loopback.script(Reply(tool_calls=CALLS[:2]), Reply("done"))
    proc = co_tui(
        "-p",
        "read these",
        "--model",
        "openai-chat:gpt-4o",
        "--output-format",
        "jsonl",
        cwd=tmp_path,
        env=provider_env(loopback),
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert not [e for e in events if e["type"] == "error"], events
    assert [e["is_error"] for e in events if e["type"] == "tool_result"] == [True, True]
    assert events[-1]["type"] == "done" and events[-1]["output"] == "done"


def test_a_file_error_is_not_labelled_network() -> None:
    from co_tui.agent.errors import describe_error

    _line, kind = describe_error(OSError(36, "File name too long"), model_name="openai-chat:gpt-4o")
    assert kind == "internal"
    _line, kind = describe_error(ConnectionResetError(104, "Connection reset by peer"), model_name="openai-chat:gpt-4o")
    assert kind == "network"
