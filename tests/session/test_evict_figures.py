"""An eviction's banner starts from the figure the meter showed and ends at the one it shows after
(a walk-through read "25.7k → 22.7k" on the banner beside a meter that had shown 25.6k: evict
measured with the rules' raw estimate, unlike /compact, /clear and /undo)."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import ModelRequest, ToolReturnPart

from co_tui.config import load_settings
from co_tui.governance.markers import separate_markers
from co_tui.session.chat import ChatSession
from co_tui.store.session_store import SessionStore


async def test_the_evict_event_carries_the_meters_figures_before_and_after(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n" + "".join(f"- item {i}: the value is {i * 7}\n" for i in range(400)))
    session = ChatSession(load_settings(), workspace=tmp_path, store=SessionStore.open(tmp_path / "data"))
    for prompt in ("read notes.md", "hello", "and again"):
        [event async for event in session.run_turn(prompt)]
    shown_before = session.meter_reading().context_tokens
    assert session.meter.reading(session.context).exactness == "exact"  # anchored on the offline model's report
    context = separate_markers(session.context)
    output = next(
        i
        for i, m in enumerate(context)
        if isinstance(m, ModelRequest) and any(isinstance(p, ToolReturnPart) for p in m.parts)
    )
    event = await session.evict(output)
    assert (event.tokens_before, event.tokens_after) == (shown_before, session.meter_reading().context_tokens)
    assert session.ledger[-1].tokens_before == shown_before  # the Trims row says the same
    session.release_claim()
