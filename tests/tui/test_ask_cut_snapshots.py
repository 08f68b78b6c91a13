"""Snapshots of the ask dialog (`compact_mode = "ask"`) at 100 and 80 columns, and with its
one-line refusal to send past the window (plain `def`: snap_compare is sync). The fake session
plans with the real planner over its scripted meter; each snapshot was converted to PNG and looked at."""

from __future__ import annotations

import pytest
from pilot_helpers import dialog_armed, paste, wait_idle, wait_ready, wait_until

from co_tui.config import Settings

PROMPTS = ["read the parser module", "why does the tokenizer drop empty fields?", "fix it", "run the tests"]


def _ask(*, refuse: bool = False):
    async def run(pilot) -> None:
        await wait_ready(pilot)
        for prompt in PROMPTS:
            await paste(pilot, prompt)
            await pilot.press("enter")
            await wait_idle(pilot)
        await paste(pilot, "and now the docs, please")
        await pilot.press("enter")
        await dialog_armed(pilot, "AskCutScreen")  # its answers arm as an approval's (screens/arming.py)
        if refuse:
            await pilot.press("o")
            line = pilot.app.screen.query_one("#ask-line")
            await wait_until(pilot, lambda: line.has_class("-refused"), what="the refusal")
            # On a loaded host the `o` can come within the arming period of the key before it and
            # disarm the answers again (screens/arming.py): the snapshot is of the dialog armed.
            await dialog_armed(pilot, "AskCutScreen")
        await pilot.pause()

    return run


def _app(make_app, budget_tokens: int = 100_000):
    return make_app(Settings(max_history_messages=8, compact_mode="ask"), budget_tokens=budget_tokens)


@pytest.mark.parametrize("size", [(100, 30), (80, 24)], ids=["100x30", "80x24"])
def test_ask_dialog(snap_compare, make_app, size):
    assert snap_compare(_app(make_app), terminal_size=size, run_before=_ask())


@pytest.mark.parametrize("size", [(100, 30), (80, 24)], ids=["100x30", "80x24"])
def test_ask_dialog_refuses_over_the_window(snap_compare, make_app, size):
    assert snap_compare(_app(make_app, 2_000), terminal_size=size, run_before=_ask(refuse=True))
