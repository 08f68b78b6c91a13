"""`Governor.apply`: what its ledger says over a run, when a summary is worth asking for and keeping."""

from __future__ import annotations

from pydantic_ai.models.function import FunctionModel
from support.builders import MODULE_LINES, chat_turn, module_turn, system

from co_tui.agent.offline import offline_model
from co_tui.governance import GovernancePolicy, Governor, estimate_tokens
from co_tui.governance.turns import segment

from .models import ScriptedModel, last_user_text
from .synthetic import make_text
from .test_properties import assert_event_invariants, assert_ledger_adds_up


def _down(messages, info):
    raise ConnectionError("summariser unreachable")


async def test_the_history_screen_run_logs_no_cut_of_nothing():
    """The released ledger of this run held 'oldest turns removed · 0 messages · 1.4k → 1.2k': the
    summary written in the same pass was swapped for a breadcrumb by a turn cut that dropped nothing."""
    now = [0.0]
    policy = GovernancePolicy(budget_tokens=1300, max_history_messages=16, tool_output_trim_chars=300)
    governor = Governor(policy, summarizer_model=FunctionModel(_down), clock=lambda: now[0])
    context: list = []
    ledger = []
    for i, lines in enumerate(MODULE_LINES[:9]):
        if i == 6:  # the cooldown is over and the summariser is back
            governor.summarizer_model, now[0] = offline_model(), 1000.0
        before = context + module_turn(i, lines)
        outcome = await governor.apply(before)
        assert_ledger_adds_up(outcome.events, before, outcome.messages)
        for event in outcome.events:
            assert_event_invariants(event)
        context, ledger = outcome.messages, ledger + outcome.events
    # (The outputs cut before a turn drop of the same pass are in that drop's one event: issue 32 item 4.)
    assert {"static_marker", "summary", "turn_trim"} <= {e.strategy for e in ledger}
    # The marker the model reads accounts for exactly what the ledger says was removed.
    [(_, marker)] = segment(context).markers
    cuts = [e for e in ledger if e.dropped_messages]
    assert (marker.messages, marker.turns) == (
        sum(e.dropped_messages for e in cuts),
        sum(e.dropped_turns for e in cuts),
    )


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
    assert event.strategy == "static_marker" and "summary rejected" in event.note and "not smaller than" in event.note
    assert event.tokens_after < event.tokens_before == estimate_tokens(history)
    assert governor.cooling_down()


async def test_a_summary_says_which_messages_its_input_could_not_hold():
    """The summariser's input is cut to fit (oldest lines first); the messages cut from it
    are not covered by the summary, and the event and banner say how many were removed without one."""
    from co_tui.governance.summarize import _MAX_INPUT_CHARS
    from co_tui.session.banner import banner_details, banner_line

    model = ScriptedModel()
    governor = Governor(
        GovernancePolicy(budget_tokens=2_000_000, max_history_messages=8), summarizer_model=model.model()
    )
    turns = 2 * _MAX_INPUT_CHARS // 4000 + 10  # each message renders at most ~4,000 characters
    history = [system()]
    for t in range(turns):
        history += chat_turn(f"q{t} " + make_text("prose", 6000, t), make_text("prose", 6000, t + 1))
    out = await governor.apply(history)
    [event] = [e for e in out.events if e.strategy == "summary"]
    framed = last_user_text(model.summary_calls[0][0])
    assert "earlier lines omitted" in framed
    assert 0 < event.unsummarised_messages < event.dropped_messages
    # The oldest unsummarised message is not in the summariser's input (turn q0 is the kept head);
    # the first user turn after the unsummarised ones is.
    cut = event.unsummarised_messages
    first_covered = cut // 2 + 1 + cut % 2
    assert "[user] q1 " not in framed and f"[user] q{first_covered} " in framed
    assert f"[user] q{first_covered - 1} " not in framed
    assert f"{event.unsummarised_messages} of them without a summary" in banner_line(event)
    assert any(label == "not summarised" for label, _ in banner_details(event))


async def test_a_summary_of_a_middle_that_fits_reports_nothing_unsummarised():
    model = ScriptedModel()
    governor = Governor(GovernancePolicy(budget_tokens=100_000, max_history_messages=8), summarizer_model=model.model())
    out = await governor.apply(_chat(10, 400))
    [event] = out.events
    assert event.strategy == "summary" and event.unsummarised_messages == 0
    assert "without a summary" not in __import__("co_tui.session.banner", fromlist=["x"]).banner_line(event)


