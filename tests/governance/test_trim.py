"""The zero-LLM rules: tool-output trim, whole-turn trim, step shrink, fit_to_budget."""

import copy

import pytest
from support.builders import calls, chat_turn, results, system, tool_turn, user

from co_tui.governance import (
    check_pairing,
    estimate_tokens,
    fit_to_budget,
    shrink_steps,
    split_turns,
    trim_to_recent_turns,
    trim_tool_returns,
)
from co_tui.governance.markers import make_summary_marker, marker_info
from co_tui.governance.trim import is_truncated_output, trim_to_message_count, truncate_text
from co_tui.governance.turns import segment

from .synthetic import make_text


def _history(n_turns: int = 6, out_size: int = 6000) -> list:
    msgs = [system()]
    for t in range(n_turns):
        msgs += tool_turn(f"task {t}", [make_text("logs", out_size, t * 10 + i) for i in range(2)], id_prefix=f"t{t}-")
    return msgs


def test_truncate_text_format_and_idempotence():
    cut = truncate_text("x" * 50, 10)
    assert cut == "x" * 10 + "\n[…truncated, 50 chars total]"
    assert truncate_text(cut, 10) is None
    assert truncate_text(cut, 4) == "xxxx\n[…truncated, 50 chars total]"
    assert truncate_text("short", 10) is None


def test_trim_tool_returns_spares_newest_turn_and_keeps_ids():
    history = _history(3)
    frozen = copy.deepcopy(history)
    res = trim_tool_returns(history, 100)
    assert history == frozen
    assert res.trimmed_parts == 4  # two outputs in each of the two older turns
    assert res.chars_after < res.chars_before
    newest = split_turns(res.messages)[-1]
    assert newest.messages == split_turns(history)[-1].messages
    cut_part = res.messages[3].parts[0]
    assert cut_part.content.endswith("chars total]") and cut_part.content.startswith(history[3].parts[0].content[:100])
    assert (cut_part.tool_name, cut_part.tool_call_id) == ("read_file", "t0-0")
    assert trim_tool_returns(res.messages, 100).trimmed_parts == 0
    assert trim_tool_returns(history, 0).messages == history


def test_trim_tool_returns_measures_dict_content_as_json():
    payload = {"rows": list(range(2000))}
    history = [user("a"), calls(("q", "c", {})), results(("q", "c", payload)), *chat_turn("b", "c")]
    res = trim_tool_returns(history, 200)
    assert res.trimmed_parts == 1
    assert res.messages[2].parts[0].content.startswith('{"rows":[0,1,2')


def test_trim_to_recent_turns_keeps_whole_recent_turns_and_one_breadcrumb():
    history = _history(6)
    frozen = copy.deepcopy(history)
    budget = estimate_tokens(history) // 3
    res = trim_to_recent_turns(history, budget)
    assert history == frozen
    assert res.trimmed and res.kept_turns >= 1 and res.tokens_after <= budget
    assert res.messages[0] is history[0]  # system prompt kept
    info = marker_info(res.messages[1])
    assert info.kind == "breadcrumb"
    assert (info.messages, info.turns) == (res.dropped_messages, res.dropped_turns)
    assert res.dropped_turns + res.kept_turns == 6
    assert len(history) - 1 - res.dropped_messages == len(res.messages) - 2
    first, _, listing = res.messages[1].parts[0].content.partition("\n")
    assert first == (
        f"[Earlier conversation trimmed — {res.dropped_messages} messages ({res.dropped_turns} turns) removed "
        "to stay within the context budget]"
    )
    # Then what left: the range out of view with the call that brings it back, one line per turn.
    assert listing.startswith(f'Turns 1-{res.dropped_turns} are out of view; recall(turns="1-{res.dropped_turns}")')
    assert [line.split(":")[0] for line in listing.split("\n")[1:]] == [
        f"- turn {n}" for n in range(1, res.dropped_turns + 1)
    ]
    assert check_pairing(res.messages) == []
    again = trim_to_recent_turns(res.messages, budget)
    assert not again.trimmed and again.messages == res.messages


