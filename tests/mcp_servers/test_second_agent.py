"""A second agent on a session's `Resources` (what a subagent will be): its own `AgentBinding`,
`History` and a `TurnRunner` with `NoStore`, sharing the one running MCP server and the project
instructions — a real stdio server, the real offline model, a real SQLite store."""

from __future__ import annotations

import pytest
from pydantic_ai.messages import ToolReturnPart
from support.turns import collect

from co_tui.config import load_settings
from co_tui.session.agent_binding import AgentBinding
from co_tui.session.applying import EditApplier
from co_tui.session.chat import ChatSession
from co_tui.session.history import History
from co_tui.session.metering import Metering
from co_tui.session.persistence import NoStore
from co_tui.session.turn_runner import TurnRunner
from co_tui.store.session_store import SessionStore
from mcp_servers.conftest import demo_entry

pytestmark = pytest.mark.slow


def child_of(session: ChatSession) -> tuple[AgentBinding, TurnRunner, History]:
    """A second agent built on `session.resources`, as the docstring of `Resources` says."""
    history = History()
    runner: TurnRunner | None = None
    binding = AgentBinding(
        session.resources, "offline", history=history, transcript_sink=lambda messages: runner.record(messages)
    )
    store = NoStore()
    applier = EditApplier(
        history, store, session_id=lambda: "child", busy=lambda: False, gauge=lambda: metering.gauge()
    )
    metering = Metering(binding, history)
    runner = TurnRunner(binding, history, metering, applier, store)
    return binding, runner, history


async def test_a_second_agent_uses_the_running_server_and_saves_nothing(workspace, tmp_path) -> None:
    with SessionStore.open(tmp_path / "data") as store:
        settings = load_settings(mcp_servers={"demo": demo_entry()})
        session = ChatSession(settings, workspace=workspace, store=store)
        await session.mcp.start()
        try:
            [server] = session.mcp.servers
            assert server.status == "running"
            await collect(session.run_turn("hello"))
            parent_context = list(session.context)
            saved = store.list_sessions()

            binding, runner, history = child_of(session)
            events = await collect(runner.run("use demo_echo text=child"))

            assert events[-1].type == "done" and not events[-1].failed
            returns = [p for m in history.context for p in m.parts if isinstance(p, ToolReturnPart)]
            assert [r.content for r in returns if r.tool_name == "demo_echo"] == ["echo: child"]
            # The parent's server answered (no second process: the one server, still the only one).
            assert session.mcp.servers == [server] and server.status == "running"
            # The child's turn is its own: the parent's history and the store are as they were.
            assert list(session.context) == parent_context
            assert [(m.id, m.messages) for m in store.list_sessions()] == [(m.id, m.messages) for m in saved]
            assert history.marks == ()  # no store: no rewind marks kept
            binding.close()
        finally:
            await session.mcp.stop()


async def test_an_instructions_change_is_counted_by_every_binding_until_one_closes(workspace) -> None:
    session = ChatSession(load_settings(), workspace=workspace)
    binding, _runner, _history = child_of(session)
    parent_before, child_before = session.binding.overhead, binding.overhead

    (workspace / "AGENTS.md").write_text("Answer in French. " * 50)
    notices = session.resources.refresh_instructions()

    assert notices and "Project instructions changed" in notices[0].message
    assert session.binding.overhead > parent_before and binding.overhead > child_before
    assert binding.meter.overhead_hint == binding.overhead

    binding.close()
    parent_long, child_long = session.binding.overhead, binding.overhead
    (workspace / "AGENTS.md").write_text("Answer in German.")
    session.resources.refresh_instructions()
    assert session.binding.overhead < parent_long
    assert binding.overhead == child_long, "a closed binding hears of no change"
