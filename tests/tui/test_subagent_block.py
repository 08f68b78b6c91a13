"""A subagent in the chat: its live block (agent, task, own meter, the tool it runs, its own cuts,
elapsed time, cost), the transcript it opens to — while the child runs too —, how it ends (done,
failed, cancelled by Esc), and that none of a child's events land in the main chat flow.

Driven through the scripted FakeSession's `Delegate` step, which emits the engine's events
(docs/subagents.md): the parent's `delegate` call, `subagent_started`, the child's events carrying
`agent` and `delegation`, `subagent_finished`, the parent's result.
"""

from __future__ import annotations

from pilot_helpers import send_prompt, wait_idle, wait_ready, wait_until
from tui_fakes import Delegate, Fail, Hold, Text, Tool, Trim, Until

from co_tui.governance.events import HistoryTrimmed
from co_tui.tui.screens.chat import ChatScreen
from co_tui.tui.screens.subagent import SubagentScreen
from co_tui.tui.widgets.assistant_message import AssistantMessage
from co_tui.tui.widgets.child_transcript import ChildTranscript
from co_tui.tui.widgets.error_block import ErrorBlock
from co_tui.tui.widgets.subagent_block import SubagentBlock
from co_tui.tui.widgets.tool_call_block import ToolCallBlock
from co_tui.tui.widgets.trim_banner import TrimBanner

TASK = "Find which file in docs mentions governance"
CHILD_TRIM = HistoryTrimmed(
    reason="token_budget",
    strategy="turn_trim",
    dropped_messages=4,
    dropped_turns=2,
    kept_turns=1,
    tokens_before=38_000,
    tokens_after=14_000,
    budget_tokens=40_000,
)


def block_text(block: SubagentBlock) -> str:
    """The block's lines as plain text."""
    return "\n".join(line.plain for line in _lines(block))


def _lines(block: SubagentBlock) -> list:
    from co_tui.tui.widgets.subagent_block import block_lines

    return block_lines(block.view, block.elapsed_s, interrupted=block.interrupted)


def main_log_text(app) -> str:
    """What the main chat flow shows outside subagent blocks."""
    chat = app.chat
    parts = []
    for widget in chat.log_view.items:
        if isinstance(widget, SubagentBlock):
            continue
        if isinstance(widget, AssistantMessage):
            parts.append(widget.text if hasattr(widget, "text") else str(widget))
        elif isinstance(widget, ToolCallBlock):
            parts.append(widget.tool_name)
        else:
            parts.append(type(widget).__name__)
    return " | ".join(parts)


def delegating(gate: list[bool], *child_after: object):
    """A script: the model delegates; the child reads two files, waits at `gate`, then answers."""

    def script(prompt: str):
        return [
            Text("I'll hand this to a subagent."),
            Delegate(
                TASK,
                [
                    Tool("list_dir", '{"path": "docs"}', "a.md\nb.md\n"),
                    Tool("read_file", '{"path": "docs/a.md"}', "governance is here\n" * 20),
                    Until(lambda: gate[0]),
                    *child_after,  # type: ignore[list-item]
                    Text("docs/a.md mentions governance."),
                ],
            ),
            Text("The subagent says **docs/a.md**."),
        ]

    return script


async def test_the_block_streams_the_child_and_says_what_it_returned(make_app) -> None:
    gate = [False]
    app = make_app(script=delegating(gate))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.chat.query(SubagentBlock), what="the block")
        block = app.chat.query_one(SubagentBlock)
        await wait_until(pilot, lambda: block.view.tool_calls == 2 and block.view.tool is None, what="two tools run")
        text = block_text(block)
        assert "explore" in text and TASK in text and "running" in text
        assert "5 msgs · 2k/40k tokens (5%)" in text and "2 tool calls" in text and "$0.0024" in text
        # The activity line names the child at work; the child's rows stay in its block.
        assert str(app.chat.activity.label).startswith("explore-1: ")
        assert "read_file" not in main_log_text(app) and "list_dir" not in main_log_text(app)
        gate[0] = True
        await wait_idle(pilot)
        text = block_text(block)
        assert "done" in text and "returned 30 chars" in text and "recall explore-1" in text
        assert "3 requests · 7.2k in / 240 out · $0.0036" in text and "running" not in text and block.has_class("-done")
        # The child's answer is not the parent's: the main flow holds the parent's two answers only.
        answers = [w for w in app.chat.log_view.items if isinstance(w, AssistantMessage)]
        assert len(answers) == 2
        assert not any(isinstance(w, ToolCallBlock) for w in app.chat.log_view.items)


