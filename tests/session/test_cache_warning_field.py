"""The first eviction's prompt-cache warning is a field of its `history_trimmed` event
(`cache_warning`), filled by the session: every front end shows it from the field, never by finding
its words in the note, and an ordinary event's jsonl line does not carry it."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ToolReturnPart
from support.turns import run_turn

from co_tui.acp.updates import Calls, replayed
from co_tui.config import load_settings
from co_tui.governance.markers import separate_markers
from co_tui.print_mode import _write_event
from co_tui.session import cut_message  # the public face, as ACP: the module of that name is not imported
from co_tui.session.banner import banner_details
from co_tui.session.chat import ChatSession
from co_tui.session.eviction import evict_line
from co_tui.session.export import trim_banner
from co_tui.session.replay_items import replay
from co_tui.store.session_store import SessionStore


@pytest.fixture
async def evicted(tmp_path: Path):
    """A saved session after a README read and a chat whose read output was evicted, then the
    chat's turn too: the session's two evictions, in order."""
    (tmp_path / "README.md").write_text("# demo\n" + "A line of the readme.\n" * 60)
    session = ChatSession(load_settings(), workspace=tmp_path, store=SessionStore.open(tmp_path / "data"))
    for prompt in ("read README.md", "hello there", "what time is it"):
        await run_turn(session, prompt)
    context = separate_markers(session.context)
    output = next(
        i
        for i, m in enumerate(context)
        if isinstance(m, ModelRequest) and any(isinstance(p, ToolReturnPart) for p in m.parts)
    )
    first = await session.evict(output)
    hello = next(i for i, m in enumerate(separate_markers(session.context)) if "hello there" in str(m.parts[0]))
    second = await session.evict(hello)
    return session, first, second


async def test_the_session_fills_the_field_on_the_first_eviction_only(evicted) -> None:
    _, first, second = evicted
    assert first.cache_warning is not None and "prompt cache" in first.cache_warning
    assert "prompt cache" not in (first.note or ""), "the note says what went, the field the warning"
    assert second.cache_warning is None
    assert json.loads(json.dumps(first.to_dict()))["cache_warning"] == first.cache_warning
    assert "cache_warning" not in second.to_dict(), "an ordinary line stays as it was"


async def test_front_ends_show_the_field_not_words_in_the_note(evicted) -> None:
    session, first, second = evicted
    # A warning in other words, in the field only: a front end that looked for the old text in the
    # note would miss it.
    warned = replace(first, cache_warning="the cache breaks here (test wording)")
    assert evict_line(warned).endswith("Note: the cache breaks here (test wording).")
    assert evict_line(second) == evict_line(replace(second, cache_warning=None))
    assert ("prompt cache", "the cache breaks here (test wording)") in banner_details(warned)
    assert "the cache breaks here (test wording)" in cut_message(warned, undoable=True)
    assert "the cache breaks here (test wording)" in trim_banner(warned)

    out, err = io.StringIO(), io.StringIO()
    _write_event(warned, "text", out, err)
    assert err.getvalue().splitlines()[1] == "  note: the cache breaks here (test wording)"
    _write_event(second, "text", out, err)
    assert "note:" not in err.getvalue().splitlines()[-1]

    # ACP: a saved session's replay says the first eviction's warning, once.
    cuts = [e for e in replay(session) if getattr(e, "reason", None) == "manual_evict"]
    texts = [u.content.text for cut in cuts for u in replayed(cut, Calls(workspace=Path(".")))]
    assert sum(first.cache_warning in t for t in texts) == 1


async def test_jsonl_carries_the_field_only_when_set(evicted) -> None:
    _, first, second = evicted
    lines = []
    for event in (first, second):
        out = io.StringIO()
        _write_event(event, "jsonl", out, io.StringIO(), session_id="s1")
        lines.append(json.loads(out.getvalue()))
    assert lines[0]["cache_warning"] == first.cache_warning
    assert "cache_warning" not in lines[1]
    # The ordinary line: the fields it always had, nothing new.
    assert set(lines[1]) == set(type(second).__dataclass_fields__) - {"cache_warning", "agent", "delegation"}
