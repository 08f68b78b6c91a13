"""A resumed session's meter: anchored on the saved provider report only while that report still
describes the context (no cut since), as the live session's meter is (docs/context-governance.md)."""

from __future__ import annotations

from pathlib import Path

from support.turns import run_turn

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession
from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore


def _resume(tmp_path: Path, session: ChatSession) -> ChatSession:
    session.release_claim()
    return resume_session(
        session.settings, workspace=tmp_path, store=SessionStore.open(tmp_path / "data"), session_id=session.id
    )


async def test_resume_after_an_eviction_shows_the_context_not_the_stale_report(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\n" + "A line of the readme that the tool returns.\n" * 200)
    session = ChatSession(load_settings(), workspace=tmp_path, store=SessionStore.open(tmp_path / "data"))
    for _ in range(3):
        await run_turn(session, "read README.md")
    reported = session.meter.reading(session.context)
    assert reported.exactness == "exact"
    tool_output = next(
        i for i, m in enumerate(session.transcript) if any(p.part_kind == "tool-return" for p in m.parts)
    )
    await session.evict(tool_output)  # the newest response stays; what came before it changed
    live = session.meter.reading(session.context)
    assert live.exactness == "estimated" and live.tokens < reported.tokens - 1000

    resumed = _resume(tmp_path, session)
    figure = resumed.meter.reading(resumed.context)
    # Before the fix: 'exact' and the pre-eviction report, over a thousand tokens too high.
    assert figure.exactness == "estimated"
    assert abs(figure.tokens - live.tokens) < 0.1 * live.tokens


async def test_resume_without_a_cut_since_the_last_answer_is_exact(tmp_path: Path) -> None:
    session = ChatSession(load_settings(), workspace=tmp_path, store=SessionStore.open(tmp_path / "data"))
    await run_turn(session, "hello")
    await run_turn(session, "list")
    live = session.meter.reading(session.context)
    resumed = _resume(tmp_path, session)
    figure = resumed.meter.reading(resumed.context)
    assert (figure.exactness, figure.tokens) == ("exact", live.tokens)
