"""The subagent block with the real engine: the real session (offline model, SQLite store) asked to
delegate, as a user without a key would; its block live and done, Esc while the child runs, and the
finished blocks again after a resume, their transcripts read from what the engine saved."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_helpers import paste, send_prompt, wait_idle, wait_ready, wait_until
from quiet_app import QuietApp

from co_tui.config import load_settings
from co_tui.tui.screens.chat import ChatScreen
from co_tui.tui.screens.subagent import SubagentScreen
from co_tui.tui.widgets.assistant_message import AssistantMessage
from co_tui.tui.widgets.subagent_block import SubagentBlock, block_lines
from co_tui.tui.widgets.tool_call_block import ToolCallBlock

ASK = "explore docs in a subagent and tell me which file mentions zephyr"


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    return {
        "README.md": "# Demo\n",
        "docs/a.md": "# A\nnothing here\n",
        "docs/b.md": "# B\nthe zephyr lives here\n",
    }


def text_of(block: SubagentBlock) -> str:
    return "\n".join(line.plain for line in block_lines(block.view, block.elapsed_s, interrupted=block.interrupted))


async def open_block(pilot, block: SubagentBlock) -> SubagentScreen:
    block.focus()
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SubagentScreen), what="the subagent screen")
    screen = pilot.app.screen
    await wait_until(pilot, lambda: screen.shown == len(block.events), what="its events drawn")
    return screen


async def test_the_offline_model_delegates_and_the_block_shows_the_child(real_app: QuietApp) -> None:
    app = real_app
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, ASK)
        block = app.chat.query_one(SubagentBlock)
        text = text_of(block)
        assert "explore" in text and "done" in text and "recall explore-1" in text
        # The child's search is in its block, not the main flow; the parent's answer is.
        assert not [w for w in app.chat.log_view.query(ToolCallBlock) if w.tool_name != "delegate"]
        assert "docs/b.md" in app.chat.log_view.query(AssistantMessage).last().text
        screen = await open_block(pilot, block)
        assert [row.tool_name for row in screen.query(ToolCallBlock)] == ["search_text"]
        assert "docs/b.md" in screen.query_one(AssistantMessage).text
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="back to the chat")


async def test_esc_while_the_real_child_runs_cancels_it(
    real_app: QuietApp, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The child's answer is held open (a file never made) until Esc: a slow model raced the clock.
    monkeypatch.setenv("CO_TUI_OFFLINE_HOLD", str(tmp_path / "never"))
    app = real_app
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await paste(pilot, ASK)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.chat.query(SubagentBlock), what="the block")
        block = app.chat.query_one(SubagentBlock)
        await wait_until(pilot, lambda: block.view.chars > 0, what="the child writing its answer")
        await pilot.press("escape")
        await wait_idle(pilot)
        assert "cancelled" in text_of(block) and not block.view.running
        monkeypatch.delenv("CO_TUI_OFFLINE_HOLD")
        await send_prompt(pilot, "hello")  # the app is usable after
        assert app.chat.log_view.query(AssistantMessage).last().text


async def test_after_resume_the_finished_block_opens_to_the_saved_transcript(workspace: Path) -> None:
    first = QuietApp(load_settings(), workspace)
    async with first.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, ASK)
        session_id = first.session.id
        live = text_of(first.chat.query_one(SubagentBlock))
    app = QuietApp(load_settings(), workspace, resume_id=session_id)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        block = app.chat.query_one(SubagentBlock)
        text = text_of(block)
        assert block.resumed and "done" in text and "recall explore-1" in text
        # The same words as live; the meter line has its bar against the budget the record keeps.
        assert text.splitlines()[0] == live.splitlines()[0] and text.splitlines()[2] == live.splitlines()[2]
        assert text.splitlines()[1] == live.splitlines()[1], (live, text)
        screen = await open_block(pilot, block)
        assert [row.tool_name for row in screen.query(ToolCallBlock)] == ["search_text"]
        assert "docs/b.md" in screen.query_one(AssistantMessage).text


async def test_the_inspector_lists_each_child_and_opens_its_transcript(real_app: QuietApp) -> None:
    from pilot_helpers import inspector_loaded

    from co_tui.tui.screens.history import HistoryScreen
    from co_tui.tui.widgets.subagents_table import SubagentsTable

    app = real_app
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, ASK)
        await send_prompt(pilot, ASK.replace("zephyr", "nothing"))
        await pilot.press("f2")
        await inspector_loaded(pilot)
        await pilot.press("5")
        screen = app.screen
        table = screen.query_one(SubagentsTable)
        assert table.row_count == 2 and "Subagents (2)" in str(
            screen.query_one("#history-tabs").get_tab("subagents").label
        )
        assert [str(table.get_row_at(i)[1]) for i in range(2)] == ["explore-1", "explore-2"]
        assert "done" in str(table.get_row_at(0)[2])
        detail = str(screen.query_one("#subagents-detail").render())
        assert "search zephyr in docs" in detail and "recall explore-1" in detail
        await pilot.press("down")
        await wait_until(pilot, lambda: "recall explore-2" in str(screen.query_one("#subagents-detail").render()))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SubagentScreen), what="the child's transcript")
        child = app.screen
        await wait_until(pilot, lambda: child.shown == len(child.block.events) > 0, what="its events drawn")
        assert [row.tool_name for row in child.query(ToolCallBlock)] == ["search_text"]
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), what="back to the inspector")


async def test_context_counts_the_children_apart(real_app: QuietApp) -> None:
    from co_tui.tui.screens.context import ContextScreen

    app = real_app
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "/context")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen), what="/context")
        await wait_until(pilot, lambda: app.screen.subagents is not None, what="the children counted")
        assert app.screen.subagents.children == 0 and not app.screen.query_one("#context-subagents").display
        total = app.screen.breakdown.total_tokens
        await pilot.press("escape")
        await send_prompt(pilot, ASK)
        await send_prompt(pilot, "/context")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen), what="/context")
        screen = app.screen
        await wait_until(pilot, lambda: screen.subagents is not None, what="the children counted")
        line = str(screen.query_one("#context-subagents").render())
        assert line.startswith("Subagents: 1 · 2 requests · ") and "not counted above" in line
        # The child's input (its own requests) is not in the main context's figure.
        child_in = screen.subagents.input_tokens
        assert child_in > 0 and screen.breakdown.total_tokens - total < child_in


async def test_the_footer_cost_includes_the_child_over_the_wire(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A priced model (gpt-4o's list prices) over the real OpenAI client against the loopback
    server: the parent delegates, the child reads a file and answers. The footer's cost is the
    parent's requests and the child's; the block says the child's alone."""
    from providers.harness import point_providers_at
    from providers.loopback import LoopbackServer, Reply, ToolCallSpec

    from co_tui.config import Settings
    from co_tui.session.cost import format_usd, request_costs, session_cost_of

    server = LoopbackServer().start()
    try:
        point_providers_at(monkeypatch, server)

        def reply(request) -> Reply:
            messages = request.body["messages"]
            system = " ".join(str(m["content"]) for m in messages if m["role"] in ("system", "developer"))
            returned = [m for m in messages if m["role"] == "tool"]
            if "subagent" in system.lower() and "delegate" not in json_tools(request):  # the child
                if not returned:
                    return Reply(tool_calls=(ToolCallSpec("read_file", {"path": "docs/b.md"}, "r1"),))
                return Reply("docs/b.md mentions zephyr.")
            if not returned:
                return Reply(tool_calls=(ToolCallSpec("delegate", {"task": "which file mentions zephyr?"}, "d1"),))
            return Reply("It is docs/b.md.")

        server.responder = reply
        monkeypatch.setattr("pydantic_ai.models.ALLOW_MODEL_REQUESTS", True)  # to the loopback server only
        app = QuietApp(Settings(model="openai-chat:gpt-4o"), workspace)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_ready(pilot)
            await send_prompt(pilot, "which file mentions zephyr? use a subagent")
            block = app.chat.query_one(SubagentBlock)
            child = block.view.finished
            assert child is not None and child.outcome == "done" and child.requests == 2 and child.cost_usd
            parent = session_cost_of(request_costs(app.session.transcript))  # its own responses'
            reading = app.chat.meter.reading
            assert reading.cost_usd == pytest.approx(parent + child.cost_usd)
            assert parent and format_usd(reading.cost_usd) in str(app.chat.meter.render())
    finally:
        server.stop()


def json_tools(request) -> str:
    return " ".join(t["function"]["name"] for t in request.body.get("tools") or ())
