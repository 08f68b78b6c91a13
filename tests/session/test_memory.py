"""Memory the user controls (session/memory.py, agent/memory_file.py, agent/remember_tool.py):
real files in tmp_path, the real session and agent path, the model a pydantic-ai FunctionModel."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from support.approvals import Asker
from support.turns import collect, run_turn

from co_tui.agent.memory_file import MAX_CHARS, MemoryFiles, MemoryRefused
from co_tui.config import load_settings
from co_tui.session.approvals import ApprovalRequest, Decision
from co_tui.session.chat import ChatSession
from co_tui.session.commands import run_command
from co_tui.session.port import Refused


def _config_dir(tmp_path: Path) -> Path:
    return Path(os.environ["CO_TUI_CONFIG_FILE"]).parent


def remembering_model(seen: list[list]) -> FunctionModel:
    """Calls `remember` when the prompt says so; reports the tool's answer; records each request."""

    async def stream(messages, info: AgentInfo):
        seen.append(list(messages))
        last = messages[-1]
        returned = [p for p in last.parts if isinstance(p, ToolReturnPart) or p.part_kind == "retry-prompt"]
        if returned:
            yield f"tool said: {returned[0].content}"
            return
        prompt = next(p.content for p in last.parts if isinstance(p, UserPromptPart))
        if prompt.startswith("remember "):
            args = json.dumps({"note": prompt.removeprefix("remember ")})
            yield {0: DeltaToolCall(name="remember", json_args=args, tool_call_id="m1")}
            return
        yield "ok " + "padding words " * 30

    return FunctionModel(stream_function=stream, model_name="remembering")


def session_on(tmp_path: Path, ask: Asker, seen: list[list], **settings) -> ChatSession:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return ChatSession(load_settings(**settings), workspace=workspace, model=remembering_model(seen), ask=ask)


async def test_remember_writes_the_workspace_file_after_the_approval_shows_line_and_file(tmp_path: Path) -> None:
    ask = Asker("once", "once")
    session = session_on(tmp_path, ask, [])
    line = await session.memory.remember("use uv,\x1b[31m not pip\nplease")
    path = session.workspace / ".co-tui" / "memory.md"
    [request] = ask.asked
    assert (request.tool, request.text, request.path, request.by_user) == (
        "remember",
        "- use uv, [31m not pip please",  # one line, the escape character made a space
        str(path),
        True,
    )
    assert line == "Remembered in .co-tui/memory.md:5: use uv, [31m not pip please"
    assert path.read_text().endswith("\n- use uv, [31m not pip please\n")
    line = await session.memory.remember("--global be brief".removeprefix("--global "), "global")
    global_file = _config_dir(tmp_path) / "memory.md"
    assert ask.asked[1].path == str(global_file) and "be brief" in global_file.read_text()
    assert [(e.scope, e.line, e.text) for e in session.memory.entries()] == [
        ("global", 5, "be brief"),
        ("workspace", 5, "use uv, [31m not pip please"),
    ]


async def test_a_declined_note_writes_nothing_and_refusals_say_why(tmp_path: Path) -> None:
    session = session_on(tmp_path, Asker("deny", "once"), [])
    with pytest.raises(Refused, match="^not remembered: declined: 'use uv' was not written to .co-tui/memory.md$"):
        await session.memory.remember("use uv")
    assert not (session.workspace / ".co-tui").exists()
    with pytest.raises(Refused, match="nothing to remember"):
        await session.memory.remember("   ")
    with pytest.raises(Refused, match="at most 500 characters"):
        await session.memory.remember("x" * 501)
    await session.memory.remember("use uv")
    with pytest.raises(Refused, match="already remembered in .co-tui/memory.md"):
        await session.memory.remember("use uv")


async def test_slash_remember_and_memory_run_from_the_one_command_table(tmp_path: Path) -> None:
    session = session_on(tmp_path, Asker("once"), [])
    events = await collect(run_command(session, "/remember --global keep answers short"))
    assert events[-1].output == "Remembered in " + session.memory.label_of("global") + ":5: keep answers short"
    assert any(e.type == "usage" for e in events)
    events = await collect(run_command(session, "/memory"))
    assert events[-1].output == f"Memory:\n- {session.memory.label_of('global')}:5: keep answers short"