async def test_the_block_shows_the_tool_the_child_runs_now(make_app) -> None:
    gate = [False]

    def script(prompt: str):
        return [Delegate(TASK, [Tool("read_file", '{"path": "docs/a.md"}', "x", hold=30), Until(lambda: gate[0])])]

    app = make_app(script=script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"go", "enter")
        await wait_until(pilot, lambda: app.chat.query(SubagentBlock), what="the block")
        block = app.chat.query_one(SubagentBlock)
        await wait_until(pilot, lambda: block.view.tool is not None, what="the child's tool running")
        assert 'read_file(path="docs/a.md")  running…' in block_text(block)
        await pilot.press("escape")
        await wait_idle(pilot)
        assert "cancelled" in block_text(block)


async def test_opened_while_running_it_streams_then_closes_back_to_the_chat(make_app) -> None:
    gate = [False]
    app = make_app(script=delegating(gate))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"go", "enter")
        await wait_until(pilot, lambda: app.chat.query(SubagentBlock), what="the block")
        block = app.chat.query_one(SubagentBlock)
        await wait_until(pilot, lambda: block.view.tool_calls == 2, what="two tools run")
        await pilot.click(SubagentBlock)
        await wait_until(pilot, lambda: isinstance(app.screen, SubagentScreen), what="the subagent screen")
        screen = app.screen
        log = screen.query_one(ChildTranscript)
        await wait_until(pilot, lambda: screen.shown == len(block.events), what="the events so far drawn")
        rows = [w.tool_name for w in log.query(ToolCallBlock)]
        assert rows == ["list_dir", "read_file"]
        assert TASK in str(screen.query_one("#subagent-header").render())
        # The child goes on while its transcript is open: its answer streams into it.
        gate[0] = True
        await wait_until(pilot, lambda: not block.view.running, what="the child done")
        await wait_until(pilot, lambda: screen.shown == len(block.events), what="the rest drawn")
        answers = list(log.query(AssistantMessage))
        assert answers and "docs/a.md mentions governance." in answers[0].text
        assert "done" in str(screen.query_one("#subagent-header").render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="back to the chat")
        assert screen not in app.screen_stack and not block.listeners
        await wait_idle(pilot)
        # The app is usable after: typed keys go to the prompt (the block kept the focus the click gave it).
        await pilot.press(*"thanks", "enter")
        await wait_until(pilot, lambda: app.session.prompts[-1] == "thanks", what="the next prompt sent")
        await wait_idle(pilot)


async def test_enter_on_the_focused_block_opens_it(make_app) -> None:
    app = make_app(script=lambda prompt: [Delegate(TASK, [Text("found it")])])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "go")
        block = app.chat.query_one(SubagentBlock)
        block.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SubagentScreen), what="the subagent screen")
        await wait_until(pilot, lambda: app.screen.shown == len(block.events), what="its events drawn")
        assert "found it" in app.screen.query_one(AssistantMessage).text
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="back to the chat")


async def test_a_failed_child_says_so_and_the_parent_goes_on(make_app) -> None:
    def script(prompt: str):
        return [
            Delegate(TASK, [Tool("read_file", '{"path": "docs/a.md"}', "x"), Fail("HTTP 500 from the provider")]),
            Text("The subagent failed; I'll look myself."),
        ]

    app = make_app(script=script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "go")
        block = app.chat.query_one(SubagentBlock)
        text = block_text(block)
        assert "failed" in text and "HTTP 500 from the provider" in text and block.has_class("-failed")
        # The child's error line is in its block, not in the main flow; the parent's answer is.
        assert not app.chat.log_view.query(ErrorBlock)
        assert "look myself" in app.chat.log_view.query(AssistantMessage).last().text


async def test_esc_cancels_the_child_and_the_app_is_usable_after(make_app) -> None:
    app = make_app(script=lambda prompt: [Delegate(TASK, [Tool("list_dir", "{}", "a.md"), Hold()])])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"go", "enter")
        await wait_until(pilot, lambda: app.chat.query(SubagentBlock), what="the block")
        block = app.chat.query_one(SubagentBlock)
        await wait_until(pilot, lambda: block.view.tool_calls == 1, what="the child running")
        await pilot.press("escape")
        await wait_idle(pilot)
        assert "cancelled" in block_text(block) and block.has_class("-failed")
        assert not block.view.running and block._ticker is None
        app.session.script = lambda prompt: [Text("ok")]
        await send_prompt(pilot, "again")
        assert app.chat.log_view.query(AssistantMessage).last().text == "ok"


