"""Real transcripts (../shared/corpus) through the zero-LLM pipeline at several budgets."""

from __future__ import annotations

import pytest

from co_tui.governance import check_pairing, estimate_tokens, fit_to_budget, split_turns, trim_to_recent_turns
from co_tui.governance.turns import pair_calls, segment

from .corpus import load_transcript, transcript_files
from .test_properties import pairing_problems

FILES = transcript_files()
pytestmark = pytest.mark.skipif(not FILES, reason="shared corpus not present")


def test_loader_keeps_quirks():
    """Reused ids, dangling Finish calls and non-JSON arguments survive conversion."""
    names = {p.name: p for p in FILES}
    toolbench = load_transcript(next(p for n, p in names.items() if n.startswith("toolbench__")))
    problems = check_pairing(toolbench)
    assert problems and all("Finish" in p and "has no result" in p for p in problems)
    reused = load_transcript(names["tau_bench__airline_idx052.json"])
    ids = [p.tool_call_id for m in reused for p in m.parts if p.part_kind == "tool-call"]
    assert len(ids) > len(set(ids))  # ids really are reused
    assert check_pairing(reused) == []  # and positional pairing still pairs every call


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem[:40])
@pytest.mark.parametrize("fraction", [0.9, 0.5, 0.2, 0.05])
def test_corpus_fit_to_budget(path, fraction):
    history = load_transcript(path)
    budget = max(1, int(estimate_tokens(history) * fraction))
    res = fit_to_budget(history, budget, tool_output_trim_chars=300)
    turns_before, turns_after = split_turns(history), split_turns(res.messages)
    assert turns_after, "never cut down to the breadcrumb"
    assert not (pairing_problems(res.messages) - pairing_problems(history))
    assert res.fits == (res.tokens_after <= budget)
    if len(turns_after) > 1:
        assert res.fits
    if res.events:
        assert len(segment(res.messages).markers) <= 1
    # Every result in the output still pairs with a call in its own turn, by position.
    for turn in turns_after:
        assert not pair_calls(turn.messages).orphans
    # The newest turn is never split.
    assert len(turns_after[-1]) == len(turns_before[-1])
    assert fit_to_budget(res.messages, budget, tool_output_trim_chars=300).events == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem[:40])
def test_corpus_trim_counts_add_up(path):
    history = load_transcript(path)
    total = estimate_tokens(history)
    first = trim_to_recent_turns(history, int(total * 0.6))
    second = trim_to_recent_turns(first.messages, int(total * 0.3))
    if second.trimmed:
        info = segment(second.messages).markers[0][1]
        assert info.messages == first.dropped_messages + second.dropped_messages
        turn_msgs = sum(len(t) for t in split_turns(history))
        assert info.messages + sum(len(t) for t in split_turns(second.messages)) == turn_msgs
