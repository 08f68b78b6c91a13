"""`compact_mode` in a real `ChatSession` on the offline model: `off` sends the context past its
message limit with no automatic cut and one notice; switching back to `auto` cuts at the next turn;
`--no-compact` and the setting reach the session."""

from __future__ import annotations

from pathlib import Path

from support.turns import collect

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession

AUTOMATIC = ("token_budget", "message_count")


def _notes(events: list) -> list[str]:
    return [e.message for e in events if e.type == "notice"]


async def test_off_never_cuts_says_so_once_and_auto_cuts_again(workspace: Path) -> None:
    session = ChatSession(
        load_settings(max_history_messages=8, compact_mode="off"), workspace=workspace, model="offline"
    )
    assert session.compact_mode == "off"
    notices: list[str] = []
    for i in range(8):
        events = await collect(session.run_turn(f"note number {i}"))
        assert events[-1].type == "done" and not events[-1].failed
        assert not [e for e in events if e.type == "history_trimmed"], "off cut automatically"
        notices += _notes(events)
        usage = [e for e in events if e.type == "usage"][-1]
        assert not usage.trim_pending  # the meter promises no cut that will not come
    assert len(session.context) == 16 > 8  # every message went out: past the limit
    [line] = notices  # said once, at the first turn past the limit
    assert "compact_mode is off" in line and "/compact-mode auto" in line
    session.set_compact_mode("auto")
    assert session.meter_reading().trim_pending
    events = await collect(session.run_turn("and now?"))
    cuts = [e for e in events if e.type == "history_trimmed"]
    assert cuts and cuts[0].reason in AUTOMATIC
    assert not _notes(events)


async def test_the_notice_comes_back_after_the_context_was_under(workspace: Path) -> None:
    session = ChatSession(
        load_settings(max_history_messages=8, compact_mode="off"), workspace=workspace, model="offline"
    )
    said = []
    for i in range(5):
        said += _notes(await collect(session.run_turn(f"q{i}")))
    assert len(said) == 1
    await collect(session.compact())  # back under the limit
    said += _notes(await collect(session.run_turn("after")))
    assert len(said) == 1
    for i in range(4):
        said += _notes(await collect(session.run_turn(f"r{i}")))
    assert len(said) == 2


def _trims(events: list) -> list:
    return [e for e in events if e.type == "history_trimmed" and e.reason in AUTOMATIC]


async def test_ask_plans_the_cut_before_the_send_and_cuts_only_what_was_chosen(workspace: Path) -> None:
    session = ChatSession(
        load_settings(max_history_messages=8, compact_mode="ask"), workspace=workspace, model="offline"
    )
    for i in range(4):  # 8 messages: the next send passes the limit
        assert session.plan_send(f"q{i}") is None, "under the limits nothing is planned"
        assert not _trims(await collect(session.run_turn(f"q{i}")))
    context = list(session.context)
    plan = session.plan_send("the next one")
    assert plan is not None and plan.reason == "message_count"
    assert list(session.context) == context, "planning changes nothing"
    assert plan.going_turns >= 1 and plan.going_messages >= 2 * plan.going_turns
    assert plan.going_turns + plan.kept_turns == 4 == len(plan.going_prompts) + len(plan.kept_prompts)
    assert sorted(plan.going_prompts + plan.kept_prompts) == ["q0", "q1", "q2", "q3"]
    assert plan.kind == "summary" and plan.summarised == plan.going_messages and plan.summarised_tokens > 0
    assert plan.tokens_after < plan.tokens_before and plan.budget_tokens == session.meter_reading().budget_tokens
    assert plan.cached_tokens + plan.fresh_tokens == plan.tokens_after
    assert plan.over_budget_refusal is None, "the offline model's window holds a few short turns"
    reading = session.meter_reading()
    assert reading.trim_pending and reading.asks_first, "the meter says the next send asks"
    for other in ("auto", "off"):
        session.set_compact_mode(other)  # type: ignore[arg-type]
        assert session.plan_send("the next one") is None
    session.set_compact_mode("ask")

    over = await collect(session.run_turn("send it whole", "over_budget"))
    assert not _trims(over) and len(session.context) == 10, "over the budget once: nothing cut"
    plan = session.plan_send("now cut")
    assert plan is not None
    cut = await collect(session.run_turn("now cut", "cut"))
    [trim] = _trims(cut)
    assert trim.reason == "message_count" and trim.dropped_turns == plan.going_turns
    assert len(session.context) < 10
    assert session.plan_send("after the cut") is None


async def test_ask_with_nothing_chosen_does_not_cut_below_the_window(workspace: Path) -> None:
    session = ChatSession(
        load_settings(max_history_messages=8, compact_mode="ask"), workspace=workspace, model="offline"
    )
    for i in range(6):
        events = await collect(session.run_turn(f"q{i}"))
        assert not _trims(events) and not _notes(events), "ask says nothing and cuts nothing unasked"
    assert len(session.context) == 12


def test_the_refusal_to_send_over_the_window_is_one_line() -> None:
    from dataclasses import replace

    from co_tui.session.ask_cut import PlannedCut

    plan = PlannedCut(
        reason="token_budget",
        kind="summary",
        going_messages=4,
        going_turns=2,
        summarised=4,
        shortened=0,
        kept_turns=1,
        pinned_turns=0,
        going_prompts=("a", "b"),
        kept_prompts=("c",),
        tokens_before=130_000,
        tokens_after=60_000,
        budget_tokens=102_400,
        window_tokens=128_000,
        window_is_guess=False,
        cached_tokens=2_000,
        fresh_tokens=58_000,
        uncut_fresh_tokens=100,
        summarised_tokens=70_000,
    )
    line = plan.over_budget_refusal
    assert line == "~130k tokens would pass the 128k window: not sent over the budget"
    assert replace(plan, tokens_before=128_000).over_budget_refusal is None
    assert "128k window (assumed)" in (replace(plan, window_is_guess=True).over_budget_refusal or "")


async def test_off_forecasts_no_cut_and_marks_nothing_next_to_go(workspace: Path) -> None:
    """Under the limit in `off`, the meter promised `≈N turns to summary` and the inspector marked
    rows `next to go` for a cut that never comes; switching to `auto` brings both back."""
    session = ChatSession(
        load_settings(max_history_messages=12, compact_mode="off"), workspace=workspace, model="offline"
    )
    for i in range(5):
        await collect(session.run_turn(f"note number {i}"))
    reading = session.meter_reading()
    assert reading.cuts_off and reading.turns_to_trim is None and not reading.trim_pending
    assert session.next_cut() is None
    assert session.context_breakdown().cuts_off, "/context says so too"
    session.set_compact_mode("auto")
    reading = session.meter_reading()
    assert not reading.cuts_off and reading.turns_to_trim is not None
    session.set_compact_mode("off")
    for i in range(2):  # past the limit, uncut
        await collect(session.run_turn(f"more {i}"))
    assert session.next_cut() is None
    session.set_compact_mode("auto")  # now the next send cuts
    cut = session.next_cut()
    assert cut is not None and cut.going
