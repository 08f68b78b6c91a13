"""Ctrl+C as Claude Code and Codex users expect (issue 32, item 10): it clears the prompt when it
has text (Up brings it back), interrupts a running answer when the prompt is empty, and quits on
a second press in a row; the first press says so. It said "press ctrl+q" instead."""

from __future__ import annotations

from pilot_helpers import wait_idle, wait_ready, wait_until
from tui_fakes import Hold, Text

SIZE = (100, 30)


def _hint(app) -> str:
    return str(app.chat.query_one("#hint").render())


def _script(prompt: str):
    return [Text("Working on it."), Hold()] if prompt == "hold on" else [Text(f"You said: {prompt}")]


async def test_ctrl_c_clears_then_quits_on_a_second_press(make_app) -> None:
    app = make_app(script=_script)
    app.quit_window_s = 600.0  # the window outlasts any loaded machine: presses "in a row" are, here
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"half a thought")
        await pilot.press("ctrl+c")
        assert app.chat.prompt.text == ""
        assert "ctrl+c again quits" in _hint(app)
        assert app.is_running
        await pilot.press("up")
        assert app.chat.prompt.text == "half a thought", "the cleared text is in prompt recall"
        # Another key between two presses: no quit.
        await pilot.press("ctrl+c", "x", "ctrl+c")
        assert app.is_running and app.chat.prompt.text == ""
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.is_running, what="the app to quit")


async def test_ctrl_c_on_an_empty_prompt_interrupts_the_running_answer(make_app) -> None:
    app = make_app(script=_script)
    app.quit_window_s = 600.0  # the hint is read after the turn ends, however long that takes
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"hold on", "enter")
        await wait_until(pilot, lambda: app.busy and app.chat.query("AssistantMessage"), what="the answer begun")
        await pilot.press("ctrl+c")
        await wait_idle(pilot)
        assert not app.busy and app.is_running
        assert app.chat.log_view.query("ErrorBlock.-interrupted"), "the turn ends as Esc ends it"
        assert "interrupted · ctrl+c again quits" in _hint(app)


async def test_a_second_ctrl_c_after_the_window_closed_does_not_quit(make_app) -> None:
    """The hint goes when the quit window closes (a Textual timer), and a ctrl+c after that starts
    over: it says "ctrl+c again quits" again instead of quitting (issue 43 item 4: 20 s later quit)."""
    app = make_app(script=_script)
    app.quit_window_s = 0.3  # short, so the wait below is short; the test waits on the hint, not on time
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+c")
        assert _hint(app) == "ctrl+c again quits"
        await wait_until(pilot, lambda: _hint(app) == "", what="the hint gone as the window closes")
        app.quit_window_s = 600.0  # the next window outlasts any slow machine
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running and _hint(app) == "ctrl+c again quits", "a fresh first press"
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.is_running, what="the app to quit")
