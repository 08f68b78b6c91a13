"""Text co-tui did not write never drives the terminal (issue 40, item 1): every widget that shows
model, tool, file, MCP or saved text draws its control characters escaped, so what reaches the
screen holds no ESC, BEL or C1 control (an OSC retitled the terminal, `ESC [2J` cleared it, OSC 52
wrote the clipboard, OSC 8 made a link). Each widget is fed the same hostile text and the whole
screen, as the compositor hands it to the terminal, is checked. A real session saved with that text
is then resumed, listed in `/sessions` and opened in the inspector."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import inspector_loaded, wait_idle, wait_ready, wait_until
from quiet_app import QuietApp
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widget import Widget

from co_tui.config import load_settings
from co_tui.governance.events import HistoryTrimmed
from co_tui.session import ErrorEvent, Notice, ToolCall, ToolResult
from co_tui.text import screen_text
from co_tui.tui.markdown_parser import literal_underscores_parser
from co_tui.tui.widgets.assistant_message import AssistantMessage

HOSTILE = (
    "PWNED\x1b]0;PWNED\x07\x1b[2J\x1b]52;c;SGVsbG8=\x07\x1b]8;;http://x\x07link\x1b]8;;\x07"
    "\x9b31m\x9d0;C1\x9c\x1bP+q\x1b\\ \x08\x7f tail\u2028sep\r\nend\ttab"
)
# What must not reach a terminal: C0 controls (a tab is expanded to spaces), DEL, C1, line separators.
FORBIDDEN = {*map(chr, range(32)), "\x7f", *map(chr, range(0x80, 0xA0)), "\u2028", "\u2029"}


def screen_text_now(app: App[Any]) -> str:
    """Every row of the top screen as the compositor hands it to the terminal."""
    update = app.screen._compositor.render_full_update()
    return "\n".join("".join(strip.text for strip in row) for row in update.strips)


def assert_clean(app: App[Any]) -> None:
    shown = screen_text_now(app)
    assert "PWNED" in shown, "the hostile text is not on the screen at all"
    rows = shown.split("\n")
    bad = sorted({repr(c) for row in rows for c in row if c in FORBIDDEN})
    assert not bad, f"terminal controls on the screen: {bad}"


class Host(App[None]):
    def __init__(self, widget: Callable[[], Widget] | None = None, screen: Callable[[], Screen[Any]] | None = None):
        super().__init__()
        self.make_widget, self.make_screen = widget, screen

    def compose(self) -> ComposeResult:
        if self.make_widget is not None:
            yield self.make_widget()

    def on_mount(self) -> None:
        if self.make_screen is not None:
            self.push_screen(self.make_screen())


def tool_row() -> Widget:
    from co_tui.tui.widgets.tool_call_block import ToolCallBlock

    row = ToolCallBlock("read_file" + HOSTILE[5:20], "c1", json.dumps({"path": HOSTILE}))
    row.set_result(ToolResult(tool_name=row.tool_name, tool_call_id="c1", content=HOSTILE, chars=len(HOSTILE)))
    row.collapsed = False
    return row


def shell_row() -> Widget:
    from co_tui.session import USER_SHELL_TOOL
    from co_tui.tui.widgets.tool_call_block import ToolCallBlock

    row = ToolCallBlock(USER_SHELL_TOOL, "c2", json.dumps({"command": f"printf '{HOSTILE}'"}))
    output = f"$ printf …\n{HOSTILE}\n[exit code 0]"
    row.set_result(ToolResult(tool_name=USER_SHELL_TOOL, tool_call_id="c2", content=output, chars=200))
    row.collapsed = False
    return row


def banner() -> Widget:
    from co_tui.tui.widgets.trim_banner import TrimBanner

    event = HistoryTrimmed(
        reason="manual_compact",
        strategy="compact",
        dropped_messages=4,
        summary=f"# Summary\n\n{HOSTILE}\n\n```\n{HOSTILE}\n```\n",
        note=HOSTILE,
        summary_lost=[HOSTILE],
        salvaged_item=HOSTILE,
        salvaged_text=HOSTILE,
    )
    shown = TrimBanner(event)
    shown.collapsed = False
    return shown


def widgets() -> dict[str, Callable[[], Widget]]:
    from co_tui.tui.widgets.error_block import ErrorBlock
    from co_tui.tui.widgets.notice_line import NoticeLine
    from co_tui.tui.widgets.queued_prompts import QueuedPrompts
    from co_tui.tui.widgets.user_message import UserMessage

    def queued() -> Widget:
        shown = QueuedPrompts()
        shown.show([HOSTILE])
        return shown

    return {
        "answer (resumed)": lambda: AssistantMessage(f"{HOSTILE}\n\n```\n{HOSTILE}\n```\n"),
        "tool row": tool_row,
        "!command row": shell_row,
        "user prompt": lambda: UserMessage(HOSTILE),
        "error": lambda: ErrorBlock(HOSTILE, "provider"),
        "notice": lambda: NoticeLine(HOSTILE),
        "banner": banner,
        "queued prompts": queued,
    }


def screens() -> dict[str, Callable[[], Screen[Any]]]:
    from co_tui.session.branching import BranchRow, RewindPoint
    from co_tui.session.history import BranchInfo
    from co_tui.tui.screens.approval import approval_dialog
    from co_tui.tui.screens.branches import BranchesScreen
    from co_tui.tui.screens.confirm_delete import ConfirmDeleteScreen
    from co_tui.tui.screens.recover_lost import RecoverLostScreen
    from co_tui.tui.screens.rewind import RewindScreen

    def approval() -> Screen[Any]:
        from co_tui.agent.permissions import Grant

        return approval_dialog("run_shell", f"echo '{HOSTILE}'", None, Grant("tool", tool=f"x{HOSTILE}"))

    return {
        "approval": approval,
        "rewind": lambda: RewindScreen([RewindPoint(1, 0, HOSTILE, 0.0, 10)], {}),
        "branches": lambda: BranchesScreen([BranchRow(BranchInfo(1, None, 0, 0, 0.0), True, 1, HOSTILE, 0.0)]),
        "delete a session": lambda: ConfirmDeleteScreen(HOSTILE, 2),
        "recover a lost item": lambda: RecoverLostScreen([HOSTILE], f"kept 1 of 2 {HOSTILE}"),
    }


@pytest.mark.parametrize("name", list(widgets()))
async def test_a_widget_shows_controls_escaped(name: str) -> None:
    async with Host(widget=widgets()[name]).run_test(size=(160, 60)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert_clean(pilot.app)


@pytest.mark.parametrize("name", list(screens()))
async def test_a_screen_shows_controls_escaped(name: str) -> None:
    async with Host(screen=screens()[name]).run_test(size=(160, 60)) as pilot:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, type(screens()[name]())), what="the screen")
        await pilot.pause()
        assert_clean(pilot.app)


async def test_a_streamed_answer_shows_controls_escaped() -> None:
    """Streamed in small deltas (a sequence split across them), then finished: both views escape."""

    class StreamHost(App[None]):
        def compose(self) -> ComposeResult:
            yield AssistantMessage()

    text = f"{HOSTILE}\n\n```\n{HOSTILE}\n```\n\nafter"
    async with StreamHost().run_test(size=(160, 60)) as pilot:
        answer = pilot.app.query_one(AssistantMessage)
        for i in range(0, len(text), 3):
            answer.write(text[i : i + 3])
        await wait_until(pilot, lambda: "after" in screen_text_now(pilot.app), what="the streamed text shown")
        assert_clean(pilot.app)
        await answer.finish()
        await pilot.pause()
        assert_clean(pilot.app)
        # The code block stays a code block, its escapes shown as text in it.
        shown = screen_text_now(pilot.app)
        assert "```" not in shown and shown.count("\\x1b]0;PWNED") == 2


def test_markdown_sees_escapes_as_text_not_as_markup() -> None:
    """Escaping comes before the Markdown parse and makes no Markdown of its own: the fence is
    still one code block, and `\\x1b` is text (a backslash before a letter escapes nothing)."""
    parser = literal_underscores_parser()
    tokens = parser.parse(screen_text(f"a{HOSTILE}\n\n```\n{HOSTILE}\n```\n"))
    fences = [t for t in tokens if t.type == "fence"]
    assert len(fences) == 1 and fences[0].content == screen_text(HOSTILE) + "\n"
    inline = next(t for t in tokens if t.type == "inline")
    assert "\\x1b]0;PWNED" in inline.content


# --- the real app: a saved session with hostile text, resumed, listed, inspected -------------------


async def hostile_session(workspace: Path) -> str:
    """A saved session (offline model, real store) whose title, prompt, tool output and answer hold
    the hostile text: a file read by `read x.txt`, then the hostile text as the newest prompt."""
    from co_tui.session import open_store
    from co_tui.session.chat import ChatSession

    (workspace / "x.txt").write_text(HOSTILE)
    settings = load_settings()
    session = ChatSession(settings, workspace=workspace, store=open_store(settings))
    session.title = f"title {HOSTILE}"
    for prompt in ("read x.txt", HOSTILE):
        async for _ in session.run_turn(prompt):
            pass
    return session.id


async def opened(pilot: Any, action: Callable[[], Awaitable[None]], what: str) -> None:
    await action()
    await wait_until(pilot, lambda: "PWNED" in screen_text_now(pilot.app), what=what)
    await pilot.pause()


async def test_a_resumed_session_its_list_and_its_inspector_show_controls_escaped(workspace: Path) -> None:
    from co_tui.tui.widgets.tool_call_block import ToolCallBlock

    sid = await hostile_session(workspace)
    app = QuietApp(load_settings(), workspace, resume_id=sid)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        await wait_idle(pilot)
        assert_clean(app)  # the title bar, the prompt, the answer
        app.chat.query_one(ToolCallBlock).collapsed = False
        await pilot.pause()
        assert_clean(app)

        await pilot.press("f2")
        await inspector_loaded(pilot)
        await pilot.pause()
        assert_clean(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.chat, what="back to the chat")

        app.commands.show_sessions()
        await wait_until(pilot, lambda: getattr(app.screen, "loaded", False), what="the sessions list")
        await pilot.pause()
        assert_clean(app)


async def test_the_events_a_session_sends_are_shown_escaped(workspace: Path, make_app: Any) -> None:
    """Tool calls, results, errors and notices through `show_event`, as a turn sends them."""
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        chat = app.chat
        await chat.show_event(ToolCall(tool_name=f"mcp_{HOSTILE}", tool_call_id="c9", args=json.dumps({"q": HOSTILE})))
        await chat.show_event(ToolResult(tool_name="mcp_x", tool_call_id="c9", content=HOSTILE, chars=99))
        await chat.show_event(Notice(message=HOSTILE))
        await chat.show_event(ErrorEvent(message=HOSTILE, kind="provider"))
        chat.show_hint(HOSTILE)
        await pilot.pause()
        assert_clean(app)
