"""check_summary: what a summary kept of the summarised messages' paths, names and numbers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

from co_tui.governance.markers import make_summary_marker
from co_tui.governance.summary_check import check_summary, item_kind, salient_items
from co_tui.session.banner import banner_details
from co_tui.session.wording import kept_line

from .strategies import histories
from .test_properties import fingerprint


def _messages():
    return [
        ModelRequest(parts=[UserPromptPart("fix parse_args in src/cli.py; the test took 1500 ms")]),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": "docs/usage.md"}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "secret_internal_name appears only in an output", "c1")]),
        ModelResponse(parts=[TextPart("TokenMeter reads it")]),
    ]


def test_items_come_from_prompts_text_and_calls_not_outputs():
    items = salient_items(_messages())
    assert items == ["read_file", "src/cli.py", "parse_args", "1500", "docs/usage.md", "TokenMeter"]
    assert "secret_internal_name" not in items
    assert [item_kind(i) for i in ("src/cli.py", "README.md", "read_file", "1500")] == [
        "path",
        "path",
        "name",
        "number",
    ]


def test_kept_and_lost_and_the_banner_line():
    check = check_summary(_messages(), "The user asked to fix parse_args in cli.py after read_file; 1500 ms.")
    assert check.kept == ["read_file", "src/cli.py", "parse_args", "1500"]
    assert check.lost == ["docs/usage.md", "TokenMeter"]
    assert kept_line(check.kept, check.lost) == (
        "kept 1 of 2 paths, 2 of 3 names, 1 of 1 numbers; lost: docs/usage.md, TokenMeter"
    )


def test_an_earlier_summary_counts_as_summarised_text():
    earlier = make_summary_marker(8, 2, "we edited co_tui/app.py")
    assert "co_tui/app.py" in salient_items([earlier])


def test_the_banner_details_list_what_was_kept_and_lost():
    from co_tui.governance.events import HistoryTrimmed

    event = HistoryTrimmed(
        reason="manual_compact", strategy="compact", summary="s", summary_kept=["a.py"], summary_lost=["b/c.md"]
    )
    assert ("checked", "kept 1 of 2 paths; lost: b/c.md") in banner_details(event)
    assert HistoryTrimmed.from_dict(event.to_dict()) == event


@given(histories(), st.text(max_size=200))
def test_kept_and_lost_partition_the_items_and_nothing_is_mutated(history, summary):
    before = fingerprint(history)
    check = check_summary(history, summary)
    assert fingerprint(history) == before
    assert sorted(check.kept + check.lost) == sorted(salient_items(history))
    assert all(item in summary or item.rsplit("/", 1)[-1] in summary for item in check.kept)


def test_a_figure_with_thousands_separators_is_one_item_and_cut_text_is_no_item():
    """The check offered `10` and `817` for `10,817`, and `co_tui/tui/commands.p` and `keys_refer`
    from an answer cut with "…", each for `r` to recover (issue 32, item 7)."""
    answer = (
        "README.md has 10,817 bytes and 1,000,000 readers; see co_tui/tui/commands.p… "
        "and keys_refer… (or keys_refer...) before keys_reference.py"
    )
    items = salient_items([ModelRequest(parts=[UserPromptPart("look")]), ModelResponse(parts=[TextPart(answer)])])
    assert "10,817" in items and "1,000,000" in items
    assert not {"10", "817", "000", "1"} & set(items)
    assert "co_tui/tui/commands.p" not in items and "keys_refer" not in items
    assert "keys_reference.py" in items
    assert item_kind("10,817") == "number"
    # Kept when the summary writes it either way.
    assert "10,817" in check_summary([ModelResponse(parts=[TextPart(answer)])], "the README has 10817 bytes").kept
