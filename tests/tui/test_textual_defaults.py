"""Textual's own defaults do not speak for co-tui (issue 43 item 11): Ctrl+C in the history
inspector closes it (it said "Do you want to quit? Press ctrl+q"), and the palette's Screenshot
saves to the data dir and says where (it said "Failed to save screenshot")."""

from __future__ import annotations

from pathlib import Path

from pilot_helpers import inspector_loaded, send_prompt, wait_ready, wait_until


def _notices(app) -> list[str]:
    return [f"{n.title or ''} {n.message}" for n in app._notifications]


async def test_ctrl_c_in_the_inspector_closes_it_and_says_nothing_of_quitting(real_app) -> None:
    async with real_app.run_test(size=(100, 30)) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        await send_prompt(pilot, "hello")
        await pilot.press("f2")
        await inspector_loaded(pilot)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app.screen is app.chat, what="the inspector closed")
        assert not any("quit" in line.lower() for line in _notices(app)), _notices(app)
        assert app.is_running


async def test_the_palettes_screenshot_saves_to_the_data_dir_and_says_where(real_app, tmp_path: Path) -> None:
    async with real_app.run_test(size=(100, 30)) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        [command] = [c for c in app.get_system_commands(app.screen) if c.title == "Screenshot"]
        command.callback()
        folder = app.settings.resolved_data_dir / "screenshots"
        await wait_until(pilot, lambda: any("screenshot saved to" in line for line in _notices(app)), what="the line")
        [saved] = list(folder.glob("*.svg"))
        assert any(str(saved) in line for line in _notices(app)), _notices(app)
        assert saved.read_text().lstrip().startswith("<svg")
