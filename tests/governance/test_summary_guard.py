"""The inflation guard (`summary_guard`): a summary that would not shrink the context is rejected,
the cut goes on without it (zero-LLM), the banner says why, and the cooldown starts."""

from __future__ import annotations

import copy

import pytest
from support.builders import chat_turn, system

from co_tui.governance import GovernancePolicy, Governor, compact, estimate_tokens
from co_tui.governance.markers import marker_info
from co_tui.governance.summarize import SummaryRejected, summary_token_budget
from co_tui.governance.summary_guard import summary_rejection
from co_tui.governance.tokens import estimate_text_tokens
from co_tui.session.banner import banner_line

from .models import ScriptedModel
from .synthetic import make_text


def _chat(n: int, answer_chars: int) -> list:
    out = [system()]
    for t in range(n):
        out += chat_turn(f"q{t}", make_text("prose", answer_chars, t))
    return out


def test_a_short_summary_within_its_budget_passes():
    replaced = _chat(6, 400)
    assert summary_rejection("The user asked six questions; each was answered.", replaced, 200) is None


def test_a_summary_not_smaller_than_what_it_replaces_is_rejected():
    replaced = _chat(2, 40)
    summary = make_text("prose", 4000)
    why = summary_rejection(summary, replaced, 100_000)
    assert why is not None and "not smaller than" in why
    assert f"{estimate_tokens(replaced)} tokens it would replace" in why


def test_a_summary_over_its_budget_is_rejected_even_when_smaller():
    replaced = _chat(10, 2000)
    summary = make_text("prose", 2000)
    tokens = estimate_text_tokens(summary)
    assert tokens < estimate_tokens(replaced)
    why = summary_rejection(summary, replaced, tokens - 1)
    assert why is not None and "over its" in why
    assert summary_rejection(summary, replaced, tokens) is None  # exactly at the budget is allowed


async def test_an_over_budget_summary_is_cut_without_and_cools_down():
    """Smaller than the middle (the check the policy had before) but several times its budget: rejected,
    the middle goes without a summary, the note says why, and the next pass does not ask again."""
    history = _chat(10, 2000)
    now = [0.0]
    probe = Governor(GovernancePolicy(budget_tokens=100_000, max_history_messages=8))
    window = probe.plan_cut(history, summarize=True).window
    assert window is not None
    budget = summary_token_budget(window.middle_messages)
    summary = make_text("prose", budget * 8)  # ~2× the budget in tokens, still well under the middle
    assert budget < estimate_text_tokens(summary) < estimate_tokens(window.middle_messages)
    model = ScriptedModel(summary=summary)
    governor = Governor(
        GovernancePolicy(budget_tokens=100_000, max_history_messages=8, summarizer_cooldown_s=600),
        summarizer_model=model.model(),
        clock=lambda: now[0],
    )
    frozen = copy.deepcopy(history)
    out = await governor.apply(history)
    assert history == frozen
    assert len(model.summary_calls) == 1
    event = out.events[0]
    assert event.strategy == "static_marker" and event.summary is None
    assert event.note is not None and event.note.startswith("summary rejected: ") and "over its" in event.note
    assert "summary rejected" in banner_line(event)
    assert summary not in str(out.messages)  # the rejected text never reaches the context
    assert [marker_info(m).kind for m in out.messages if marker_info(m)] == ["static"]
    assert governor.cooling_down()
    # Still over the message limit later: trimming only, no second summariser call.
    more = [m for t in range(5) for m in chat_turn(f"more {t}", make_text("prose", 2000, 50 + t))]
    again = await governor.apply(out.messages + more)
    assert len(model.summary_calls) == 1
    assert again.events and {e.strategy for e in again.events} <= {"turn_trim", "tool_output_trim"}
    now[0] = 601.0
    assert not governor.cooling_down()


async def test_compact_rejects_an_inflated_summary_and_leaves_history():
    history = _chat(2, 60)
    frozen = copy.deepcopy(history)
    model = ScriptedModel(summary=make_text("prose", 6000))
    with pytest.raises(SummaryRejected, match="over its") as caught:
        await compact(history, model.model())
    assert "the conversation is unchanged" in str(caught.value)
    assert history == frozen


async def test_compact_of_a_short_conversation_may_be_longer_than_it():
    """The user asked: a summary within its budget goes in even when the conversation was shorter."""
    history = chat_turn("hi", "hello")
    summary = "## Goal\n- say hello\n## Done so far\n- the user greeted the agent; it greeted back"
    assert estimate_text_tokens(summary) > estimate_tokens(history)
    result = await compact(history, ScriptedModel(summary=summary).model())
    assert result.event is not None and result.summary is not None and result.summary.startswith(summary)
