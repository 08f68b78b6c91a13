"""The chat follows new output unless the user scrolled up (issue 32, item 3): expanding a tool
row with Enter scrolled it into view, which Textual counts as the user leaving the end, and a
later answer streamed off-screen. When the chat does not follow, a hint says there is more below."""

from __future__ import annotations

from pilot_helpers import send_prompt, wait_idle, wait_ready, wait_until
from textual import events
from textual.widgets._collapsible import CollapsibleTitle
from tui_fakes import Hold, Text

SIZE = (100, 30)


async def _wheel_up(pilot, log) -> None:
    """One turn of the mouse wheel up over the middle of the log, as the terminal reports it."""
    region = log.region
    x, y = region.x + region.width // 2, region.y + region.height // 2
    pilot.app.post_message(events.MouseScrollUp(None, x, y, 0, 0, 0, False, False, False, screen_x=x, screen_y=y))
    await pilot.pause()


def _at_end(log) -> bool:
    return log.scroll_y >= log.max_scroll_y


async def _expand_the_tool_row(pilot) -> None:
    """`read README.md` (a long file), then Shift+Tab to its row and Enter: the row opens."""
    app = pilot.app
    await send_prompt(pilot, "read README.md")
    await pilot.press("shift+tab")
    assert isinstance(app.focused, CollapsibleTitle)
    await pilot.press("enter")
    block = app.chat.query_one("ToolCallBlock")
    await wait_until(pilot, lambda: not block.collapsed, what="the row open")
    await wait_idle(pilot)


async def test_the_chat_follows_a_new_answer_after_a_tool_row_was_opened(real_app, workspace) -> None:
    (workspace / "README.md").write_text("".join(f"line {n} of a long README\n" for n in range(200)))
    async with real_app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        await _expand_the_tool_row(pilot)
        log = app.chat.log_view
        await pilot.press(*"help", "enter")  # typed keys go back to the prompt; the answer is long
        await wait_idle(pilot)
        await wait_until(pilot, lambda: _at_end(log), what="the log to follow the answer to its end")
        assert not app.chat.query_one("#below-hint").display


def _held_script(prompt: str):
    if prompt == "hold on":  # an answer that waits until Esc: output arrives at a known point
        return [Text("Let me think about it."), Hold()]
    return [Text("\n\n".join(f"Paragraph {n} of the answer to {prompt}." for n in range(12)))]


async def test_scrolled_up_the_chat_stays_and_says_there_is_more_below(make_app) -> None:
    """The user scrolls up while an answer runs: the view stays, a hint says new output is below
    (the interrupted line, added after); ctrl+end jumps to the end, sending a prompt follows again."""
    async with make_app(script=_held_script).run_test(size=SIZE) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        for prompt in ("hello", "help"):
            await send_prompt(pilot, prompt)
        log = app.chat.log_view
        hint = app.chat.query_one("#below-hint")
        assert _at_end(log) and not hint.display
        await pilot.press(*"hold on", "enter")
        await wait_until(pilot, lambda: len(app.chat.query("AssistantMessage")) == 3, what="the answer begun")
        await wait_until(pilot, lambda: _at_end(log), what="the answer in view")
        await _wheel_up(pilot, log)
        await _wheel_up(pilot, log)
        top = log.scroll_y
        assert not _at_end(log)
        await pilot.press("escape")
        await wait_idle(pilot)
        assert log.scroll_y == top, "the user's place is kept"
        await wait_until(pilot, lambda: "new output below" in str(hint.render()), what="new output below")
        assert hint.display
        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: _at_end(log) and not hint.display, what="the jump to the end")
        await _wheel_up(pilot, log)
        assert hint.display and not _at_end(log)
        await send_prompt(pilot, "hello once more")
        assert _at_end(log) and not hint.display, "sending follows again"


async def test_page_keys_scroll_the_chat_while_the_prompt_has_focus(make_app) -> None:
    """PgUp, Shift+PgUp and Ctrl+Home scroll the chat up from the prompt (the prompt keeps the
    focus and its text); PgDn back down to the end follows new output again."""
    async with make_app(script=_held_script).run_test(size=SIZE) as pilot:
        app = pilot.app
        await wait_ready(pilot)
        for prompt in ("hello", "help", "more"):
            await send_prompt(pilot, prompt)
        log = app.chat.log_view
        prompt = app.chat.query_one("PromptInput")
        await pilot.press(*"draft")
        assert _at_end(log) and app.focused is prompt
        await pilot.press("pageup")
        await wait_until(pilot, lambda: not _at_end(log), what="a page up")
        first = log.scroll_y
        await pilot.press("shift+pageup")
        await wait_until(pilot, lambda: log.scroll_y < first, what="another page up")
        await pilot.press("ctrl+home")
        await wait_until(pilot, lambda: log.scroll_y == 0, what="the start of the chat")
        assert app.focused is prompt and prompt.text == "draft"
        for _ in range(40):
            if _at_end(log):
                break
            await pilot.press("pagedown")
            await pilot.pause()
        await wait_until(pilot, lambda: _at_end(log) and log.following, what="the end, following again")
        assert prompt.text == "draft"
