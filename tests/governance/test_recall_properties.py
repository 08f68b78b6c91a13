"""Properties of handles and `recall` over generated histories and every cut rule.

For every generated transcript (real quirks included: call ids reused, invalid JSON arguments,
dangling calls, media-free dict/list outputs) and every rule that cuts the context, in two rounds
with new turns appended between them:

- every handle a note shows, and every handle stamped in the transcript, recalls exactly the
  transcript's original output;
- every turn a marker lists is the transcript's turn of that number (same first words), and
  `recall(turns=…)` of a marker's range returns those turns' prompts;
- no handle reaches outside the session: out-of-range and malformed handles are refused.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelRequest, ToolReturnPart, UserPromptPart
from support.examples import examples

from co_tui.governance.cut_notes import LISTED_PREFIX
from co_tui.governance.evict import EvictRefused, evict
from co_tui.governance.handles import handle_of, stamp_handles
from co_tui.governance.markers import marker_info, separate_markers
from co_tui.governance.recall import RecallError, recall_output, recall_turns
from co_tui.governance.step_shrink import shrink_steps
from co_tui.governance.tokens import content_text, estimate_tokens
from co_tui.governance.trim import (
    fit_to_budget,
    trim_to_message_count,
    trim_to_recent_turns,
    trim_tool_returns,
)
from co_tui.governance.turns import split_turns
from co_tui.text import one_line

from .strategies import histories

BIG_PAGE = 10**9
HANDLE_CALL = re.compile(r'recall\("(r\d+(?:\.\d+)?)"\)')
LISTED = re.compile(r"- turn (\d+)")
TURNS_CALL = re.compile(r'recall\(turns="(\d+)(?:-(\d+))?"\)')
RULES = ("tool_trim", "recent_turns", "message_count", "shrink", "fit", "evict")
EXAMPLES = examples(400)  # stated in docs/context-governance.md (the ci profile; dev runs a tenth)


def _originals(messages) -> list:
    """A transcript holds originals only: governance's markers are left out."""
    return [m for m in messages if marker_info(m) is None]


def _cut(rule: str, context: list, fraction: float) -> list:
    budget = max(1, int(estimate_tokens(context) * fraction))
    if rule == "tool_trim":
        return trim_tool_returns(context, 200).messages
    if rule == "recent_turns":
        return trim_to_recent_turns(context, budget).messages
    if rule == "message_count":
        return trim_to_message_count(context, max(1, int(len(context) * fraction))).messages
    if rule == "shrink":
        return shrink_steps(context, budget).messages
    if rule == "fit":
        return fit_to_budget(context, budget, tool_output_trim_chars=300, target_tokens=budget // 2).messages
    index = int(fraction * len(separate_markers(context))) % max(1, len(separate_markers(context)))
    try:
        return evict(context, index).messages
    except EvictRefused:
        return context


def _body(text: str) -> str:
    return text.split("\n", 1)[1]


def _check(transcript: list, context: list) -> None:
    stamped = {
        handle_of(p): p
        for m in transcript
        for p in getattr(m, "parts", ())
        if isinstance(p, ToolReturnPart) and handle_of(p)
    }
    shown = {h for m in context for p in m.parts for h in HANDLE_CALL.findall(str(getattr(p, "content", "")))}
    assert shown <= set(stamped), "a note names a handle the transcript does not hold"
    for handle, part in stamped.items():
        assert _body(recall_output(transcript, handle, page_chars=BIG_PAGE).text) == content_text(part.content)
    turns = split_turns(transcript)
    for message in context:
        if marker_info(message) is None:
            continue
        text = message.parts[-1].content
        for line in text.split("\n"):
            if (m := LISTED.match(line)) is not None:
                number = int(m[1])
                prompt = next(p.content for p in turns[number - 1].messages[0].parts if isinstance(p, UserPromptPart))
                words = one_line(prompt, 60)
                assert line.startswith(f'{LISTED_PREFIX}{number}: "{words}"' if words else f"{LISTED_PREFIX}{number}")
        for first, last in TURNS_CALL.findall(text):
            back = recall_turns(transcript, f"{first}-{last or first}", page_chars=BIG_PAGE).text
            opening = turns[int(first) - 1].messages[0]
            prompt = next(p.content for p in opening.parts if isinstance(p, UserPromptPart))
            assert f"user: {prompt}" in back


@settings(max_examples=EXAMPLES)
@given(
    histories(max_turns=5),
    histories(max_turns=3),
    st.sampled_from(RULES),
    st.sampled_from(RULES),
    st.floats(0.05, 1.0),
)
def test_every_handle_and_turn_a_note_names_recalls_the_original(first, more, rule1, rule2, fraction) -> None:
    transcript = stamp_handles(_originals(first), 0)
    context = _cut(rule1, list(transcript), fraction)
    _check(transcript, context)
    added = stamp_handles(_originals(more), len(transcript))
    transcript += added
    context = _cut(rule2, [*context, *added], fraction)
    _check(transcript, context)
    # Nothing outside the session: a handle past its end, or not a handle at all, is refused.
    for handle in (f"r{len(transcript)}", f"r{len(transcript) + 7}.1", "../etc/passwd", "r-1", ""):
        with pytest.raises(RecallError):
            recall_output(transcript, handle)


def test_a_recall_of_a_recall_returns_the_original_under_one_header() -> None:
    from co_tui.governance.handles import RECALLED_KEY

    transcript = stamp_handles(
        [
            ModelRequest(parts=[UserPromptPart("read")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "the fact is zephyr", tool_call_id="a")]),
        ],
        0,
    )
    first = recall_output(transcript, "r1")
    transcript += stamp_handles(
        [
            ModelRequest(
                parts=[ToolReturnPart("recall", first.text, tool_call_id="b", metadata={RECALLED_KEY: first.spec})]
            )
        ],
        len(transcript),
    )
    again = recall_output(transcript, "r2")
    assert again.text == first.text and again.text.count("[recall(") == 1


@pytest.mark.parametrize(
    ("turns", "said"),
    [
        (
            "9" * 5000,
            "no turn '9999999999999999999999999999999999999999'… (5,000 characters): this session has 2 turns",
        ),
        ("3", "no turn 3: this session has 2 turns"),
        ("0", "no turns '0': turns are numbered from 1"),
        ("2-1", "no turns '2-1': turns are numbered from 1"),
        (
            "x" * 100,
            'turns must look like "3" or "3-5", not \'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\'… (100 characters)',
        ),
    ],
)
def test_a_bad_turn_range_is_refused_in_one_short_true_line(turns: str, said: str) -> None:
    """A model's range past the session (however many digits) is said to be past it, not malformed,
    and the refusal never echoes thousands of characters back into the context."""
    transcript = [ModelRequest(parts=[UserPromptPart("one")]), ModelRequest(parts=[UserPromptPart("two")])]
    with pytest.raises(RecallError) as refused:
        recall_turns(transcript, turns)
    assert str(refused.value) == said


def test_a_range_past_the_end_is_clipped_to_the_last_turn() -> None:
    transcript = [ModelRequest(parts=[UserPromptPart("one")]), ModelRequest(parts=[UserPromptPart("two")])]
    assert "two" in recall_turns(transcript, "1-" + "9" * 5000).text
