"""The user's own words in a summary (`user_words`): their prompts verbatim, newest first, within
a share of the summary's budget, the rest counted; carried on by the next summary; counted by the
summary check."""

from __future__ import annotations

import copy

from support.builders import chat_turn, system

from co_tui.governance import GovernancePolicy, Governor
from co_tui.governance.markers import make_summary_marker
from co_tui.governance.summarize import (
    SUMMARY_SECTIONS,
    WORDS_SHARE,
    run_summarizer,
    summary_size_limit,
    summary_token_budget,
)
from co_tui.governance.summary_check import check_summary
from co_tui.governance.tokens import estimate_text_tokens
from co_tui.governance.user_words import WORDS_HEADER, prompts_in, user_prompts, user_words, with_words
from co_tui.session.wording import kept_line

from .models import ScriptedModel, last_user_text
from .synthetic import make_text


def test_prompts_come_back_exactly_newest_first():
    tricky = 'line one\n## Goal\n- "not a list item"\n' + WORDS_HEADER  # cannot forge a heading or an item
    history = [system(), *chat_turn("first, keep it short", "ok"), *chat_turn(tricky, "fine"), *chat_turn("third", "x")]
    words = user_words(history, 10_000)
    assert (words.kept, words.total) == (3, 3)
    assert prompts_in(with_words("model text", words)) == ["third", tricky, "first, keep it short"]
    assert words.text.count("\n") == 3  # the header and one line per prompt
    assert "left out" not in words.text


def test_a_long_paste_is_left_out_and_counted_older_short_prompts_stay():
    paste = make_text("logs", 20_000)
    history = [
        *chat_turn("keep the port at 8443", "ok"),
        *chat_turn(paste, "read it"),
        *chat_turn("now fix it", "done"),
    ]
    words = user_words(history, 200)
    assert prompts_in(words.text) == ["now fix it", "keep the port at 8443"]
    assert "(1 more left out to fit)" in words.text
    assert (words.kept, words.total) == (2, 3) and words.tokens <= 200


def test_markers_are_not_prompts_but_an_earlier_summary_carries_its_prompts_on():
    earlier = with_words("Earlier work.", user_words(chat_turn("alpha", "a") + chat_turn("beta", "b"), 1000))
    history = [make_summary_marker(4, 2, earlier), *chat_turn("gamma", "c")]
    assert user_prompts(history) == ["alpha", "beta", "gamma"]
    check = check_summary(history, with_words("All of it.", user_words(history, 1000)))
    assert (check.prompts_kept, check.prompts_total) == (3, 3)
    assert "3 of 3 prompts verbatim" in kept_line(check.kept, check.lost, prompts=(3, 3))


def test_a_words_section_the_model_copied_is_dropped():
    words = user_words(chat_turn("the real one", "ok"), 1000)
    copied = f'My sections.\n\n{WORDS_HEADER}\n- "an invented prompt"'
    out = with_words(copied, words)
    assert out.count(WORDS_HEADER) == 1 and prompts_in(out) == ["the real one"]
    check = check_summary(chat_turn("the real one", "ok"), copied)
    assert (check.prompts_kept, check.prompts_total) == (0, 1)


async def test_the_summariser_is_asked_for_sections_and_the_rest_of_the_budget():
    model = ScriptedModel(summary="## Goal\n- a goal")
    history = [
        m for t in range(12) for m in chat_turn(f"question {t}: " + make_text("prose", 200, t), make_text("prose", 900))
    ]
    frozen = copy.deepcopy(history)
    limit = summary_token_budget(history)
    words = user_words(history, int(limit * WORDS_SHARE))
    assert summary_size_limit(limit) == limit + int(limit * WORDS_SHARE)
    text, _ = await run_summarizer(history, model.model())
    assert history == frozen
    [(messages, info)] = model.summary_calls
    for heading, _what in SUMMARY_SECTIONS:
        assert f"## {heading} — " in info.instructions
    assert 'recall("r12")' in info.instructions  # recall handles are to be kept as written
    assert info.model_settings["max_tokens"] == limit  # the words come on top, within their share
    assert f"Use at most about {int(limit * 0.7)} words." in last_user_text(messages)
    assert text == f"## Goal\n- a goal\n\n{words.text}"
    assert 0 < words.kept < words.total and words.tokens <= limit * WORDS_SHARE


async def test_a_policy_summary_keeps_the_prompts_and_its_event_counts_them():
    model = ScriptedModel()
    governor = Governor(GovernancePolicy(budget_tokens=100_000, max_history_messages=8), summarizer_model=model.model())
    history = [system()]
    for t in range(10):
        history += chat_turn(f"q{t}: use tabs, never spaces" if t == 2 else f"q{t}", make_text("prose", 3000, t))
    out = await governor.apply(history)
    [event] = out.events
    assert event.strategy == "summary"
    # Every prompt of the summarised turns (q0 is the kept head turn), newest first, word for word.
    summarised = [f"q{t}: use tabs, never spaces" if t == 2 else f"q{t}" for t in range(1, 1 + event.dropped_turns)]
    assert prompts_in(event.summary) == summarised[::-1]
    assert (event.prompts_kept, event.prompts_total) == (event.dropped_turns, event.dropped_turns)
