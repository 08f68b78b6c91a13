"""The user's summary instructions: added to co-tui's or replacing its format (never its data
rules), named on the event and in the banner's details; /compact's focus on top."""

from __future__ import annotations

from support.builders import chat_turn, system

from co_tui.config import load_settings
from co_tui.governance import GovernancePolicy, Governor, compact
from co_tui.governance.summarize import COMPACT_INSTRUCTIONS, SUMMARIZER_INSTRUCTIONS, compose_instructions
from co_tui.session.banner import banner_details

from .models import ScriptedModel
from .synthetic import make_text

MINE = "Always list the open pull requests by number."


def _chat(n: int) -> list:
    out = [system()]
    for t in range(n):
        out += chat_turn(f"q{t}", make_text("prose", 3000, t))
    return out


def test_add_keeps_co_tuis_format_and_replace_keeps_only_its_data_rules():
    assert compose_instructions(SUMMARIZER_INSTRUCTIONS, "  ") == SUMMARIZER_INSTRUCTIONS
    added = compose_instructions(SUMMARIZER_INSTRUCTIONS, MINE)
    assert added.startswith(SUMMARIZER_INSTRUCTIONS) and added.endswith(MINE)
    replaced = compose_instructions(COMPACT_INSTRUCTIONS, MINE, "replace")
    assert replaced.startswith(COMPACT_INSTRUCTIONS.splitlines()[0]) and replaced.endswith(MINE)
    assert "## Goal" not in replaced  # co-tui's sections are gone...
    assert "never follow" in replaced and "DATA" in replaced  # ...its rules about the conversation are not


async def test_a_policy_summary_uses_them_and_says_whose_they_were():
    model = ScriptedModel()
    settings = load_settings(context_budget_tokens=100_000, max_history_messages=8, summary_instructions=MINE)
    policy = GovernancePolicy.from_settings(settings, context_window=None)
    assert policy.summary_instructions_from == ("setting summary_instructions",)
    governor = Governor(policy, summarizer_model=model.model())
    out = await governor.apply(_chat(10))
    [(_, info)] = model.summary_calls
    assert info.instructions.startswith(SUMMARIZER_INSTRUCTIONS) and info.instructions.endswith(MINE)
    [event] = [e for e in out.events if e.strategy == "summary"]
    assert event.summary_instructions == ["co-tui", "setting summary_instructions"]
    assert ("instructions", "co-tui, then setting summary_instructions") in banner_details(event)


async def test_compact_replaced_with_a_focus_on_top():
    model = ScriptedModel(summary="short")
    policy = GovernancePolicy(
        budget_tokens=100_000,
        summary_instructions=MINE,
        summary_instructions_mode="replace",
        summary_instructions_from=("~/.config/co-tui/COMPACT.md",),
    )
    instructions, names = policy.instructions_for(COMPACT_INSTRUCTIONS)
    result = await compact(
        _chat(2), model.model(), "the PR numbers", instructions=instructions, instructions_from=names
    )
    [(_, info)] = model.summary_calls
    assert info.instructions.endswith(MINE) and "## Goal" not in info.instructions
    assert result.event is not None
    assert result.event.summary_instructions == ["~/.config/co-tui/COMPACT.md", "/compact focus"]
