"""Snapshots of `!command` and `@path` in the chat (issue 32 items 11 and 12), reached by typing as a
user does, against the scripted FakeSession (whose `!command` runs for real in the test workspace)."""

from __future__ import annotations

import pytest
from pilot_helpers import dialog_armed, wait_idle, wait_ready, wait_until

from co_tui.tui.widgets.tool_call_block import ToolCallBlock

SIZE = (100, 30)


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    return {
        "README.md": "# Demo\n\nA small demo workspace.\n",
        "docs/guide.md": "# Guide\n",
        "src/parser.py": "def parse(text):\n    return text.split()\n",
        "src/lexer.py": "def lex(text):\n    return list(text)\n",
        "node_modules/left_out.js": "",
    }


def test_bang_command_row_expanded(snap_compare, make_app):
    """`!cat README.md` approved once: the prompt as typed, the `$ cat README.md` row, expanded."""

    async def run(pilot) -> None:
        await wait_ready(pilot)
        await pilot.press(*"!cat README.md", "enter")
        await dialog_armed(pilot, "ApprovalDialog")
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
        pilot.app.run_worker(pilot.app.approvals.approve_shell("git status --short", by_user=True))
        await dialog_armed(pilot, "ApprovalDialog")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)


def test_path_completion_list(snap_compare, make_app):
    """`explain @` typed: the workspace's folders, then its files (no node_modules)."""

    async def run(pilot) -> None:
        await wait_ready(pilot)
        await pilot.press(*"explain @")
        await wait_until(pilot, lambda: pilot.app.chat.query_one("PathPopup").is_open, what="path popup")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)


def test_path_completion_into_a_folder_and_the_meter(snap_compare, make_app):
    """`@src/parser.py` chosen (tab into src/, enter on the file): the meter says what it will add."""

    async def run(pilot) -> None:
        await wait_ready(pilot)
        await pilot.press(*"what does @sr", "tab", "down", "enter", *"do?")
        await wait_until(pilot, lambda: pilot.app.chat.meter.attaching > 0, what="the attachment priced")
        await pilot.press(*" and @")
        await wait_until(pilot, lambda: pilot.app.chat.query_one("PathPopup").is_open, what="path popup")
        await pilot.press(*"docs/")
        await wait_until(
            pilot, lambda: pilot.app.chat.query_one("PathPopup").matches == ["docs/guide.md"], what="docs' entries"
        )
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)
