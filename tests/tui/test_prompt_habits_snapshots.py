"""Snapshots of `!command` and `@path` in the chat (issue 32 items 11 and 12), reached by typing as a
user does, against the scripted FakeSession (whose `!command` runs for real in the test workspace)."""

from __future__ import annotations

from pilot_helpers import wait_idle, wait_ready, wait_until

from co_tui.tui.widgets.tool_call_block import ToolCallBlock

SIZE = (100, 30)


def test_bang_command_row_expanded(snap_compare, make_app):
    """`!cat README.md` approved once: the prompt as typed, the `$ cat README.md` row, expanded."""

    async def run(pilot) -> None:
        await wait_ready(pilot)
        await pilot.press(*"!cat README.md", "enter")
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "ApprovalDialog", what="dialog")
        await pilot.press("y")
        await wait_idle(pilot)
        row = pilot.app.chat.query_one(ToolCallBlock)
        row.collapsed = False
        await wait_idle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)


def test_bang_command_approval(snap_compare, make_app):
    """The approval of a `!command` says the user typed it (not "the model asked"). Asked through the
    app's approver as the session asks it, with no job running (its spinner would move)."""

    async def run(pilot) -> None:
        await wait_ready(pilot)
        pilot.app.run_worker(pilot.app.approve_shell("git status --short", by_user=True))
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "ApprovalDialog", what="dialog")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)