async def test_the_childs_cuts_are_banners_in_its_block_not_in_the_chat(make_app) -> None:
    app = make_app(
        script=lambda prompt: [Delegate(TASK, [Tool("list_dir", "{}", "a.md"), Trim(CHILD_TRIM), Text("done")])]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "go")
        block = app.chat.query_one(SubagentBlock)
        assert "✂ History trimmed · 4 messages (2 turns)" in block_text(block)
        assert not app.chat.log_view.query(TrimBanner)
        assert not app.session.ledger  # the parent's context was not cut
        block.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SubagentScreen), what="the subagent screen")
        await wait_until(pilot, lambda: app.screen.shown == len(block.events), what="its events drawn")
        assert len(app.screen.query(TrimBanner)) == 1


async def test_the_footer_meter_keeps_the_main_reading(make_app) -> None:
    app = make_app(script=lambda prompt: [Delegate(TASK, [Text("child says hi")]), Text("parent")])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "go")
        reading = app.chat.meter.reading
        assert reading is not None and reading.agent is None and reading.budget_tokens != 40_000


async def test_an_approval_a_child_asks_for_names_the_child(make_app) -> None:
    """The dialog says which subagent asks (its run sets who asks: session/child_event.py); the
    main agent's still says the model."""
    import asyncio

    from pilot_helpers import dialog_armed

    from co_tui.session.child_event import CHILD_AGENT

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        for agent, said in (("runner-1", "The subagent runner-1 asked to run"), (None, "The model asked to run")):
            answer: asyncio.Future = asyncio.get_running_loop().create_future()

            async def ask(agent: str | None = agent, answer: asyncio.Future = answer) -> None:
                token = CHILD_AGENT.set(agent)  # as a child's run sets it around its tools' calls
                try:
                    answer.set_result(await app.approvals.approve_shell("ls docs"))
                finally:
                    CHILD_AGENT.reset(token)

            app.run_worker(ask())
            await dialog_armed(pilot, "ApprovalDialog")
            assert said in str(app.screen.query_one("#dialog-body").render())
            await pilot.press("n")
            await wait_until(pilot, answer.done, what="the answer")
            assert answer.result() is False


async def test_interleaved_children_each_go_to_their_own_block(make_app) -> None:
    """Several delegate calls of one step run at once: their events interleave, and each goes to
    the block of its delegation."""
    from co_tui.session import SubagentFinished, SubagentStarted, TextDelta, ToolCall, ToolResult

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        chat = app.chat
        calls = {"d1": "read the parser", "d2": "read the tests"}
        for delegation, task in calls.items():
            await chat.show_event(ToolCall(tool_name="delegate", tool_call_id=delegation, args=f'{{"task": "{task}"}}'))
        for n, delegation in enumerate(calls, 1):
            ids = {"agent": f"explore-{n}", "delegation": delegation}
            await chat.show_event(
                SubagentStarted(agent_name="explore", task=calls[delegation], budget_tokens=20_000, **ids)
            )
        for delegation, n in (("d2", 2), ("d1", 1), ("d2", 2)):
            ids = {"agent": f"explore-{n}", "delegation": delegation}
            await chat.show_event(ToolCall(tool_name="read_file", tool_call_id=f"c{n}", args="{}", **ids))
            await chat.show_event(ToolResult(tool_name="read_file", tool_call_id=f"c{n}", content="x", chars=1, **ids))
        await chat.show_event(TextDelta(text="parser answer", agent="explore-1", delegation="d1"))
        await chat.show_event(
            SubagentFinished(agent="explore-1", delegation="d1", agent_name="explore", outcome="done", result_chars=13)
        )
        await chat.show_event(ToolResult(tool_name="delegate", tool_call_id="d1", content="parser answer", chars=13))
        await pilot.pause()
        first, second = chat.query(SubagentBlock)
        assert (first.view.task, first.view.tool_calls, first.view.running) == ("read the parser", 1, False)
        assert (second.view.task, second.view.tool_calls, second.view.running) == ("read the tests", 2, True)
        assert first.view.chars == len("parser answer") and second.view.chars == 0
        assert not chat.log_view.query(AssistantMessage) and not chat.log_view.query(ToolCallBlock)


async def test_the_models_words_in_the_block_never_drive_the_terminal(make_app) -> None:
    """The task, a tool's arguments and an error line are the model's: their control characters are escaped."""
    hostile = "read it\x1b]0;pwned\x07 now"
    app = make_app(
        script=lambda prompt: [
            Delegate(hostile, [Tool("read_file", '{"path": "\\u001b[2J"}', "x"), Fail("bad\x1b[31m")])
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "go")
        text = block_text(app.chat.query_one(SubagentBlock))
        assert "\x1b" not in text and "\x07" not in text
        assert "read it\\x1b]0;pwned\\x07 now" in text and "bad\\x1b[31m" in text
