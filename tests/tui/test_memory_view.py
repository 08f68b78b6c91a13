"""`#note` and `/memory` in the real app: the real session, real files in tmp_path, the approval
dialog answered with keys, the `/memory` screen editing and deleting with its keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pilot_helpers import dialog_armed, paste, wait_ready, wait_until
from quiet_app import QuietApp

from co_tui.config import load_settings
from co_tui.tui.screens.memory import MemoryScreen
from co_tui.tui.widgets.notice_line import NoticeLine


def notices(app: Any) -> list[str]:
    return [str(n.render()) for n in app.chat.query(NoticeLine)]


async def remember(pilot: Any, text: str) -> Any:
    await paste(pilot, text)
    await pilot.press("enter")
    await dialog_armed(pilot, "ApprovalDialog")
    return pilot.app.screen


async def test_hash_note_shows_line_and_file_then_memory_edits_and_deletes(workspace: Path) -> None:
    app = QuietApp(load_settings(), workspace)
    memory_file = workspace / ".co-tui" / "memory.md"
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        dialog = await remember(pilot, "#use uv, not pip")
        body = str(dialog.query_one("#dialog-body").render())
        assert body == f"You typed #: add this line to {memory_file}"
        assert [line.plain for line in dialog.shown.lines] == ["- use uv, not pip"]  # the exact line
        assert not dialog.query("#always"), "your own # offers no always"
        await pilot.press("y")
        await wait_until(pilot, lambda: any("Remembered in" in n for n in notices(app)), what="the confirmation")
        assert "Remembered in .co-tui/memory.md:5: use uv, not pip" in notices(app)
        assert memory_file.read_text().endswith("- use uv, not pip\n")
        assert "- use uv, not pip" in (app.session.resources.instructions_text or "")

        dialog = await remember(pilot, "#a second note")
        await pilot.press("n")  # declined: not written, a hint says so
        await wait_until(pilot, lambda: app.screen is app.chat, what="back to the chat")
        await wait_until(
            pilot, lambda: "not remembered: declined" in str(app.chat.query_one("#hint").render()), what="the hint"
        )
        assert "second" not in memory_file.read_text()
        memory_file.write_text(memory_file.read_text() + "- a note from \x1b]0;evil\x07 the repo\n")

        await paste(pilot, "/memory")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryScreen) and app.screen.entries, what="/memory")
        screen = app.screen
        listed = screen.query_one("#memory-list")
        rows = [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]
        assert rows == [
            ".co-tui/memory.md:5  use uv, not pip",
            ".co-tui/memory.md:6  a note from \\x1b]0;evil\\x07 the repo",  # escaped, never obeyed
        ]
        assert "E / Enter edit · D / Del delete · Esc close" in str(screen.query_one("#memory-footer").render())
        await pilot.press("e")
        await wait_until(pilot, lambda: screen.editing is not None, what="the edit field")
        await pilot.press(*" for everything")  # typed at the end of the note, not over it
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.editing is None, what="the edit saved")
        assert "- use uv, not pip for everything\n" in memory_file.read_text()
        await pilot.press("down", "d")
        await wait_until(pilot, lambda: len(screen.entries) == 1, what="the note deleted")
        assert "the repo" not in memory_file.read_text()
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.chat, what="back to the chat")
        assert "use uv, not pip for everything" in (app.session.resources.instructions_text or "")
