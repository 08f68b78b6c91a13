"""`compact_mode` in a real `ChatSession` on the offline model: `off` sends the context past its
message limit with no automatic cut and one notice; switching back to `auto` cuts at the next turn;
`--no-compact` and the setting reach the session."""

from __future__ import annotations

from pathlib import Path

from support.turns import collect

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession

AUTOMATIC = ("token_budget", "message_count")


def _notes(events: list) -> list[str]:
    return [e.message for e in events if e.type == "notice"]


async def test_off_never_cuts_says_so_once_and_auto_cuts_again(workspace: Path) -> None:
    session = ChatSession(
        load_settings(max_history_messages=8, compact_mode="off"), workspace=workspace, model="offline"
    )
    assert session.compact_mode == "off"
    notices: list[str] = []
    for i in range(8):
        events = await collect(session.run_turn(f"note number {i}"))
        assert events[-1].type == "done" and not events[-1].failed
        assert not [e for e in events if e.type == "history_trimmed"], "off cut automatically"
        notices += _notes(events)
        usage = [e for e in events if e.type == "usage"][-1]
        assert not usage.trim_pending  # the meter promises no cut that will not come
    assert len(session.context) == 16 > 8  # every message went out: past the limit
    [line] = notices  # said once, at the first turn past the limit
    assert "compact_mode is off" in line and "/compact-mode auto" in line
    session.set_compact_mode("auto")
    assert session.meter_reading().trim_pending
    events = await collect(session.run_turn("and now?"))
    cuts = [e for e in events if e.type == "history_trimmed"]
    assert cuts and cuts[0].reason in AUTOMATIC
    assert not _notes(events)


async def test_the_notice_comes_back_after_the_context_was_under(workspace: Path) -> None:
    session = ChatSession(
        load_settings(max_history_messages=8, compact_mode="off"), workspace=workspace, model="offline"
    )
    said = []
    for i in range(5):
        said += _notes(await collect(session.run_turn(f"q{i}")))
    assert len(said) == 1
    await collect(session.compact())  # back under the limit
    said += _notes(await collect(session.run_turn("after")))
    assert len(said) == 1
    for i in range(4):
        said += _notes(await collect(session.run_turn(f"r{i}")))
    assert len(said) == 2
