"""Help screen: generated from the registry, closes on its keys, snapshot."""

from __future__ import annotations

from screen_host import TERMINAL, make_host, screen_env  # (fixtures)

from co_tui.tui.commands import COMMANDS, KEYS, PROMPT_FORMS
from co_tui.tui.key_label import key_label
from co_tui.tui.screens.help import HelpScreen
from co_tui.tui.widgets.help_text import HelpText


async def test_help_lists_every_command_and_key(make_host):
    app = make_host(HelpScreen)
    async with app.run_test(size=TERMINAL) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.query_one("#help-text", HelpText)
        source = help_text.source
        for spec in COMMANDS:
            # A `|` inside a table cell is escaped in the Markdown source.
            assert f"`{(spec.usage or spec.slash).replace('|', chr(92) + '|')}`" in source, spec.name
            assert spec.summary in source
        for key in KEYS:
            assert f"`{key_label(key.key)}`" in source, key.key
        # What is drawn: every command and key on screen, the Markdown syntax gone (one line each).
        shown = " ".join(
            " ".join(strip.text.split()) for strip in help_text.render_lines(help_text.region.reset_offset)
        )
        for spec in COMMANDS:
            assert (spec.usage or spec.slash) in shown, spec.name
        for key in KEYS:
            assert key_label(key.key) in shown, key.key
        for form in PROMPT_FORMS:  # `!command`, `@path`…: what the prompt does with what is typed
            assert f"| `{form.form}` |" in source and form.form in shown, form.form
        assert "`" not in shown and "| " not in shown and "##" not in shown


async def test_help_closes_on_escape_q_and_f1(make_host):
    for key in ("escape", "q", "f1"):
        app = make_host(HelpScreen)
        async with app.run_test(size=TERMINAL) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press(key)
            await pilot.pause()
            assert not isinstance(app.screen, HelpScreen), key
            assert app.results == [None]


async def test_help_scrolls_with_arrow_keys(make_host):
    app = make_host(HelpScreen)
    async with app.run_test(size=TERMINAL) as pilot:
        await pilot.pause()
        body = app.screen.query_one("#help-body")
        assert body.max_scroll_y > 0, "the reference is longer than one screen"
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0


def test_help_snapshot(snap_compare, make_host):
    assert snap_compare(make_host(HelpScreen), terminal_size=TERMINAL)


def test_help_end_snapshot(snap_compare, make_host):
    # The end of the reference: the governance explainer and the offline model's phrases.
    assert snap_compare(make_host(HelpScreen), terminal_size=TERMINAL, press=["end"])


def test_a_resume_with_no_body_is_no_error() -> None:
    """The app can quit in the moment /help opens: the screen is resumed with its children gone
    (this raised NoMatches in the quitting app). There is nothing to scroll or focus then."""
    HelpScreen().on_screen_resume()
