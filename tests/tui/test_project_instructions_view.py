"""Project instructions in the chat: which files were loaded (under the welcome line), a reload
between turns announced in one line, and the line again after /clear."""

from __future__ import annotations

from pathlib import Path

from pilot_helpers import wait_idle, wait_ready, wait_until
from quiet_app import QuietApp

from co_tui.config import load_settings
from co_tui.tui.widgets.notice_line import NoticeLine


def _notices(app: QuietApp) -> list[str]:
    return [widget.text for widget in app.chat.log_view.query(NoticeLine)]


async def test_loaded_files_are_named_and_an_edit_is_announced(workspace: Path) -> None:
    agents = workspace / "AGENTS.md"
    agents.write_text("Answer briefly.\n")
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await wait_idle(pilot)
        assert "Project instructions: AGENTS.md · /context shows what each request holds" in _notices(app)
        await pilot.press(*"hello", "enter")
        await wait_idle(pilot)
        assert not any("changed" in n for n in _notices(app)), "no edit, no line"
        agents.write_text("Answer briefly, in French.\n")
        await pilot.press(*"hello again", "enter")
        await wait_until(pilot, lambda: any("Project instructions changed" in n for n in _notices(app)), what="notice")
        await wait_idle(pilot)
        assert "French" in (app.session.resources.project.text or "")


async def test_without_files_there_is_no_line(workspace: Path) -> None:
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await wait_idle(pilot)
        assert not any(n.startswith("Project instructions") for n in _notices(app))


async def test_turned_off_there_is_no_line(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("Answer briefly.\n")
    app = QuietApp(load_settings(project_instructions=False), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await wait_idle(pilot)
        assert not any(n.startswith("Project instructions") for n in _notices(app))
        assert list(app.session.instruction_files) == []
