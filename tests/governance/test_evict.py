"""evict: the user removes one tool output or one older turn from the context."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelRequest, ToolReturnPart
from support.builders import chat_turn, system, tool_turn
from support.examples import examples

from co_tui.governance import annotate_history, estimate_tokens
from co_tui.governance.evict import EvictRefused, evict
from co_tui.governance.markers import is_evicted_output, marker_info, separate_markers
from co_tui.governance.turns import segment

from .strategies import histories
from .synthetic import make_text
from .test_properties import fingerprint, pairing_problems

pytestmark = pytest.mark.filterwarnings("ignore:`RetryPromptPart` is deprecated")


def _history():
    msgs = [system()]
    msgs += tool_turn("read the logs", [make_text("logs", 5000, 1)], "they are fine", id_prefix="a-")
    msgs += chat_turn("what next?", "rest")
    msgs += tool_turn("read again", [make_text("code", 3000, 2)], "done", id_prefix="b-")
    return msgs


def test_evicting_a_tool_output_leaves_a_marker_naming_it_and_keeps_the_pair():
    history = _history()
    before = fingerprint(history)
    out = evict(history, 3, budget_tokens=10_000, overhead_tokens=100)
    assert fingerprint(history) == before  # pure
    part = out.messages[3].parts[0]
    assert isinstance(part, ToolReturnPart) and is_evicted_output(part)
    assert part.tool_call_id == history[3].parts[0].tool_call_id  # still paired with its call
    assert "read_file(path=" in part.content and "5,000 chars" in part.content
    event = out.event
    assert (event.reason, event.strategy, event.dropped_messages) == ("manual_evict", "tool_output_trim", 0)
    assert event.tokens_after < event.tokens_before and event.tokens_before == estimate_tokens(history) + 100
    assert "read_file" in (event.note or "")
    with pytest.raises(EvictRefused, match="^evict.already_removed$"):  # a fact: the session words it
        evict(out.messages, 3)


def test_evicting_an_older_turn_replaces_it_with_one_marker():
    history = _history()
    out = evict(history, 5)  # "what next?"
    event = out.event
    assert (event.strategy, event.dropped_messages, event.dropped_turns) == ("turn_trim", 2, 1)
    markers = [m for m in out.messages if (info := marker_info(m)) is not None and info.kind == "evicted"]
    assert len(markers) == 1 and '"what next?"' in markers[0].parts[0].content
    assert len(segment(out.messages).turns) == 2
    assert out.messages[0] is history[0]  # the system prompt stays


def test_the_newest_turn_and_markers_cannot_be_evicted():
    history = _history()
    with pytest.raises(EvictRefused, match="^evict.newest_turn$"):
        evict(history, len(history) - 1)
    out = evict(history, 5)
    marker_at = next(i for i, m in enumerate(out.messages) if marker_info(m) is not None)
    with pytest.raises(EvictRefused, match="^evict.marker$"):
        evict(out.messages, marker_at)
    with pytest.raises(EvictRefused, match="^evict.no_message$") as info:
        evict(history, 99)
    assert info.value.facts == {"index": 99}


def test_the_inspector_shows_evicted_messages_as_evicted():
    history = _history()
    out = evict(evict(history, 3).messages, 5)
    infos = annotate_history(history, out.messages, ledger=[out.event], positions=[len(history)])
    statuses = [i.status for i in infos]
    assert statuses[3] == "evicted" and statuses[5] == statuses[6] == "evicted"
    assert statuses[7:] == ["in_context"] * 4


# 1.5× the default: each case picks an index on top of its history.
@settings(max_examples=examples(150))
@given(histories(), st.integers(0, 10_000))
def test_evictions_keep_pairing_and_never_mutate(history, pick):
    current = separate_markers(history)
    if not current:
        return
    index = pick % len(current)
    before = fingerprint(history)
    problems = pairing_problems(current)
    try:
        out = evict(history, index)
    except EvictRefused:
        return
    assert fingerprint(history) == before
    # No call loses its result, no result its call: at most whole pairs leave with a turn.
    after = pairing_problems(out.messages)
    assert not (after - problems), after - problems
    assert Counter(type(m) for m in out.messages)[ModelRequest] >= 1
    assert len(segment(out.messages).turns) >= 1
    assert out.event.tokens_after <= out.event.tokens_before + 200  # a marker (bounded) may outweigh a tiny turn
