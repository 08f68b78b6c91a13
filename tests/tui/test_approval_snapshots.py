"""Snapshots of the approval dialog with the hostile calls of issue 33 item 2, at 100 and 80
columns (plain `def`: snap_compare is sync). Each was converted to PNG and looked at."""

from __future__ import annotations

import json

import pytest
from pilot_helpers import dialog_armed, wait_ready, wait_until

HIDDEN = "touch pwned.txt;" + "\n" * 80 + "ls -la"
LONG_MCP = "demo_wipe " + json.dumps({"path": "." * 6000 + "/notes.txt"})
ESCAPES = "printf 'ok'\x1b]0;pwned\x07 && rm -rf ./build" + " " * 40 + "# \u202etxt.exe"


def ask(command: str, tool: str = "run_shell"):
    async def run(pilot) -> None:
        await wait_ready(pilot)
        pilot.app.run_worker(pilot.app.approvals.approve_shell(command, tool))
        await dialog_armed(pilot, "ApprovalDialog")
        await pilot.pause()

    return run


@pytest.mark.parametrize("size", [(100, 30), (80, 24)], ids=["100x30", "80x24"])
def test_command_hidden_behind_blank_lines(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=ask(HIDDEN))


@pytest.mark.parametrize("size", [(100, 30), (80, 24)], ids=["100x30", "80x24"])
def test_mcp_call_with_a_6000_character_argument(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=ask(LONG_MCP, "demo_wipe"))


def test_while_arming_the_buttons_are_dimmed_and_show_no_keys(snap_compare, make_app, monkeypatch):
    """Before its answers arm (screens/arming.py: made long here, so the picture is of that state)."""
    from co_tui.tui.screens import arming

    monkeypatch.setattr(arming, "ARMING_S", 3600)

    async def run(pilot) -> None:
        await wait_ready(pilot)
        pilot.app.run_worker(pilot.app.approvals.approve_shell("git push --force", "run_shell"))
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "ApprovalDialog", what="the dialog")
        await pilot.press(*"thanks")  # typed on: it goes to the prompt under the dialog
        await wait_until(pilot, lambda: pilot.app.chat.prompt.text == "thanks", what="the prompt's text")
        await pilot.pause()
        assert not pilot.app.screen.armed

    assert snap_compare(make_app(), terminal_size=(100, 30), run_before=run)


def test_control_characters_and_a_space_run_made_visible(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(100, 30), run_before=ask(ESCAPES))


BEFORE = "def parse(text):\n    if text == '':\n        return None\n    return [t for t in text.split(',')]\n"
AFTER = (
    "def parse(text):\n    if not text.strip():\n        return []\n    return [t.strip() for t in text.split(',')]\n"
)


@pytest.mark.parametrize("size", [(100, 30), (80, 24)], ids=["100x30", "80x24"])
def test_edit_diff_with_allow_edits(snap_compare, make_app, size):
    from co_tui.agent.file_edits import unified_diff

    diff = unified_diff("src/parser.py", BEFORE, AFTER)

    async def run(pilot) -> None:
        await wait_ready(pilot)
        pilot.app.run_worker(pilot.app.approvals.approve_shell(diff, "edit_file", path="src/parser.py"))
        await dialog_armed(pilot, "ApprovalDialog")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=size, run_before=run)


def test_permissions_list(snap_compare, make_app):
    from co_tui.agent.permissions import offer

    async def run(pilot) -> None:
        await wait_ready(pilot)
        for tool, text in [("run_shell", "git status"), ("edit_file", ""), ("demo_wipe", "demo_wipe {}")]:
            pilot.app.approvals.permissions.grant(offer(tool, text))
        await pilot.press(*"/permissions", "enter")
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "PermissionsScreen", what="screen")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(100, 30), run_before=run)
