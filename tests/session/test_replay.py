"""Replay of a conversation as chat entries is the session's (session/replay_items.py): items in order,
each banner at its cut — what the TUI mounts on resume and ACP sends on `session/load`."""

from __future__ import annotations

from pathlib import Path

from support.turns import collect, run_turn

from co_tui.config import load_settings
from co_tui.governance.events import HistoryTrimmed
from co_tui.session.chat import ChatSession
from co_tui.session.replay_items import Item


async def test_replay_puts_the_compact_banner_between_the_turns_it_follows(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\nhello\n")
    session = ChatSession(load_settings(), workspace=tmp_path)
    await run_turn(session, "read README.md")
    await collect(session.compact())
    await run_turn(session, "hello again")
    entries = session.replay()
    kinds = [e.kind if isinstance(e, Item) else e.reason for e in entries]
    assert kinds[0] == "user" and "tool" in kinds and kinds[-2:] == ["user", "assistant"]
    cut = kinds.index("manual_compact")
    assert kinds[cut + 1] == "user" and entries[cut + 1].text == "hello again"
    assert isinstance(entries[cut], HistoryTrimmed) and session.replay(2) == entries[-2:]
