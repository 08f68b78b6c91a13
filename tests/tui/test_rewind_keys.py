"""Esc Esc, /rewind and /branches on the real session (offline model, SQLite store): the picker,
choosing a prompt (its text back in the input, the conversation rewound, a banner), Esc leaving
everything as it was, the tree and switching back, and putting files back with the conversation."""

from __future__ import annotations

import pytest
from pilot_helpers import dialog_armed, send_prompt, wait_idle, wait_ready, wait_until
from textual.widgets import OptionList

SIZE = (110, 34)


@pytest.fixture
def app(real_app):
    return real_app


def _banners(pilot, kind: str) -> list:
    return list(pilot.app.chat.query(f"TrimBanner.-{kind}"))


def _hint(pilot) -> str:
    return str(pilot.app.chat.query_one("#hint").render())


def _screen(pilot) -> str:
    return type(pilot.app.screen).__name__


async def test_esc_esc_opens_the_picker_and_choosing_a_prompt_rewinds_to_it(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "hello")
        before_second = list(app.session.context)
        await send_prompt(pilot, "read README.md")
        await send_prompt(pilot, "and now something else")
        left = list(app.session.context)

        await pilot.press("escape", "escape")
        await wait_until(pilot, lambda: _screen(pilot) == "RewindScreen", what="the rewind picker")
        options = app.screen.query_one(OptionList)
        rows = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert [r.split(" · ")[0] for r in rows] == ["turn 3", "turn 2", "turn 1"], "newest first"
        assert "read README.md" in rows[1] and rows[1].endswith("tokens then")
        files = str(app.screen.query_one("#rewind-files").render())
        assert "run_shell or MCP tools cannot be put back" in files

        await pilot.press("escape")  # Esc leaves everything as it was
        await wait_until(pilot, lambda: _screen(pilot) == "ChatScreen", what="back to the chat")
        assert list(app.session.context) == left and not _banners(pilot, "branch")

        await send_prompt(pilot, "/rewind")
        await wait_until(pilot, lambda: _screen(pilot) == "RewindScreen", what="the picker again")
        await pilot.press("down", "enter")  # turn 2
        await wait_until(pilot, lambda: _banners(pilot, "branch"), what="the rewind banner")
        await wait_idle(pilot)
        assert app.chat.prompt.text == "read README.md", "the prompt is back in the input to edit"
        assert list(app.session.context) == before_second, "the context exactly as before that prompt"
        banner = _banners(pilot, "branch")[-1]
        assert banner.event.reason == "rewind" and "Conversation rewound" in str(banner.title)

        await pilot.press("ctrl+a", *" again", "enter")  # edit and resend: on the new branch
        await wait_idle(pilot)
        assert app.session.history.branch == 1 and len(app.session.rewind_points()) == 2

        await send_prompt(pilot, "/branches")
        await wait_until(pilot, lambda: _screen(pilot) == "BranchesScreen", what="the branches")
        tree = app.screen.query_one(OptionList)
        lines = [str(tree.get_option_at_index(i).prompt) for i in range(tree.option_count)]
        assert lines[0].startswith("○ branch 0 · the first · 3 turns")
        assert lines[1].startswith("● └ branch 1 · rewound to turn 2 of branch 0 · 2 turns")
        await pilot.press("up", "enter")
        await wait_until(pilot, lambda: app.session.history.branch == 0, what="the switch")
        await wait_idle(pilot)
        assert list(app.session.context) == left, "branch 0 exactly as it was left"
        assert _banners(pilot, "branch")[-1].event.reason == "branch_switch"


async def test_a_single_esc_or_esc_with_text_does_not_rewind(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "hello")
        await pilot.press("escape")
        assert "esc again" in _hint(pilot)
        await pilot.press("x", "backspace", "escape")  # another key between: armed again, not opened
        assert _screen(pilot) == "ChatScreen"
        await pilot.press("a", "escape", "escape")  # text in the prompt: esc never rewinds
        assert _screen(pilot) == "ChatScreen" and app.chat.prompt.text == "a"


async def test_rewinding_past_a_file_edit_offers_to_put_the_file_back(app, workspace):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "hello")
        await pilot.press(*"write hello to notes.txt", "enter")
        await dialog_armed(pilot, "ApprovalDialog", "the edit's approval")
        await pilot.press("y")
        await wait_idle(pilot)
        assert (workspace / "notes.txt").read_text() == "hello\n"
        await send_prompt(pilot, "/rewind")
        await wait_until(pilot, lambda: _screen(pilot) == "RewindScreen", what="the picker")
        assert "1 file edit after it can be put back (notes.txt)" in str(app.screen.query_one("#rewind-files").render())
        await pilot.press("enter")  # turn 2, the edit's
        await wait_until(pilot, lambda: _screen(pilot) == "RewindWhatScreen", what="what to put back")
        await pilot.press("enter")  # conversation and code
        await wait_until(pilot, lambda: _banners(pilot, "branch"), what="the rewind banner")
        await wait_idle(pilot)
        assert not (workspace / "notes.txt").exists(), "the file the edit created is gone"
        assert app.chat.prompt.text == "write hello to notes.txt"
        notices = " ".join(str(n.render()) for n in app.chat.query("NoticeLine"))
        assert "put back 1 file (notes.txt)" in notices


async def test_fork_opens_a_new_session_and_f_in_the_picker_forks_from_an_earlier_prompt(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "hello")
        await send_prompt(pilot, "read README.md")
        source, left = app.session.id, list(app.session.context)
        await send_prompt(pilot, "/fork a second try")
        await wait_until(pilot, lambda: app.session is not None and app.session.id != source, what="the fork")
        await wait_idle(pilot)
        assert app.session.title == "a second try"
        assert [m.kind for m in app.session.context] == [m.kind for m in left]
        notices = lambda: " ".join(str(n.render()) for n in app.chat.query("NoticeLine"))  # noqa: E731
        assert f"Forked from “hello” ({source[:8]})" in notices()
        fork_id = app.session.id

        await send_prompt(pilot, "/rewind")
        await wait_until(pilot, lambda: _screen(pilot) == "RewindScreen", what="the picker")
        await pilot.press("down", "f")  # turn 1: a new session from before it
        await wait_until(pilot, lambda: app.session.id not in (source, fork_id), what="the second fork")
        await wait_idle(pilot)
        assert not app.session.transcript and app.chat.prompt.text == "hello"
        metas = {m.id: m for m in app.session.catalog.list_sessions()}
        assert metas[app.session.id].forked_from == fork_id and metas[fork_id].forked_from == source


async def test_rewind_and_branches_are_refused_in_one_line_while_a_turn_runs(make_app):
    from tui_fakes import Hold

    app = make_app(script=lambda prompt: [Hold()])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"hello", "enter")
        await wait_until(pilot, lambda: app.busy, what="the turn to run")
        for command in ("/rewind", "/branches", "/fork"):
            app.chat.prompt.load_text(command)
            await pilot.press("enter")
            await wait_until(pilot, lambda: "a turn is running" in _hint(pilot), what=f"{command}'s refusal")
            assert _screen(pilot) == "ChatScreen" and "\n" not in _hint(pilot).strip()
            app.chat.clear_hint()
        await pilot.press("escape")  # interrupts; never opens the picker while a turn runs
        await wait_idle(pilot)
        assert _screen(pilot) == "ChatScreen"
