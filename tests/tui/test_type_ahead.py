"""Keys typed in one burst (a fast typist, a paste read as keys) reach the prompt in order and
whole, whatever had focus; a row's own letter acts only when pressed on its own (issue 32, item 2).
The keys are posted to the app together, as its driver posts the keys of one read."""

from __future__ import annotations

from pilot_helpers import send_prompt, wait_idle, wait_ready, wait_until
from textual import events
from textual.widgets._collapsible import CollapsibleTitle

SIZE = (100, 30)


def _burst(app, *keys: str) -> None:
    """Post `keys` to the app at once; a key of one character types it, others are key names."""
    for key in keys:
        if len(key) == 1:
            app.post_message(events.Key(key, key))
        else:
            app.post_message(events.Key(key, None))


async def _settled(pilot) -> None:
    for _ in range(4):
        await pilot.pause()


async def _focus_row(pilot, kind: str) -> None:
    """Shift+tab back from the prompt until a `kind` row (TrimBanner, ToolCallBlock) has focus."""
    app = pilot.app
    for _ in range(6):
        await pilot.press("shift+tab")
        if isinstance(app.focused, CollapsibleTitle) and type(app.focused.parent).__name__ == kind:
            return
    raise AssertionError(f"no {kind} got focus")


async def test_editing_keys_in_a_burst_act_in_order(real_app) -> None:
    """Textual runs a widget's bindings (Backspace, arrows) after the key bubbled up to the app,
    behind the letters queued meanwhile: `xyz`, Backspace ×2, `abc` gave `xya`-like mixes."""
    async with real_app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        _burst(app, *"xyz", "backspace", "backspace", *"abc")
        await _settled(pilot)
        assert app.chat.prompt.text == "xabc"
        _burst(app, *["backspace"] * 4, "a", "b", "left", "c")
        await _settled(pilot)
        assert app.chat.prompt.text == "acb"


async def test_a_burst_typed_on_a_tool_row_reaches_the_prompt_whole(real_app) -> None:
    async with real_app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        await send_prompt(pilot, "read README.md")
        await _focus_row(pilot, "ToolCallBlock")
        _burst(app, "z", "backspace", *"list src")
        await _settled(pilot)
        assert app.chat.prompt.has_focus
        assert app.chat.prompt.text == "list src"


async def test_a_burst_on_a_summary_banner_is_typed_and_r_alone_recovers(real_app) -> None:
    async with real_app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        await send_prompt(pilot, "please look at notes_v7.md")
        await send_prompt(pilot, "hello there")
        await pilot.press(*"/compact", "enter")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ConfirmCompact", what="compact preview")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.chat.query("TrimBanner.-compact"), what="the compact banner")
        await wait_idle(pilot)
        assert app.chat.query_one("TrimBanner").recoverable
        await _focus_row(pilot, "TrimBanner")
        _burst(app, *"read README.md", "enter")
        await wait_until(pilot, lambda: app.chat.query("ToolCallBlock"), what="the read turn")
        await wait_idle(pilot)
        sent = [widget.text for widget in app.chat.query("UserMessage")]
        assert sent[-1] == "read README.md"
        assert type(app.screen).__name__ == "ChatScreen", "no recovery picker opened"
        # Pressed on its own, the banner's `r` is its key.
        await _focus_row(pilot, "TrimBanner")
        await pilot.press("r")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "RecoverLostScreen", what="the picker")
        assert app.chat.prompt.text == ""
