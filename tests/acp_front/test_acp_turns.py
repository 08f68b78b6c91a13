"""`co-tui acp` through the SDK's real client side over real pipes (docs/acp.md; the agent served
in the test's process, `acp_client.open_agent`): initialize, a turn with a tool call and its
approval, cancel, the meter and a cut, a slash command."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import schema
from acp.helpers import text_block
from support.waits import until

from acp_front.acp_client import Recorder, open_agent


async def test_initialize_says_what_co_tui_offers(workspace: Path) -> None:
    client = Recorder()
    async with open_agent(client, cwd=workspace) as (conn, _):
        answer = await conn.initialize(protocol_version=1)
        caps = answer.agent_capabilities
        assert answer.agent_info.name == "co-tui" and caps.load_session
        assert caps.prompt_capabilities.embedded_context and caps.mcp_capabilities.http
        sessions = caps.session_capabilities
        assert sessions.list is not None and sessions.fork is not None and sessions.close is not None


async def test_a_turn_streams_its_tool_call_the_meter_and_the_answer(workspace: Path) -> None:
    client = Recorder()
    async with open_agent(client, cwd=workspace) as (conn, _):
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert new.modes.current_mode_id == "auto" and [m.id for m in new.modes.available_modes] == [
            "auto",
            "ask",
            "off",
        ]
        done = await conn.prompt(session_id=new.session_id, prompt=[text_block("read hello.txt")])
        assert done.stop_reason == "end_turn"
        [call] = client.of("tool_call")
        assert call.kind == "read" and call.status == "pending" and call.title == "read_file: hello.txt"
        assert [loc.path for loc in call.locations] == [str((workspace / "hello.txt").resolve())]
        [result] = client.of("tool_call_update")
        assert result.tool_call_id == call.tool_call_id and result.status == "completed"
        assert "hi" in result.content[0].content.text
        usage = client.of("usage_update")[-1]
        assert usage.used > 0 and usage.size > usage.used
        assert client.text(new.session_id).strip(), "the answer streamed as message chunks"
        await until(lambda: client.of("available_commands_update"), "the commands")
        names = [c.name for c in client.of("available_commands_update")[0].available_commands]
        assert {"compact", "clear", "undo", "context", "pin", "rewind"} <= set(names) and "history" not in names


async def test_approvals_allow_once_always_and_reject(workspace: Path) -> None:
    client = Recorder("allow-once", "reject", "allow-always")
    async with open_agent(client, cwd=workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("write hello to notes.txt")])
        asked = client.asked[0]
        assert [o.kind for o in asked.options] == ["allow_once", "allow_always", "reject_once"]
        assert asked.options[1].name == "Allow always: file edits (write_file, edit_file)"
        shown = asked.tool_call.content[0].content.text
        assert shown.startswith("```diff\n--- /dev/null\n+++ b/notes.txt") and "+hello" in shown, "the exact diff"
        [call] = client.of("tool_call")
        assert call.kind == "edit" and asked.tool_call.tool_call_id == call.tool_call_id
        assert call.content[0].type == "diff" and call.content[0].new_text == "hello\n"
        assert (workspace / "notes.txt").read_text() == "hello\n"

        await conn.prompt(session_id=sid, prompt=[text_block("replace hello with bye in notes.txt")])
        assert len(client.asked) == 2 and client.of("tool_call_update")[-1].status == "failed"
        assert (workspace / "notes.txt").read_text() == "hello\n", "rejected: not written"

        await conn.prompt(session_id=sid, prompt=[text_block("replace hello with bye in notes.txt")])
        await conn.prompt(session_id=sid, prompt=[text_block("replace bye with ciao in notes.txt")])
        assert len(client.asked) == 3, "allow always: the session's grant covered the second edit"
        assert (workspace / "notes.txt").read_text() == "ciao\n"


async def test_cancel_mid_tool_stops_it_and_keeps_the_history_valid(workspace: Path) -> None:
    client = Recorder("allow-once")
    async with open_agent(client, "--allow-shell", cwd=workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("run sleep 30")]))
        await until(lambda: client.asked, "the approval", timeout=60)
        await until(lambda: turn.done() or client.of("tool_call"), "the call")
        await conn.cancel(session_id=sid)
        done = await asyncio.wait_for(turn, 90)  # a bound for a hung turn only (a loaded host is slow)
        assert done.stop_reason == "cancelled"
        again = await conn.prompt(session_id=sid, prompt=[text_block("hello")])
        assert again.stop_reason == "end_turn", "the next turn runs: the history is valid"


async def test_a_cut_is_a_message_with_its_hints_and_the_meter_follows(workspace: Path) -> None:
    client = Recorder()
    env = {"CO_TUI_CONTEXT_BUDGET_TOKENS": "2000"}  # a big search output alone is well past it
    async with open_agent(client, cwd=workspace, env=env) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        (workspace / "big.txt").write_text(
            "".join(f"line {i}: nothing to see here at all, only words\n" for i in range(300))
        )
        await conn.prompt(session_id=sid, prompt=[text_block("read big.txt")])
        before = client.of("usage_update")[-1].used
        await conn.prompt(session_id=sid, prompt=[text_block("and again")])
        text = client.text(sid)
        assert "\n\n✂ " in text, text
        assert "/undo puts it back" in text and "recall(" in text
        after = client.of("usage_update")[-1]
        assert after.size == 2000 and after.used < before + 2000


async def test_a_slash_command_sent_as_prompt_text_runs(workspace: Path) -> None:
    client = Recorder()
    async with open_agent(client, cwd=workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("read README.md")])
        done = await conn.prompt(session_id=sid, prompt=[text_block("/compact the install steps")])
        assert done.stop_reason == "end_turn"
        assert "✂ Conversation compacted" in client.text(sid), client.text(sid)
        await conn.prompt(session_id=sid, prompt=[text_block("/undo")])
        assert "↶ " in client.text(sid)
        await conn.set_session_mode(session_id=sid, mode_id="off")
        assert client.of("current_mode_update")[-1].current_mode_id == "off"


class CannotAnswer(Recorder):
    """A client with no way to ask its user: every permission request fails."""

    async def request_permission(self, session_id: str, tool_call: object, options: list, **_: object) -> object:
        from acp import RequestError

        raise RequestError.method_not_found("session/request_permission")


async def test_a_client_that_cannot_be_asked_gets_a_clear_refusal_not_a_run(workspace: Path) -> None:
    client = CannotAnswer()
    async with open_agent(client, cwd=workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        done = await conn.prompt(session_id=sid, prompt=[text_block("write hello to notes.txt")])
        assert done.stop_reason == "end_turn" and not (workspace / "notes.txt").exists()
        [result] = client.of("tool_call_update", sid)
        assert result.status == "failed"
        assert "the editor could not be asked for approval" in result.content[0].content.text


async def test_compact_mode_ask_asks_before_a_cut_and_cancel_sends_nothing(workspace: Path) -> None:
    client = Recorder("cancel", "cut")
    env = {"CO_TUI_CONTEXT_BUDGET_TOKENS": "2000", "CO_TUI_COMPACT_MODE": "ask"}
    (workspace / "big.txt").write_text(
        "".join(f"line {i}: nothing to see here at all, only words\n" for i in range(300))
    )
    async with open_agent(client, cwd=workspace, env=env) as (conn, _):
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = new.session_id
        assert new.modes.current_mode_id == "ask"
        await conn.prompt(session_id=sid, prompt=[text_block("read big.txt")])
        cancelled = await conn.prompt(session_id=sid, prompt=[text_block("and again")])
        assert cancelled.stop_reason == "cancelled" and "send cancelled" in client.text(sid)
        [question] = client.asked
        assert [o.option_id for o in question.options] == ["cut", "over-budget", "cancel"]
        assert "- Goes: " in question.tool_call.content[0].content.text
        assert "\n\n✂ " not in client.text(sid), "nothing was cut"
        await conn.prompt(session_id=sid, prompt=[text_block("and again")])
        assert len(client.asked) == 2 and "\n\n✂ " in client.text(sid), "cut as planned, then sent"


async def test_a_subagents_events_update_its_delegate_call(workspace: Path) -> None:
    client = Recorder()
    async with open_agent(client, cwd=workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        done = await conn.prompt(
            session_id=sid, prompt=[text_block("explore docs in a subagent and tell me which file mentions TODO")]
        )
        assert done.stop_reason == "end_turn"
        [delegate] = [c for c in client.of("tool_call", sid) if c.title.startswith("delegate")]
        assert delegate.kind == "think"
        own = [u for u in client.of("tool_call_update", sid) if u.tool_call_id == delegate.tool_call_id]
        running = [u for u in own if u.status == "in_progress"]
        assert running and "→ " in running[-1].content[0].content.text, "the child's tool calls, as it works"
        assert own[-1].status == "completed", "the parent's result completes the call"
        child_calls = [c for c in client.of("tool_call", sid) if c.tool_call_id != delegate.tool_call_id]
        assert not child_calls, "a child's calls are not the parent's rows"


async def test_a_memory_note_is_asked_as_a_note_not_a_file_edit(workspace: Path) -> None:
    """`/remember` asked the editor with a ```diff of one line, titled `remember: approve?`: it
    said what it is (a note into memory.md at its path) and the exact line only in the diff."""
    client = Recorder(None)  # the user declines
    async with open_agent(client, cwd=workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("/remember use tabs, not spaces")])
        [asked] = client.asked
        shown = asked.tool_call.content[0].content.text
        memory = workspace.resolve() / ".co-tui" / "memory.md"
        assert asked.tool_call.title == "remember: add this note to memory?"
        assert shown == (
            f"Remembering a note into memory.md at {memory}; this exact line is added:\n"
            "```\n- use tabs, not spaces\n```"
        )
        assert [loc.path for loc in asked.tool_call.locations] == [str(memory)]
        assert not memory.exists(), "declined: nothing written"