def test_edit_and_delete_work_by_line_and_refuse_a_file_changed_since(tmp_path: Path) -> None:
    files = MemoryFiles(tmp_path, global_dir=tmp_path / "cfg")
    files.append("workspace", "one")
    files.append("workspace", "two")
    one, two = files.entries
    edited = files.replace(one, "uno")
    assert (edited.line, edited.text) == (one.line, "uno")
    files.delete(two)
    assert [e.text for e in files.entries] == ["uno"]
    assert "- two" not in (tmp_path / ".co-tui/memory.md").read_text()
    with pytest.raises(MemoryRefused, match="changed since it was listed"):
        files.delete(two)  # its line no longer holds it


def test_untrusted_files_are_confined_capped_and_never_followed_out(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "memory.md").write_text("- secret from outside\n")
    (workspace / ".co-tui").symlink_to(outside, target_is_directory=True)
    files = MemoryFiles(workspace, global_dir=tmp_path / "cfg")
    [_, mine] = files.files
    assert mine.error is not None and "outside the workspace" in mine.error and files.text is None
    with pytest.raises(MemoryRefused, match="outside the workspace"):
        files.append("workspace", "note")
    assert (outside / "memory.md").read_text() == "- secret from outside\n"  # not written through the link
    (workspace / ".co-tui").unlink()
    (workspace / ".co-tui").mkdir()
    (workspace / ".co-tui/memory.md").write_text("- x\n" + "y" * (MAX_CHARS + 10))
    files.reload()
    assert files.files[1].cut and "was cut here by co-tui" in (files.text or "")
    with pytest.raises(MemoryRefused, match="over 16,000 characters"):
        files.append("workspace", "more")


async def test_the_models_remember_tool_asks_like_an_edit_and_a_denial_is_told(tmp_path: Path) -> None:
    seen: list[list] = []
    ask = Asker("deny", "once")
    session = session_on(tmp_path, ask, seen)
    events = await run_turn(session, "remember run tests with -n 2")
    [request] = ask.asked
    assert (request.tool, request.text, request.tool_call_id, request.by_user) == (
        "remember",
        "- run tests with -n 2",
        "m1",
        False,
    )
    assert request.path == str(session.workspace / ".co-tui" / "memory.md")
    [result] = [e for e in events if e.type == "tool_result"]
    assert "declined" in result.content and "Do not retry it" in result.content
    assert "declined" in events[-1].output  # the model read the denial
    assert not (session.workspace / ".co-tui").exists()

    events = await run_turn(session, "remember run tests with -n 2")
    [result] = [e for e in events if e.type == "tool_result"]
    assert result.content == "Remembered in .co-tui/memory.md (line 5): run tests with -n 2"
    assert "- run tests with -n 2" in (session.workspace / ".co-tui/memory.md").read_text()


async def test_memory_rides_with_the_instructions_is_its_own_context_row_and_is_never_cut(tmp_path: Path) -> None:
    seen: list[list] = []
    session = session_on(tmp_path, Asker("once"), seen, context_budget_tokens=3000, context_strategy="trim")
    await session.memory.remember("the deploy key is in vault")
    breakdown = session.context_breakdown()
    [row] = [r for r in breakdown.rows if r.key == "memory"]
    assert (row.label, row.items) == (".co-tui/memory.md", 1) and row.tokens > 0
    assert breakdown.total_tokens == sum(r.tokens for r in breakdown.rows)
    for i in range(12):
        await run_turn(session, f"turn {i} " + "filler text " * 40)
    assert session.ledger, "the small budget cut the history"
    first = seen[0][-1]
    after_cut = seen[-1][-1]
    for request in (first, after_cut):
        assert isinstance(request, ModelRequest)
        assert "- the deploy key is in vault" in (request.instructions or "")
    assert not any("deploy key" in str(p.content) for m in session.context for p in m.parts if hasattr(p, "content"))