def test_second_cut_replaces_marker_and_adds_counts():
    history = _history(6)
    first = trim_to_recent_turns(history, estimate_tokens(history) * 2 // 3)
    longer = first.messages + tool_turn("more", [make_text("json", 6000)], id_prefix="m")
    second = trim_to_recent_turns(longer, estimate_tokens(longer) // 2)
    markers = segment(second.messages).markers
    assert len(markers) == 1
    info = markers[0][1]
    assert info.messages == first.dropped_messages + second.dropped_messages
    assert info.turns == first.dropped_turns + second.dropped_turns


def test_newest_turn_is_always_kept_even_when_too_big():
    history = [*chat_turn("old", make_text("prose", 2000)), *tool_turn("huge", [make_text("base64", 40_000)])]
    res = trim_to_recent_turns(history, 50)
    assert res.kept_turns == 1 and res.dropped_turns == 1
    assert 50 < res.tokens_after < res.tokens_before
    assert split_turns(res.messages)[0].messages == split_turns(history)[-1].messages
    assert not trim_to_recent_turns(res.messages, 50).trimmed


def test_no_cut_when_the_breadcrumb_outweighs_the_older_turns():
    """The newest turn alone is over budget and the older turn is smaller than a breadcrumb: dropping
    it would lose a turn and grow the context (it used to: 2 messages dropped, tokens up)."""
    history = [*chat_turn("old", "x"), *tool_turn("huge", [make_text("base64", 40_000)])]
    res = trim_to_recent_turns(history, 50)
    assert not res.trimmed and res.messages == history and res.tokens_after == res.tokens_before


def test_earlier_summary_alone_over_budget_is_not_rewritten_without_a_cut():
    """Every turn fits next to a breadcrumb, but not next to the earlier summary. Swapping the summary
    for a breadcrumb while dropping nothing used to be logged as a turn cut of 0 messages; now the
    oldest turn goes and the summary's counts are folded into the breadcrumb, as in any cut."""
    turns = [*chat_turn("q1", make_text("prose", 1500, 1)), *chat_turn("q2", make_text("prose", 1500, 2))]
    history = [system(), make_summary_marker(12, 4, make_text("prose", 3000, 3)), *turns]
    budget = estimate_tokens([system(), *turns]) + 40  # the turns and a breadcrumb fit, the summary does not
    res = trim_to_recent_turns(history, budget)
    assert res.trimmed and (res.dropped_messages, res.dropped_turns, res.kept_turns) == (2, 1, 1)
    assert res.tokens_after <= budget
    info = segment(res.messages).markers[0][1]
    assert (info.kind, info.messages, info.turns) == ("breadcrumb", 14, 5)
    # With a single turn there is nothing a cut may remove: the summary stays as it is.
    single = [system(), make_summary_marker(12, 4, make_text("prose", 3000, 3)), *turns[2:]]
    alone = trim_to_recent_turns(single, budget // 2)
    assert not alone.trimmed and alone.messages == single


def test_system_prompt_inside_first_request_is_salvaged():
    history = [user("first", with_system="SYS"), *chat_turn("x", "y")[1:], *chat_turn("next", make_text("prose", 4000))]
    history = [
        user("first", with_system="SYS"),
        history[1],
        *chat_turn("a", make_text("prose", 3000)),
        *chat_turn("b", "c"),
    ]
    res = trim_to_recent_turns(history, estimate_tokens(history) // 3)
    assert res.trimmed
    assert [p.part_kind for p in res.messages[0].parts] == ["system-prompt"]
    assert res.messages[0].parts[0].content == "SYS"
    assert marker_info(res.messages[1]) is not None


def test_old_summary_marker_counts_are_absorbed():
    history = [system(), make_summary_marker(12, 4, "s" * 3000), *_history(3)[1:]]
    res = trim_to_recent_turns(history, estimate_tokens(history) // 2)
    info = segment(res.messages).markers[0][1]
    assert (
        info.kind == "breadcrumb" and info.messages == 12 + res.dropped_messages and info.turns == 4 + res.dropped_turns
    )


def test_message_count_trim():
    history = [system(), *[m for t in range(10) for m in chat_turn(f"q{t}", f"a{t}")]]
    res = trim_to_message_count(history, 6)
    assert res.kept_turns == 3 and res.dropped_turns == 7
    assert sum(len(t) for t in split_turns(res.messages)) <= 6


def test_step_shrink_keeps_newest_three_steps_and_pairs():
    outputs = [make_text("code", 20_000, i) for i in range(8)]
    history = [*chat_turn("hi", "hello"), *tool_turn("big", outputs)]
    budget = estimate_tokens(history) // 3
    res = shrink_steps(history, budget)
    assert res.trimmed and res.tokens_after <= budget
    turn = split_turns(res.messages)[-1]
    original = split_turns(history)[-1]
    # the newest three steps (last two call/result pairs and the final reply) are verbatim
    assert turn.messages[-5:] == original.messages[-5:]
    assert check_pairing(res.messages) == []
    assert not shrink_steps(res.messages, budget).trimmed


def test_fit_to_budget_runs_rules_in_order_and_reports_each():
    history = _history(5, 8000)
    budget = estimate_tokens(history) // 10
    res = fit_to_budget(history, budget, tool_output_trim_chars=500)
    # Outputs cut, then turns dropped: one cut, one event from the pass's start (issue 32 item 4).
    assert [e.strategy for e in res.events][:1] == ["turn_trim"] and res.events[0].tokens_before == res.tokens_before
    assert all(e.reason == "token_budget" and e.budget_tokens == budget for e in res.events)
    assert res.fits == (res.tokens_after <= budget)
    assert check_pairing(res.messages) == []
    assert fit_to_budget(res.messages, budget, tool_output_trim_chars=500).events == [] or not res.fits


def test_an_output_trim_then_a_turn_drop_is_one_event_naming_the_kept_outputs():
    """Issue 32 item 4: a pass showed `old tool outputs shortened`, then the turn drop that removed
    those same outputs — two banners for one cut. Now one `turn_trim` event from the pass's start;
    its note counts the outputs of the kept turns that stay cut."""
    history = _history(6, 8000)
    outputs_only = fit_to_budget(history, estimate_tokens(history) - 100, tool_output_trim_chars=500)
    assert [e.strategy for e in outputs_only.events] == ["tool_output_trim"]  # alone, still its own event
    # Just under what cutting every old output leaves: the oldest turns go too, the others stay cut.
    budget = estimate_tokens(trim_tool_returns(history, 500).messages) - 50
    res = fit_to_budget(history, budget, tool_output_trim_chars=500)
    [event] = res.events
    assert event.strategy == "turn_trim" and event.dropped_turns > 0
    assert (event.tokens_before, event.tokens_after) == (res.tokens_before, res.tokens_after)
    kept_cut = sum(
        is_truncated_output(str(p.content)) for m in res.messages for p in m.parts if p.part_kind == "tool-return"
    )
    assert kept_cut > 0 and event.note == f"{kept_cut} old tool outputs of the kept turns cut to 500 chars"
    # Every output the trim cut was in a dropped turn: nothing to say.
    [drop] = fit_to_budget(history, estimate_tokens(history) // 12, tool_output_trim_chars=500).events[:1]
    assert drop.strategy == "turn_trim" and (drop.note is None or "of the kept turns" in drop.note)


def test_fit_to_budget_in_turn_shrink_when_newest_turn_is_too_big():
    older = chat_turn("a", make_text("prose", 2000))
    history = [system(), *older, *tool_turn("go", [make_text("logs", 30_000, i) for i in range(6)])]
    budget = estimate_tokens(history) // 2  # the newest three steps (two 30 KB outputs) still fit
    res = fit_to_budget(history, budget, tool_output_trim_chars=2000, reason="context_overflow")
    assert [e.strategy for e in res.events] == ["turn_trim", "step_shrink"]
    assert res.fits and all(e.reason == "context_overflow" for e in res.events)
    assert all(e.tokens_after < e.tokens_before for e in res.events)
    # An older turn lighter than the breadcrumb stays: only the step shrink runs.
    light = [system(), *chat_turn("a", "b"), *history[3:]]
    res = fit_to_budget(light, budget, tool_output_trim_chars=2000, reason="context_overflow")
    assert [e.strategy for e in res.events] == ["step_shrink"] and res.fits
    assert len(split_turns(res.messages)) == 2


def test_fit_to_budget_reports_not_fitting_without_looping():
    history = [user(make_text("prose", 20_000))]
    res = fit_to_budget(history, 100)
    assert not res.fits and res.events == [] and res.messages == history


@pytest.mark.parametrize("budget", [0, 1])
def test_degenerate_budgets(budget):
    history = _history(2, 500)
    res = fit_to_budget(history, budget)
    assert not res.fits
    assert len(split_turns(res.messages)) == 1


def test_a_cut_that_costs_more_tokens_than_it_saves_is_skipped():
    """A 38-char error (tau-bench airline 003) cut to nothing is the 29-char truncation note: fewer
    characters, one more token. The step shrink used to do it and report a 'shrink' that grew the context."""
    short = "Error: gift card balance is not enough"
    history = [*chat_turn("hi", "hello"), *tool_turn("go", [short, *(make_text("logs", 20_000, i) for i in range(4))])]
    res = shrink_steps(history, 100)
    assert res.trimmed and res.tokens_after < res.tokens_before
    outputs = [p.content for m in split_turns(res.messages)[-1] for p in m.parts if p.part_kind == "tool-return"]
    assert outputs[0] == short and outputs[1].startswith("\n[…truncated, ")
    assert trim_tool_returns([*tool_turn("a", [short]), *chat_turn("b", "c")], 1).trimmed_parts == 0


def test_a_short_listing_is_not_replaced_by_a_longer_not_listed_note():
    """Hypothesis counterexample: under a small budget the listing's room (a tenth of the budget) kept
    32 characters for "- (1 earlier turns not listed)" even when every line fit, so the note replaced
    "- turn 1" and the cut to the newest turn cost more than the history (507 > 506 tokens): no cut
    was made although one without the cap (the same listing, all lines fit) lowers the count."""
    summary = (
        "Documentation business documentation will other refund database then passenger before make any an"
        " other was what more! When flight me an their make over like most other latency people was. Way"
        " were will would he dependency transaction function throug"
    )
    history = [
        system(make_text("json_min", 1118, 1)),
        user(""),
        make_summary_marker(63, 2, summary),
        user("[:end])\n    "),
        user('{\n  "results'),
    ]
    layout = segment(history)
    assert len(layout.turns) == 3 and layout.markers
    tokens = estimate_tokens(history)
    budget = int(tokens * 0.75)
    res = trim_to_recent_turns(history, budget)
    assert res.trimmed and res.kept_turns == 1
    assert res.tokens_after < tokens
    listing = marker_info(res.messages[1])
    assert listing is not None and listing.kind == "breadcrumb"
    text = res.messages[1].parts[0].content
    assert "not listed" not in text and "- turn 1" in text, text
