"""Recover a lost item (governance/recover.py): a verbatim excerpt of the summarised messages,
appended at the end of the context, one `restore` event; refusals in one line
(docs/context-governance.md, "Recover a lost item")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart
from support.examples import examples

from co_tui.governance import estimate_tokens
from co_tui.governance.markers import (
    RECOVERED_PREFIX,
    is_marker,
    make_summary_marker,
    marker_info,
    recovered_items,
    separate_markers,
    tag_fused_markers,
)
from co_tui.governance.recover import MAX_EXCERPT_CHARS, RecoverRefused, find_snippets, mentions, recover_item
from co_tui.governance.summary_check import check_summary
from co_tui.governance.tokens import content_text, part_text
from co_tui.governance.turns import segment
from co_tui.session.wording import refusal_line

from .strategies import histories
from .test_properties import fingerprint, pairing_problems

pytestmark = pytest.mark.filterwarnings("ignore:`RetryPromptPart` is deprecated")


def _summarised():
    return [
        ModelRequest(parts=[UserPromptPart("please read src/a.py and fix the retry_count bug")]),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": "src/a.py"}, tool_call_id="c1")]),
        ModelRequest(
            parts=[ToolReturnPart("read_file", "import os\nretry_count = 3\nprint(1423)\n", tool_call_id="c1")]
        ),
        ModelResponse(parts=[TextPart("Fixed src/a.py: retry_count was 3, now 5.\nAlso see docs/b.md.")]),
    ]


def _context():
    return [
        make_summary_marker(4, 1, "The user fixed a bug."),
        ModelRequest(parts=[UserPromptPart("what next?")]),
        ModelResponse(parts=[TextPart("Run the tests.")]),
    ]


def test_the_excerpt_is_verbatim_at_the_end_with_one_restore_event():
    context, summarised = _context(), _summarised()
    result = recover_item(context, summarised, "retry_count", strategy="summary", cut_number=2, budget_tokens=10_000)
    assert result.messages[:3] == context, "appended at the end: every earlier message is the same object"
    assert all(a is b for a, b in zip(result.messages, context, strict=False))
    marker = result.messages[-1]
    assert isinstance(marker, ModelRequest) and is_marker(marker) and marker_info(marker).kind == "salvaged"
    assert recovered_items(marker) == ["retry_count"]
    text = part_text(marker.parts[0])
    assert text.startswith(RECOVERED_PREFIX) and "retry_count = 3" in text and "the output of read_file" in text
    assert "please read src/a.py and fix the retry_count bug" in text
    event = result.event
    assert (event.reason, event.strategy, event.restored_messages, event.dropped_messages) == (
        "restore",
        "summary",
        1,
        0,
    )
    assert event.salvaged_item == "retry_count" and event.salvaged_text == text
    assert '"retry_count"' in event.note and "trim #2" in event.note
    assert event.tokens_after > event.tokens_before and event.kept_turns == 1
    assert len(segment(result.messages).turns) == 1, "the excerpt is a marker, not a user turn"


def test_a_lost_tool_name_brings_back_its_calls():
    result = recover_item(_context(), _summarised(), "read_file", strategy="summary", cut_number=1)
    assert '— in a tool call:\nread_file {"path":"src/a.py"}' in result.excerpt


def test_a_number_is_found_as_a_whole_token_only():
    assert mentions("print(1423) and 42.", "42") == [16]
    assert mentions("see docs/b.md", "docs/") == [4]
    snippets, left = find_snippets(_summarised(), "1423")
    assert [s.source for s in snippets] == ["the output of read_file"] and left == 0


def test_refusals_are_one_line_and_change_nothing():
    context, summarised = _context(), _summarised()
    snapshot = fingerprint(context) + fingerprint(summarised)
    cases = {
        "src/zzz.py": "recover.not_summarised",  # governance's facts: the session words them
        "bug": "recover.in_context",  # "The user fixed a bug." — the model reads it
        "  ": "recover.no_item",
    }
    for item, expected in cases.items():
        with pytest.raises(RecoverRefused) as info:
            recover_item(context, summarised, item, strategy="summary", cut_number=1)
        assert info.value.why == expected and "\n" not in refusal_line(info.value)
    with pytest.raises(RecoverRefused) as info:
        recover_item(context, summarised, "src/a.py", strategy="summary", cut_number=1, budget_tokens=10)
    assert info.value.why == "recover.over_budget" and info.value.facts["budget_tokens"] == 10
    assert "over the 10-token budget" in refusal_line(info.value)
    assert fingerprint(context) + fingerprint(summarised) == snapshot


def test_a_second_item_joins_the_excerpt_at_the_end_and_a_recovered_one_is_refused():
    first = recover_item(_context(), _summarised(), "src/a.py", strategy="summary", cut_number=1)
    with pytest.raises(RecoverRefused, match="^recover.in_context$"):
        recover_item(first.messages, _summarised(), "src/a.py", strategy="summary", cut_number=1)
    second = recover_item(first.messages, _summarised(), "1423", strategy="summary", cut_number=1)
    assert len(second.messages) == len(first.messages), "adjacent requests would be fused: one marker"
    assert recovered_items(second.messages[-1]) == ["src/a.py", "1423"]
    assert second.event.salvaged_text is not None and "src/a.py" not in second.event.salvaged_text.split("\n", 1)[0]


def test_the_cap_is_said_when_mentions_are_left_out():
    long = [ModelRequest(parts=[UserPromptPart(f"line {i}: touch src/big.py now\n" + "x" * 300)]) for i in range(20)]
    result = recover_item(_context(), long, "src/big.py", strategy="compact", cut_number=1)
    body = result.excerpt
    assert sum(len(s.text) for s in result.snippets) <= MAX_EXCERPT_CHARS
    assert "more mentions not shown" in body and f"capped at {MAX_EXCERPT_CHARS:,} chars" in body
    assert "left out" in (result.event.note or "")


def test_the_excerpt_survives_fusion_with_the_next_prompt():
    """pydantic-ai fuses the trailing excerpt request with the next prompt; it stays a marker."""
    from pydantic_ai.messages import repair_messages

    result = recover_item(_context(), _summarised(), "docs/b.md", strategy="summary", cut_number=1)
    fused = tag_fused_markers(
        repair_messages(
            [*result.messages, ModelRequest(parts=[UserPromptPart("go on")]), ModelResponse(parts=[TextPart("ok")])]
        )
    )
    assert len(fused) < len(result.messages) + 2, "fused with the prompt"
    assert "go on" in part_text(fused[-2].parts[-1]) and recovered_items(fused[-2]) == []
    apart = separate_markers(fused)
    assert len(apart) == len(result.messages) + 2
    assert recovered_items(apart[-3]) == ["docs/b.md"] and part_text(apart[-2].parts[0]) == "go on"


def _texts(messages) -> list[str]:
    out = []
    for message in messages:
        info = marker_info(message)
        if info is not None:
            out.append(info.summary or part_text(message.parts[-1]))
            continue
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                args = part.args if isinstance(part.args, str) else content_text(part.args or "")
                out.append(f"{part.tool_name} {args}")
            else:
                out.append(part_text(part) if not isinstance(part, ToolReturnPart) else content_text(part.content))
    return out


# 1.5× the default: each case draws a second history and an index on top of the first.
@settings(max_examples=examples(150))
@given(histories(), histories(max_turns=3), st.booleans(), st.integers(0, 10_000))
def test_excerpts_are_verbatim_keep_pairing_and_never_mutate(summarised, drawn, small, pick):
    """Every excerpt window is a substring of one text of the summarised messages; the context before
    it is untouched (same objects, pairing intact); neither input is modified. (`small`: a short
    context of its own, so most items are not in it already and an excerpt is made.)"""
    context = _context() if small else drawn
    items = check_summary(summarised, "").lost
    if not items:
        return
    item = items[pick % len(items)]
    snapshot = (fingerprint(summarised), fingerprint(context))
    try:
        result = recover_item(context, summarised, item, strategy="summary", cut_number=1)
    except RecoverRefused as exc:
        assert "\n" not in str(exc)
        assert (fingerprint(summarised), fingerprint(context)) == snapshot
        return
    assert (fingerprint(summarised), fingerprint(context)) == snapshot
    texts = _texts(separate_markers(summarised))
    for snippet in result.snippets:
        assert any(snippet.text in t for t in texts), snippet
        assert mentions(snippet.text, item), "each window holds a mention"
    kept = len(result.messages) - 1
    assert kept in (len(context), len(context) - 1), "one message appended (or the excerpt at the end merged)"
    assert all(a is b for a, b in zip(result.messages[:kept], context, strict=False)), "the prefix is unchanged"
    current = separate_markers(context)
    assert pairing_problems(result.messages) == pairing_problems(current)
    assert item in recovered_items(result.messages[-1])
    assert estimate_tokens(result.messages) >= estimate_tokens(current)
