"""Pinned turns and the markers of a cut read in order (docs/context-governance.md, "Pins").

The model reads the context top to bottom: every kept message must come in its original order, and
every marker a cut leaves must stand right where the messages it stands for were — a pinned turn
from among them never sits after a marker that stands for newer messages.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import SystemPromptPart
from support.builders import chat_turn, tool_turn
from support.examples import examples
from support.loop import run

from co_tui.governance import GovernancePolicy, Governor, estimate_tokens
from co_tui.governance.markers import breadcrumb_text, marker_info, separate_markers
from co_tui.governance.pins import compact_around_pins, split_pinned, turn_key
from co_tui.governance.summarize import SummaryRejected
from co_tui.governance.turns import check_pairing, segment, starts_turn

from .corpus import load_transcript, transcript_files
from .strategies import _text, histories
from .test_undo_pins import _assert_pinned_kept, _governor, _pinned_turns, _pins_of, _summariser

pytestmark = pytest.mark.filterwarnings("ignore:`RetryPromptPart` is deprecated")


def _counts(messages) -> tuple[int, int]:
    """What cutting `messages` stands for: markers their own counts, every other message one, every
    turn it opens one (a system-only request none)."""
    total_messages = total_turns = 0
    for message in messages:
        if all(isinstance(p, SystemPromptPart) for p in message.parts):
            continue  # the system prefix rides along in a compaction's request: not cut
        if (info := marker_info(message)) is not None:
            total_messages, total_turns = total_messages + info.messages, total_turns + info.turns
        else:
            total_messages, total_turns = total_messages + 1, total_turns + int(starts_turn(message))
    return total_messages, total_turns


def _pinned_note(message) -> int:
    found = re.match(r"\[[^\]\n]*?; (\d+) pinned turns? from among them", str(message.parts[-1].content))
    return int(found.group(1)) if found else 0


def assert_reads_in_order(before, pins: frozenset[str], after) -> None:
    """`after` (a cut of `before`) keeps its messages in their original order, and each marker the cut
    made stands in the gap its cut messages left, with their counts; a summary is followed by the
    pinned turns from among its messages and says how many."""
    original = separate_markers(before)
    where = {id(m): i for i, m in enumerate(original)}
    by_key = {k: i for i, m in enumerate(original) if (k := turn_key(m)) is not None}
    pinned_ids = {id(m) for turn in _pinned_turns(before, pins) for m in turn}
    kept = [where.get(id(m), by_key.get(turn_key(m) or "")) for m in after]
    positions = [p for p in kept if p is not None]
    assert positions == sorted(set(positions)), "kept messages out of their original order"
    present = set(positions)
    for i, message in enumerate(after):
        info = marker_info(message)
        if kept[i] is not None or info is None or info.kind == "compact_ack":
            continue
        low = next((p for p in reversed(kept[:i]) if p is not None), -1)
        ahead = [(j, p) for j, p in enumerate(kept[i + 1 :], i + 1) if p is not None]
        if info.kind in ("summary", "compact"):  # the pinned turns from its midst follow it
            while ahead and id(after[ahead[0][0]]) in pinned_ids:
                ahead = ahead[1:]
        high = ahead[0][1] if ahead else len(original)
        gap = [original[p] for p in range(low + 1, high) if id(original[p]) not in pinned_ids]
        assert gap, f"{info.kind} marker stands for nothing at {i}"
        assert not any(p in present for p in range(low + 1, high) if id(original[p]) not in pinned_ids), (
            f"{info.kind} marker's gap holds a kept message"
        )
        if info.kind in ("summary", "compact"):
            cut_after = [p for p in range(low + 1, high) if id(original[p]) not in pinned_ids]
            inside = [
                p
                for p in range(low + 1, high)
                if id(original[p]) in pinned_ids and starts_turn(original[p]) and cut_after and p < cut_after[-1]
            ]
            assert len(inside) == _pinned_note(message), (
                "the summary's note does not count the pinned turns from its midst"
            )
        else:
            assert not any(id(original[p]) in pinned_ids for p in range(low + 1, high)), (
                "a pinned turn inside a marker's gap"
            )
        assert (info.messages, info.turns) == _counts(gap), "a marker's counts are not its gap's"


# 3× the default: each case draws pins, a budget and a strategy on top of its history.
@settings(max_examples=examples(300))
@given(
    histories(),
    st.lists(st.booleans(), min_size=6, max_size=6),
    st.floats(0.05, 1.0),
    st.sampled_from([0, 2, 4, 16]),
    st.sampled_from(["summarize", "trim"]),
    st.booleans(),
)
def test_a_cut_around_pinned_turns_reads_in_order(history, choice, fraction, max_messages, strategy, failing):
    """Every pass (and a second one over its result plus a turn), overflow recovery and /compact:
    kept messages in their original order, each marker where its cut messages were, calls paired."""
    pins = _pins_of(history, choice)
    governor = _governor(history, fraction, max_messages, strategy, pins, failing)
    out = run(governor.apply(history))
    assert_reads_in_order(history, pins, out.messages)
    _assert_pinned_kept(_pinned_turns(history, pins), out.messages)
    assert len(check_pairing(out.messages)) <= len(check_pairing(history))
    later = [*out.messages, *chat_turn("and then?", _text("prose", 400, 1))]
    again = run(_governor(later, fraction, max_messages, strategy, pins, failing).apply(later))
    assert_reads_in_order(later, pins, again.messages)
    overflow, _ = governor.recover_overflow(history, shrink_done=False)
    assert_reads_in_order(history, pins, overflow.messages)
    if not failing:
        try:
            compacted = run(compact_around_pins(history, pins, _summariser(False)))
        except SummaryRejected:  # the inflation guard: a summary no smaller than a tiny history
            return
        assert_reads_in_order(history, pins, compacted.messages)


def _four_turns():
    return [
        *tool_turn("first: read a", [_text("prose", 3000, 0)]),
        *chat_turn("second: remember the port is 8443", "noted"),
        *tool_turn("third: read b", [_text("prose", 3000, 1)], id_prefix="d"),
        *chat_turn("fourth: and now?", "now this"),
    ]


def test_a_trim_splits_its_breadcrumb_at_a_pinned_turn():
    """Turns 1 and 3 are cut, 2 is pinned: one breadcrumb before turn 2 for turn 1, one after it for
    turn 3 (before the fix, one breadcrumb for both stood before turn 2)."""
    history = _four_turns()
    pins = frozenset({turn_key(history[4])})
    governor = _governor(history, 0.3, 0, "trim", pins, False)
    out = run(governor.apply(history)).messages
    assert [m.parts[0].content for m in out[:5]] == [
        breadcrumb_text(4, 1),
        "second: remember the port is 8443",
        "noted",
        breadcrumb_text(4, 1),
        "fourth: and now?",
    ]
    assert_reads_in_order(history, pins, out)
    assert [marker_info(m).kind for m in out if marker_info(m)] == ["breadcrumb", "breadcrumb"]


def test_a_pinned_oldest_turn_goes_before_the_breadcrumb():
    """The pinned first turn stood before everything cut: it comes before the breadcrumb."""
    history = _four_turns()[4:]
    history = [*chat_turn("zero: pin me", "ok"), *history]
    pins = frozenset({turn_key(history[0])})
    out = run(_governor(history, 0.3, 0, "trim", pins, False).apply(history)).messages
    assert out[0] is history[0] and out[1] is history[1]
    assert marker_info(out[2]) is not None
    assert_reads_in_order(history, pins, out)


def test_a_summary_says_which_pinned_turn_from_its_midst_follows_it():
    history = [*chat_turn("zero: hello", "hi"), *_four_turns()]
    pins = frozenset({turn_key(history[6])})
    # A budget with room for the longest summary (the user's words on top) beside what stays.
    out = run(_governor(history, 0.35, 0, "summarize", pins, False).apply(history)).messages
    summary = next(m for m in out if (i := marker_info(m)) is not None and i.kind == "summary")
    assert "; 1 pinned turn from among them kept verbatim after this summary]" in summary.parts[0].content
    assert_reads_in_order(history, pins, out)


@pytest.mark.parametrize("path", transcript_files()[::4], ids=lambda p: p.stem)
def test_corpus_cuts_around_a_pinned_turn_read_in_order(path):
    """Real transcripts: pin the second of their turns and cut at several budgets."""
    history = load_transcript(path)
    turns = [t for t in segment(separate_markers(history)).turns if t.has_prompt]
    if len(turns) < 3:
        pytest.skip("fewer than three turns")
    pins = frozenset({turn_key(turns[1].messages[0])}) - {None}
    for fraction in (0.2, 0.5, 0.8):
        for strategy in ("trim", "summarize"):
            out = run(_governor(history, fraction, 40, strategy, pins, False).apply(history))
            assert_reads_in_order(history, pins, out.messages)
            assert split_pinned(out.messages, pins).pinned, "the pinned turn was lost"
