"""`Governor.apply`: when a summary is worth asking for, and when it is worth keeping."""

from __future__ import annotations

from co_tui.governance import GovernancePolicy, Governor, estimate_tokens

from .builders import chat_turn, system
from .models import ScriptedModel
from .synthetic import make_text


def _chat(n: int, answer_chars: int) -> list:
    out = [system()]
    for t in range(n):
        out += chat_turn(f"q{t}", make_text("prose", answer_chars, t))
    return out


async def test_a_middle_smaller_than_the_summary_budget_is_not_summarised():
    """Ten short turns over the message limit: the middle (~100 tokens) is under the 200-token summary
    budget, so no model call — the message-count trim handles it."""
    model = ScriptedModel()
    governor = Governor(GovernancePolicy(budget_tokens=100_000, max_history_messages=8), summarizer_model=model.model())
    out = await governor.apply(_chat(10, 10))
    assert model.summary_calls == []
    assert [(e.reason, e.strategy) for e in out.events] == [("message_count", "turn_trim")]


async def test_a_summary_longer_than_what_it_replaces_counts_as_a_failure():
    """A model that ignores the summary's token budget: inserting its answer would grow the context."""
    model = ScriptedModel(summary=make_text("prose", 20_000))
    governor = Governor(GovernancePolicy(budget_tokens=100_000, max_history_messages=8), summarizer_model=model.model())
    history = _chat(10, 400)
    out = await governor.apply(history)
    assert len(model.summary_calls) == 1
    [event] = out.events
    assert event.strategy == "static_marker" and "no shorter than" in event.note
    assert event.tokens_after < event.tokens_before == estimate_tokens(history)
    assert governor.cooling_down()
