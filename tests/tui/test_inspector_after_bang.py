"""Issue 43 item 14: the history inspector after `!` commands. pydantic-ai sends a `!command`'s
output in one request with the next prompt: the In context tab showed that request as one row (50
rows beside the transcript's 56 with no cut) under the new prompt's turn, while the Transcript tab
numbered the output with its own command's turn. Now both tabs count and number the same messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pilot_helpers import dialog_armed, inspector_loaded, paste, wait_idle, wait_ready
from quiet_app import QuietApp

from co_tui.config import load_settings


async def _bang(pilot: Any, command: str) -> None:
    await paste(pilot, f"!{command}")
    await pilot.press("enter")
    await dialog_armed(pilot, "ApprovalDialog")
    await pilot.press("y")
    await wait_idle(pilot)


async def _prompt(pilot: Any, text: str) -> None:
    await paste(pilot, text)
    await pilot.press("enter")
    await wait_idle(pilot)


def _rows(screen: Any, table: str) -> list[tuple[str, str, str]]:
    """(turn, kind, preview) of every row of a message table."""
    rows = screen._rows.context if table == "context" else screen._rows.transcript
    return [(str(r.turn), r.kind, r.preview) for r in rows]


async def test_in_context_and_transcript_count_and_number_the_same_messages(workspace: Path) -> None:
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(110, 34)) as pilot:
        await wait_ready(pilot)
        await _bang(pilot, "echo first")
        await _prompt(pilot, "hello")
        await _bang(pilot, "echo second")
        await _bang(pilot, "echo third")
        await _prompt(pilot, "list .")
        assert not app.session.ledger, "no cut: everything is in context"
        sent, kept = len(app.session.context), len(app.session.transcript)
        assert sent < kept  # the outputs ride in the next prompt's request
        await pilot.press("f2")
        await inspector_loaded(pilot)
        screen = app.screen
        context, transcript = _rows(screen, "context"), _rows(screen, "transcript")
        assert context == transcript  # one row per message, each with the transcript's turn
        tabs = screen.query_one("#history-tabs")
        assert str(tabs.get_tab("context").label) == f"In context ({kept})"
        assert str(tabs.get_tab("transcript").label) == f"Transcript ({kept})"
        totals = str(screen.query_one("#history-totals").render())
        assert f"In context  {kept} messages ({sent}/500 as sent) · " in totals, totals
        assert f"Transcript  {kept} messages" in totals, totals
