"""The approval dialog (tui/screens/approval.py) with the pilot: what it shows stays on screen,
whatever the call's length, and the answers are the keys and buttons it says."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pilot_helpers import dialog_armed, wait_ready, wait_until
from textual.widgets import Button

from co_tui.tui.screens.approval import ApprovalDialog
from co_tui.tui.widgets.call_box import CallBox

HIDDEN = "touch pwned.txt;" + "\n" * 80 + "ls -la"
LONG_MCP = "demo_wipe " + json.dumps({"path": "." * 6000 + "/notes.txt"})


async def ask(pilot: Any, command: str, tool: str = "run_shell") -> asyncio.Future[bool]:
    """Open the dialog through the session's approver, as a tool call does; the future holds the answer."""
    app = pilot.app
    await wait_ready(pilot)
    future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    async def approve() -> None:
        future.set_result(await app.approvals.approve_shell(command, tool))

    app.run_worker(approve())
    await dialog_armed(pilot, "ApprovalDialog")
    await pilot.pause()
    return future


def on_screen(app: Any, selector: str) -> bool:
    widget = app.screen.query_one(selector)
    return app.screen.region.contains_region(widget.region) and widget.region.height > 0


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
async def test_title_summary_box_and_buttons_all_stay_on_screen(make_app, size) -> None:
    """Both long calls, one after the other in one app (each denied before the next is asked)."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        for command, tool in [(HIDDEN, "run_shell"), (LONG_MCP, "demo_wipe")]:
            future = await ask(pilot, command, tool)
            for part in ("#dialog-title", "#approval-summary", "#approval-box", "#deny", "#once"):
                assert on_screen(app, part), f"{part} is off screen at {size} for {tool}"
            summary = str(app.screen.query_one("#approval-summary").render())
            assert summary.startswith(f"{tool} · ")
            await pilot.press("n")
            await wait_until(pilot, future.done, what="the answer")


ANSWERS = [(("y",), True), (("n",), False), (("escape",), False), (("enter",), False), (("ctrl+c",), False)]


async def test_keys_answer_and_a_stray_enter_denies(make_app) -> None:
    """Each answer key on a dialog of its own, asked one after the other in one app (`y` approves
    once: the next call of the same command is asked again)."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        for keys, approved in ANSWERS:
            future = await ask(pilot, "rm -rf build")
            await pilot.press(*keys)
            await wait_until(pilot, future.done, what=f"an answer to {keys}")
            assert future.result() is approved, keys
            assert not isinstance(app.screen, ApprovalDialog), keys


async def test_keys_typed_right_after_the_dialog_appears_go_to_the_prompt_not_to_the_answers(
    make_app, monkeypatch
) -> None:
    """A `y` or `a` typed a moment after the dialog opened answered it (`a`: always). While the
    answers arm, text keys go to the prompt, Enter and Esc do nothing, the buttons are disabled and
    their labels show no key. (The arming is made long here so the keys surely land inside it.)"""
    from co_tui.tui.screens import arming

    monkeypatch.setattr(arming, "ARMING_S", 3600)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        async def approve() -> None:
            future.set_result(await app.approvals.approve_shell("rm -rf build", "demo_wipe"))

        app.run_worker(approve())
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalDialog), what="the dialog")
        dialog = app.screen
        assert not dialog.armed
        await pilot.press(*"say yes", "a", "enter", "escape", "n", "ctrl+c", "backspace")
        await pilot.pause()
        assert app.screen is dialog and not future.done()
        assert app.chat.prompt.text == "say yesa"
        buttons = list(dialog.query(Button))
        assert [str(b.label) for b in buttons] == ["Deny", "Call", "Always"]
        assert all(b.disabled for b in buttons)
        await pilot.click("#always")
        await pilot.pause()
        assert not future.done()


async def test_once_armed_the_keys_answer_and_the_labels_show_them(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        future = await ask(pilot, "rm -rf build", "demo_wipe")
        labels = [str(b.label) for b in app.screen.query(Button)]
        assert labels == ["Deny (n)", "Call (y)", "Always (a)"]
        assert app.focused is app.screen.query_one("#deny", Button)
        await pilot.press("a")
        await wait_until(pilot, future.done, what="an answer")
        assert future.result() is True
        assert app.approvals.permissions.allowing("demo_wipe", "rm -rf build") is not None


async def test_markup_in_a_command_is_shown_not_applied(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, "echo [bold]hi[/bold] [@click=app.quit]x[/]")
        text = app.screen.query_one(CallBox).text
        assert text == "echo [bold]hi[/bold] [@click=app.quit]x[/]"


def test_the_arming_period_can_be_set_and_bad_values_are_ignored(monkeypatch) -> None:
    from co_tui.tui.screens.arming import ARMING_ENV, ARMING_S, arming_seconds

    monkeypatch.setenv(ARMING_ENV, "2.5")
    assert arming_seconds() == 2.5
    for bad in ("soon", "-1", "1e9", ""):
        monkeypatch.setenv(ARMING_ENV, bad)
        assert arming_seconds() == ARMING_S


async def test_what_follows_a_run_of_blank_characters_is_in_view(make_app) -> None:
    """3,000 braille blanks after `echo hello` rendered as blank rows, `; touch x` out of view
    (issue 40, item 8): the run is one counted marker and the whole command fits the box."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "echo hello" + "\u2800" * 3000 + "; touch x")
        box = app.screen.query_one(CallBox)
        assert box.text == "echo hello⟨3,000 × \\u2800⟩; touch x"
        assert box.max_scroll_y == 0 and not app.screen.query_one("#approval-more").display
        rows = ["".join(s.text for s in row) for row in app.screen._compositor.render_full_update().strips]
        assert any("; touch x" in row for row in rows)  # on the screen, not only in the box's text