async def test_a_giant_agent_turn_is_shrunk_in_batches_down_to_the_target():
    """One user turn, one tool call per step (agent sessions put 100+ calls in a turn): once the turn
    reaches the budget, the in-turn step shrink takes it down to the low-water mark in one batch, so
    the next shrink is several steps away — not one shrink per step. Steps stay paired."""
    from support.builders import calls, results, user

    from co_tui.governance.turns import check_pairing

    budget = 12_000
    governor = Governor(GovernancePolicy(budget_tokens=budget, max_history_messages=0, strategy="trim"))
    context = [system(), user("refactor the package")]
    cut_steps = []
    for step in range(60):
        context = [
            *context,
            calls(("read_file", f"c{step}", {"path": f"m{step}.py"})),
            results(("read_file", f"c{step}", make_text("code", 3000, step))),
        ]
        outcome = await governor.apply(context)
        if outcome.events:
            cut_steps.append(step)
            assert {e.strategy for e in outcome.events} == {"step_shrink"}, outcome.events
            assert outcome.tokens <= 0.6 * budget, outcome.events
        assert outcome.fits and check_pairing(outcome.messages) == []
        context = outcome.messages
    assert len(cut_steps) >= 3, "the turn outgrew the budget several times"
    gaps = [b - a for a, b in zip(cut_steps, cut_steps[1:], strict=False)]
    assert min(gaps) >= 3, cut_steps


async def test_a_summary_is_never_folded_into_a_breadcrumb_in_its_own_pass():
    """The tail the window plan keeps (>= max_history_messages // 2 messages) was over
    the budget on its own, so the whole-turn trim after the summary swapped the fresh summary for a
    breadcrumb. Now the tail gives turns to the summary until what stays fits beside it."""
    model = ScriptedModel()
    history = _chat(24, 600)  # ~25 x 150 tokens; the planned tail alone (16 messages) is over budget
    budget = estimate_tokens(history) // 3
    governor = Governor(GovernancePolicy(budget_tokens=budget, max_history_messages=32), summarizer_model=model.model())
    out = await governor.apply(history)
    assert len(model.summary_calls) == 1
    assert [e.strategy for e in out.events] == ["summary"]  # no turn_trim after it
    [(_, marker)] = segment(out.messages).markers
    assert "SUMMARY: the user and the agent" in str(out.messages)  # the summary is in what is sent
    assert marker.messages == out.events[0].dropped_messages
    assert out.fits


async def test_no_summary_is_asked_for_when_not_even_the_newest_turn_fits_beside_it():
    model = ScriptedModel()
    history = _chat(6, 200) + chat_turn("q-last", make_text("prose", 8_000, 99))
    governor = Governor(
        GovernancePolicy(budget_tokens=estimate_tokens(history[-2:]) + 100, max_history_messages=8),
        summarizer_model=model.model(),
    )
    out = await governor.apply(history)
    assert model.summary_calls == []  # the call would be wasted: its summary could not stay
    assert "summary" not in {e.strategy for e in out.events}


def test_overflow_recovery_cuts_to_the_low_water_mark():
    """A provider overflow is a cut like any other: it goes down to `compact_target` × the budget,
    not merely 0.7 × the estimate (docs/context-governance.md, "Context-window overflow")."""
    history = _chat(12, 1200)
    tokens = estimate_tokens(history)
    policy = GovernancePolicy(budget_tokens=tokens + 100, max_history_messages=0, strategy="trim")
    outcome, shrink_ran = Governor(policy).recover_overflow(history, shrink_done=False)
    [event] = outcome.events
    assert (event.reason, event.strategy, shrink_ran) == ("context_overflow", "turn_trim", False)
    assert outcome.tokens <= policy.compact_target * policy.budget_tokens < 0.7 * tokens
    assert event.tokens_after == outcome.tokens and event.budget_tokens == policy.budget_tokens


def test_overflow_recovery_below_the_low_water_mark_still_cuts_deeper():
    """Our estimate already says the history is under the low-water mark, yet the provider refused
    it: the retry aims at `compact_target` × the estimate, so every retry removes something."""
    history = _chat(12, 1200)
    tokens = estimate_tokens(history)
    policy = GovernancePolicy(budget_tokens=tokens * 4, max_history_messages=0, strategy="trim")
    outcome, _ = Governor(policy).recover_overflow(history, shrink_done=False)
    [event] = outcome.events
    assert event.dropped_turns >= 1
    assert outcome.tokens <= policy.compact_target * tokens


def test_no_message_limit_promises_no_cut_on_the_next_prompt():
    """`max_history_messages = 0` turns the message limit off: a short context under the token budget
    is not 'cut on the next send' (it said so for any context, the meter's 'trims on next send' and
    compact_mode ask's question with it)."""
    from support.builders import user

    off = Governor(GovernancePolicy(budget_tokens=100_000, max_history_messages=0, strategy="trim"))
    tight = Governor(GovernancePolicy(budget_tokens=100_000, max_history_messages=1, strategy="trim"))
    context = [user("hello")]
    assert not off.over_limits(context, next_prompt=True)
    assert tight.over_limits(context, next_prompt=True), "one message and the next prompt pass a limit of 1"
