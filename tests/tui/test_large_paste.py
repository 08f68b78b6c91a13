"""A huge paste stays out of the TextArea (which froze for ~a minute laying out 5 MB) and is sent whole."""

from __future__ import annotations

from pilot_helpers import wait_idle, wait_ready, wait_until
from textual import events
from tui_fakes import Text

from co_tui.tui.format import TEXT_LAYOUT_MAX
from co_tui.tui.widgets.user_message import UserMessage

BIG = "".join(f"line {i:06d} of a large log file pasted into the prompt\n" for i in range(100_000))  # 5.5 MB


async def test_a_5mb_paste_is_held_compactly_and_sent_whole(make_app) -> None:
    assert len(BIG) > 5_000_000
    app = make_app(script=lambda prompt: [Text(f"got {len(prompt):,} characters")])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        prompt = app.chat.prompt
        prompt.focus()
        await pilot.press(*"look at this: ")
        app.post_message(events.Paste(BIG))
        await wait_until(pilot, lambda: "[pasted" in prompt.text, what="the paste placeholder")
        assert prompt.text == "look at this: [pasted 5.5 MB, 100,000 lines #1]"
        assert prompt.document.line_count == 1
        await pilot.press("enter")
        await wait_idle(pilot)
        assert app.session.prompts == ["look at this: " + BIG.strip()]
        assert prompt.text == ""
        shown = str(app.chat.query_one(UserMessage).render())
        assert (
            shown.startswith("look at this: line 000000") and "99,980 more lines (5.5 MB in all, sent in full)" in shown
        )


async def test_a_small_paste_goes_in_as_text(make_app) -> None:
    small = "a\nb\n" * 10
    assert len(small) < TEXT_LAYOUT_MAX
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        app.chat.prompt.focus()
        app.post_message(events.Paste(small))
        await wait_until(pilot, lambda: app.chat.prompt.text == small, what="the pasted text")


async def test_a_paste_with_terminal_line_breaks_is_held_as_lines(make_app) -> None:
    """Terminals paste line breaks as CR (tmux, xterm): a 50 KB paste of 3,000 lines read
    `[pasted 50 KB, 1 line #1]`, the log ran its lines together and the model got CRs; and a
    paste under 1 MB said "0.0 MB in all"."""
    lines = [f"line number {i}" for i in range(1, 3001)]
    app = make_app(script=lambda prompt: [Text("ok")])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        prompt = app.chat.prompt
        prompt.focus()
        app.post_message(events.Paste("\r".join(lines) + "\r"))
        await wait_until(pilot, lambda: "[pasted" in prompt.text, what="the paste placeholder")
        assert prompt.text == "[pasted 50 KB, 3,000 lines #1]"
        await pilot.press("enter")
        await wait_idle(pilot)
        assert app.session.prompts == ["\n".join(lines)]
        shown = str(app.chat.query_one(UserMessage).render())
        assert shown.splitlines()[:2] == ["line number 1", "line number 2"]
        assert shown.endswith("… 2,980 more lines (50 KB in all, sent in full)")


def test_one_huge_line_is_said_in_characters() -> None:
    from co_tui.tui.widgets.user_message import shown_text

    shown = shown_text("x" * 30_000)
    assert shown == "x" * 2_000 + "\n… 28,000 more characters (30 KB in all, sent in full)"
