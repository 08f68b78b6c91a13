"""A session that finishes opening while the app quits (the terminal closed, ctrl+q at start-up)
is not shown on a chat screen whose widgets are already being removed."""

from __future__ import annotations

from pilot_helpers import wait_ready

from co_tui.tui.messages import SessionReady
from co_tui.tui.widgets.title_bar import TitleBar


async def test_a_session_ready_while_the_chat_screen_is_pruned_is_ignored(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        chat, session = app.chat, app.session
        # What shutting down does to the chat screen, in its first steps: flag it, remove its widgets.
        chat._pruning = True
        await chat.query_one(TitleBar).remove()
        await app.on_session_ready(SessionReady(session))  # raised NoMatches (no TitleBar) before
        assert app.session is session
        chat._pruning = False  # let run_test close the app as usual


async def test_a_switched_session_whose_showing_outlasts_the_chat_screen_is_dropped(make_app) -> None:
    """The app quits while another session is being shown (/sessions, a fork): the chat screen goes
    during one of the awaits of showing it (here: closing the previous session), and the rest of
    the showing is dropped, not raised (NoMatches on the removed log ended the app with a traceback)."""
    from tui_fakes import FakeSession

    from co_tui.tui.widgets.chat_log import ChatLog

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        chat, first = app.chat, app.session
        assert first is not None
        close = first.aclose

        async def quitting_meanwhile():  # what shutting down does while the old session closes
            chat._pruning = True
            await chat.query_one(ChatLog).remove()
            return await close()

        first.aclose = quitting_meanwhile  # type: ignore[method-assign]
        second = FakeSession(first.settings, id="b" * 32)
        await app.opening.ready(second)  # raised NoMatches (no ChatLog to clear) before
        assert app.session is second
        chat._pruning = False  # let run_test close the app as usual
