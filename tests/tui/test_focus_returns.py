"""Issue 12 item 6: after clicking a banner or a tool row, typed text goes to the prompt (nothing
lost, focus follows it); the focused row is visibly marked; Enter on it still opens it."""

from __future__ import annotations

from pilot_helpers import wait_idle, wait_ready
from textual.widgets._collapsible import CollapsibleTitle

SIZE = (100, 30)


async def test_typing_after_clicking_a_tool_row_goes_to_the_prompt(real_app) -> None:
    async with real_app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        await pilot.press(*"read README.md", "enter")
        await wait_idle(pilot)
        block = app.chat.query_one("ToolCallBlock")
        title = block.query_one(CollapsibleTitle)
        await pilot.click(title)
        await pilot.pause()
        assert app.focused is title and not block.collapsed  # the click opened it and focused it
        unfocused_background = app.chat.prompt.styles.background
        assert title.styles.background != unfocused_background  # focus is visible
        await pilot.press(*"what next")
        assert app.chat.prompt.has_focus
        assert app.chat.prompt.text == "what next"
        assert not block.collapsed  # typing did not toggle the row
        # Enter on a focused row still opens and closes it.
        title.focus()
        await pilot.press("enter")
        assert block.collapsed and app.chat.prompt.text == "what next"


async def test_tab_reaches_a_row_and_enter_opens_it(real_app) -> None:
    async with real_app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        await pilot.press(*"read README.md", "enter")
        await wait_idle(pilot)
        block = app.chat.query_one("ToolCallBlock")
        assert app.chat.prompt.has_focus and block.collapsed
        await pilot.press("shift+tab")
        assert isinstance(app.focused, CollapsibleTitle)
        await pilot.press("enter")
        assert not block.collapsed
