"""`!command` in the real app: the real session and store, the approval dialog answered with keys,
the command run for real, its row in the chat, its output in the offline model's next request; Esc
stops a command that never ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pilot_helpers import dialog_armed, paste, wait_idle, wait_ready, wait_until
from quiet_app import QuietApp
from support.processes import processes_in

from co_tui.config import load_settings
from co_tui.tui.screens.approval import ApprovalDialog
from co_tui.tui.widgets.notice_line import NoticeLine
from co_tui.tui.widgets.tool_call_block import ToolCallBlock
from co_tui.tui.widgets.user_message import UserMessage


def rows(app: Any) -> list[ToolCallBlock]:
    return list(app.chat.query(ToolCallBlock))


async def bang(pilot: Any, command: str) -> ApprovalDialog:
    await paste(pilot, f"!{command}")
    await pilot.press("enter")
    await dialog_armed(pilot, "ApprovalDialog")
    await pilot.pause()
    return pilot.app.screen


async def test_a_bang_command_asks_runs_and_is_context_for_the_next_turn(workspace: Path) -> None:
    app = QuietApp(load_settings(), workspace)  # allow_shell off: `!` still runs, after approval
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        dialog = await bang(pilot, "echo hello from the shell")
        assert str(dialog.query_one("#dialog-body").render()) == "You typed !, to run in the workspace:"
        await pilot.press("a")  # always: `echo …` for this session
        await wait_idle(pilot)
        [row] = rows(app)
        assert row.status == "done" and row.result_chars == len(
            "$ echo hello from the shell\nhello from the shell\n[exit code 0]"
        )
        assert "$ echo hello from the shell" in str(row.title) and "exit" not in str(row.title)
        assert [str(m.render()).strip() for m in app.chat.query(UserMessage)][-1].endswith("!echo hello from the shell")

        await paste(pilot, "!echo again")  # covered by the grant: not asked
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(rows(app)) == 2, what="the second command's row")
        await wait_idle(pilot)
        assert not isinstance(app.screen, ApprovalDialog)
        assert str(app.chat.query_one("#hint").render()).startswith("ran without asking: run_shell: `echo …`")

        context = list(app.session.context)
        meter = app.session.meter_reading().context_tokens
        assert meter > 0 and len(context) == 6
        await pilot.press("f2")  # the inspector lays the exchange out as any tool call and result
        await wait_until(pilot, lambda: getattr(app.screen, "loaded", False), what="the inspector's rows")
        table = app.screen.query("DataTable").first()
        cells = " ".join(str(cell) for i in range(table.row_count) for cell in table.get_row_at(i))
        assert "!echo hello from the shell" in cells and "user_shell: $ echo hello from the shell" in cells
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.chat, what="back to the chat")
        await paste(pilot, "what did we do so far?")
        await pilot.press("enter")
        await wait_idle(pilot)
        answer = app.session.transcript[-1].parts[0].content
        assert "echo" in answer, answer  # the offline model's recap saw the commands


async def test_a_declined_command_does_not_run(workspace: Path) -> None:
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await bang(pilot, "touch made.txt")
        await pilot.press("n")
        await wait_idle(pilot)
        assert not (workspace / "made.txt").exists() and not rows(app)
        assert not app.session.transcript
        notices = [str(w.render()) for w in app.chat.query(NoticeLine)]
        assert notices[-1] == "`touch made.txt` was not run: you declined it"
        [typed] = app.chat.query(UserMessage)
        assert typed.has_class("-unsent"), "the log does not show it as run"


async def test_esc_stops_a_command_that_never_ends(workspace: Path) -> None:
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await bang(pilot, "echo started; sleep 600")
        await pilot.press("y")
        await wait_until(pilot, lambda: processes_in(workspace), what="the command to run")
        assert app.chat.activity.label.startswith("running !echo started; sleep 600")
        await pilot.press("escape")
        await wait_idle(pilot)
        assert not processes_in(workspace), "the process group is killed"
        [row] = rows(app)
        assert row.status == "done", "an exit status is no tool error (as for run_shell): its last line says it"
        output = app.session.transcript[-1].parts[0].content
        assert output.endswith("started\n[interrupted by the user: the command was killed]")
        assert str(row.title).endswith(" · stopped"), "the row says so without being opened"


async def test_a_resumed_session_shows_the_command_as_typed_and_its_row(workspace: Path) -> None:
    """Saved and resumed: the prompt `!echo saved` and its `$ echo saved` row, from the store's rows."""
    from co_tui.session.chat import ChatSession
    from co_tui.session.opening import open_store
    from co_tui.tui.app import CoTuiApp

    async def approve(_request: object) -> str:
        return "once"

    settings = load_settings()
    session = ChatSession(settings, workspace=workspace, store=open_store(settings), ask=approve)
    async for _ in session.run_user_shell("echo saved; exit 3"):
        pass
    session.release_claim()
    app = CoTuiApp(load_settings(), workspace, resume_id=session.id)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: bool(rows(app)), what="the resumed row")
        await wait_ready(pilot)
        [row] = rows(app)
        assert "$ echo saved; exit 3" in str(row.title) and row.status == "done", "as it read live"
        assert str(row.title).endswith(" · exit 3"), "a failed command says so on its row"
        [prompt] = app.chat.query(UserMessage)
        assert str(prompt.render()).strip().endswith("!echo saved; exit 3")


async def test_ctrl_c_stops_a_command_too(workspace: Path) -> None:
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await bang(pilot, "sleep 601")
        await pilot.press("y")
        await wait_until(pilot, lambda: "sleep 601" in app.chat.activity.label, what="the command to run")
        await wait_until(pilot, lambda: bool(rows(app)), what="its row")
        await pilot.press("ctrl+c")  # the prompt is empty: it interrupts
        await wait_idle(pilot)
        assert app.session.transcript[-1].parts[0].content.endswith("[interrupted by the user: the command was killed]")


def inline_output(row: ToolCallBlock) -> str:
    """What the closed row shows under its title (the `!command`'s output head), "" when hidden."""
    shown = [w for w in row.query(".shell-output") if w.display]
    return "\n".join(str(w.render()) for w in shown)


async def test_a_bang_commands_output_shows_inline_with_its_exit_status(workspace: Path) -> None:
    """The user typed the command for its output: the first lines under the row, `+N lines` for the
    rest, how it ended; an error's text too. Opening the row hides the head (the result shows all)."""
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_ready(pilot)
        await bang(pilot, "seq 1 25")
        await pilot.press("y")
        await wait_idle(pilot)
        [row] = rows(app)
        assert row.collapsed
        assert (
            inline_output(row) == "\n".join(str(n) for n in range(1, 11)) + "\n+15 lines · enter opens the rest\nexit 0"
        )
        await bang(pilot, "ls nonexist")
        await pilot.press("y")
        await wait_idle(pilot)
        failed = rows(app)[-1]
        shown = inline_output(failed)
        assert shown.startswith("ls: ") and "nonexist" in shown and shown.endswith("\nexit 2"), shown
        failed.collapsed = False
        await wait_until(pilot, lambda: inline_output(failed) == "", what="the head hidden once opened")
