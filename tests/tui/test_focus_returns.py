"""After clicking a banner or a tool row, typed text goes to the prompt (nothing
lost, focus follows it); the focused row is visibly marked; Enter on it still opens it."""

from __future__ import annotations

from pilot_helpers import send_prompt, wait_idle, wait_ready, wait_until
from textual.widgets._collapsible import CollapsibleTitle

SIZE = (100, 30)


async def _tool_row(pilot):
    """The tool row of a `read README.md` turn, once the turn is done and drawn."""
    await wait_ready(pilot)
    await send_prompt(pilot, "read README.md")
    return pilot.app.chat.query_one("ToolCallBlock")


async def test_typing_after_clicking_a_tool_row_goes_to_the_prompt(real_app) -> None:
    async with real_app.run_test(size=SIZE) as pilot:
        app = pilot.app
        block = await _tool_row(pilot)
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
        block = await _tool_row(pilot)
        assert app.chat.prompt.has_focus and block.collapsed
        await pilot.press("shift+tab")
        assert isinstance(app.focused, CollapsibleTitle)
        await pilot.press("enter")
        assert not block.collapsed


async def test_banners_fit_a_narrow_terminal_without_cutting_words(real_app, monkeypatch) -> None:
    """At 80×24 banners are shortened at segment boundaries, not cut mid-word."""
    from co_tui.session.banner import banner_line

    monkeypatch.setenv("CO_TUI_MAX_HISTORY_MESSAGES", "8")
    from co_tui.config import load_settings

    real_app.opening.settings = load_settings()
    async with real_app.run_test(size=(80, 24)) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        for prompt in ("read README.md", "hello", "hi again", "one more", "and more"):
            await send_prompt(pilot, prompt)
        banners = list(app.chat.query("TrimBanner"))
        assert banners
        for banner in banners:
            title = banner.query_one(CollapsibleTitle)
            shown = str(banner.title)
            assert title.content_region.right <= banner.content_region.right  # drawn whole
            assert shown != banner_line(banner.event)  # the full line does not fit 80 columns
            assert shown.endswith(" · …") and banner_line(banner.event).startswith(shown[:-1])


async def test_f1_builds_the_help_once_and_opens_it_at_the_top(real_app) -> None:
    """The help's Markdown took ~2 s to lay out on every F1; it is built once
    (benchmarks/help_screen.py measures it) and each open starts at the top."""
    from co_tui.tui.screens.help import HelpScreen

    async with real_app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        first = app.screen
        body = first.query_one("#help-body")
        await wait_until(pilot, lambda: body.max_scroll_y > 0, what="the help laid out")
        body.scroll_end(animate=False)
        await wait_until(pilot, lambda: body.scroll_y > 0, what="scrolled down")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), what="closed")
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help again")
        assert app.screen is first  # not built again
        await wait_until(pilot, lambda: body.scroll_y == 0, what="back at the top")
        assert body.has_focus
