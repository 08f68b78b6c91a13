"""Resuming a saved session: banners sit at their cuts, and only the newest entries are mounted."""

from __future__ import annotations

from pathlib import Path

from co_tui.tui.app import CoTuiApp
from tui_helpers import wait_until

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession
from co_tui.session.commands import open_store
from co_tui.tui.screens.chat import RESUME_ENTRIES
from co_tui.tui.widgets.trim_banner import TrimBanner
from co_tui.tui.widgets.user_message import UserMessage


async def saved_session(workspace: Path, turns: int, **settings: object) -> ChatSession:
    s = load_settings(**settings)
    session = ChatSession(s, workspace=workspace, store=open_store(s))
    for i in range(turns):
        async for _ in session.run_turn("read README.md" if i % 2 else f"hello number {i}"):
            pass
    return session


async def test_banners_at_their_cuts(workspace: Path) -> None:
    session = await saved_session(workspace, 8, context_budget_tokens=900, context_strategy="trim")
    assert len(session.ledger) >= 2, "the small budget should have cut more than once"
    app = CoTuiApp(load_settings(), workspace, resume_id=session.id)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: bool(app.chat.log_view.query(TrimBanner)))
        children = app.chat.log_view.items
        banners = [i for i, w in enumerate(children) if isinstance(w, TrimBanner)]
        users = [i for i, w in enumerate(children) if isinstance(w, UserMessage)]
        assert len(banners) == len(session.ledger)
        # The first cut happens during a later turn: its banner follows the first user prompt.
        assert banners[0] > users[0]
        assert not all(b > users[-1] for b in banners), "banners must not all pile up at the end"


async def test_long_session_mounts_only_the_newest(workspace: Path) -> None:
    session = await saved_session(workspace, 30)
    app = CoTuiApp(load_settings(), workspace, resume_id=session.id)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: bool(app.chat.log_view.query(UserMessage)))
        log = app.chat.log_view
        assert len(log.query(UserMessage)) <= RESUME_ENTRIES
        assert log.hidden_count > 0
        assert any("hello number 28" in str(w.render()) for w in log.query(UserMessage))
