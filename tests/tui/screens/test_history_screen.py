"""History inspector over a history really cut by the governance rules: tables, totals, ledger, snapshot."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from functools import cache

import pytest
from pilot_helpers import wait_until
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.usage import RequestUsage
from screen_host import TERMINAL, inspector_loaded, make_host, screen_env  # (fixtures)
from support.builders import MODULE_LINES, module_turn
from textual.widgets import DataTable, Static, TabbedContent

from co_tui.agent.offline import offline_model
from co_tui.governance import GovernancePolicy, Governor, estimate_tokens, trim_to_recent_turns, trim_tool_returns
from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.pins import pinned_tokens, turn_key
from co_tui.session.events import UsageUpdate
from co_tui.tui.screens.history import HistoryScreen

TURNS = 8
BUDGET = 900


@dataclass
class CutSession:
    """The inspector's view of a ChatSession (`HistoryView`), filled by the real trim rules; `pins`
    are transcript indices of pinned prompts, and every cut is undoable."""

    transcript: list
    context: list = field(default_factory=list)
    ledger: list[HistoryTrimmed] = field(default_factory=list)
    budget: int = BUDGET
    max_messages: int = 40
    ledger_positions: list[int] = field(default_factory=list)
    pins: list[int] = field(default_factory=list)
    passes: list[tuple[int, int]] = field(default_factory=list)  # per ledger entry; none: one event each

    def undoable_cuts(self) -> list[int]:
        return list(range(len(self.ledger)))

    def cut_pass(self, index: int) -> tuple[int, int]:
        return self.passes[index] if self.passes else (index, index)

    def meter_reading(self) -> UsageUpdate:
        keys = frozenset(k for i in self.pins if (k := turn_key(self.transcript[i])) is not None)
        return UsageUpdate(
            input_tokens=0,
            output_tokens=0,
            context_tokens=estimate_tokens(self.context),
            budget_tokens=self.budget,
            messages=len(self.context),
            max_messages=self.max_messages,
            pinned_tokens=pinned_tokens(self.context, keys),
        )


@pytest.fixture
def session() -> CutSession:
    transcript = [m for i in range(TURNS) for m in module_turn(i)]
    trimmed = trim_tool_returns(transcript, 200)
    cut = trim_to_recent_turns(trimmed.messages, BUDGET)
    assert cut.trimmed and trimmed.trimmed  # the fixture must exercise both kinds of cut
    return CutSession(
        transcript, cut.messages, [cut.to_event("token_budget", BUDGET)], ledger_positions=[len(transcript)]
    )


async def test_tables_totals_and_ledger(make_host, session):
    app = make_host(lambda: HistoryScreen(session))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        screen = app.screen
        transcript = screen.query_one("#transcript-table", DataTable)
        assert transcript.row_count == len(session.transcript)
        statuses = {str(transcript.get_row_at(i)[4]) for i in range(transcript.row_count)}
        assert {"dropped", "in context"} <= statuses
        context = screen.query_one("#context-table", DataTable)
        assert context.row_count == len(session.context)
        # Context rows carry the transcript's turn numbers and statuses (the kept turns are the newest).
        turns = [str(context.get_row_at(i)[1]) for i in range(context.row_count)]
        assert turns[0] == "–" and set(turns[1:]) == {str(TURNS - 1), str(TURNS)}
        assert "output truncated" in {str(context.get_row_at(i)[4]) for i in range(context.row_count)}
        totals = str(screen.query_one("#history-totals", Static).render())
        assert f"{TURNS} user turns" in totals and f"{len(session.transcript)} messages" in totals
        await pilot.press("l")
        await pilot.pause()
        assert screen.query_one("#history-tabs", TabbedContent).active == "ledger"
        assert screen.query_one("#ledger-table", DataTable).row_count == 1
        assert "token budget" in str(screen.query_one("#ledger-detail", Static).render()).lower()
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]


async def test_an_untrimmed_session_says_so(make_host):
    whole = module_turn(0)
    app = make_host(lambda: HistoryScreen(CutSession(whole, list(whole))))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        assert "No trims yet" in str(app.screen.query_one("#ledger-detail", Static).render())


def test_history_snapshot(snap_compare, make_host, session):
    assert snap_compare(make_host(lambda: HistoryScreen(session)), terminal_size=TERMINAL, run_before=inspector_loaded)


def test_history_ledger_snapshot(snap_compare, make_host, session):
    assert snap_compare(
        make_host(lambda: HistoryScreen(session)), terminal_size=TERMINAL, press=["l"], run_before=inspector_loaded
    )


async def test_at_60_columns_the_preview_keeps_its_room(make_host, session):
    """At 60 columns the preview column ran off the right edge (8 of its characters showed): there,
    the turn column goes and the status words shorten, and every column is on screen."""
    app = make_host(lambda: HistoryScreen(session))
    async with app.run_test(size=(60, 24)) as pilot:
        await inspector_loaded(pilot)
        table = app.screen.query_one("#context-table", DataTable)
        assert [str(column.label) for column in table.ordered_columns] == ["#", "kind", "tokens", "status", "preview"]
        assert table.ordered_columns[-1].width >= 19 and table.max_scroll_x == 0, "the preview fits on screen"
        statuses = {str(table.get_row_at(i)[3]) for i in range(table.row_count)}
        assert "truncated" in statuses and "in context" in statuses


def test_history_snapshot_at_60_columns(snap_compare, make_host, session):
    assert snap_compare(make_host(lambda: HistoryScreen(session)), terminal_size=(60, 24))


# Tool outputs of uneven size, so the chart's bars differ.


def _summariser_down(messages, info):
    raise ConnectionError("summariser unreachable")


async def _govern(turns: int, budget: int = 1300, revive_at: int = 6) -> CutSession:
    """A conversation run through the real policy turn by turn, as ChatSession does: the summariser is
    down at first (static marker, cooldown, zero-LLM trims), then, from turn `revive_at`, the offline
    model summarises."""
    now = [0.0]
    policy = GovernancePolicy(budget_tokens=budget, max_history_messages=16, tool_output_trim_chars=300)
    governor = Governor(policy, summarizer_model=FunctionModel(_summariser_down), clock=lambda: now[0])
    session = CutSession([], budget=policy.budget_tokens, max_messages=policy.max_history_messages)
    for i in range(turns):
        if i == revive_at:  # the cooldown is over and the summariser is back
            governor.summarizer_model, now[0] = offline_model(), 1000.0
        turn = module_turn(i, MODULE_LINES[i])
        session.transcript += turn
        outcome = await governor.apply(session.context + turn)
        session.context, session.ledger = outcome.messages, session.ledger + outcome.events
        session.ledger_positions += [len(session.transcript)] * len(outcome.events)
    return session


@cache
def _governed(turns: int, budget: int = 1300, revive_at: int = 6) -> CutSession:
    return asyncio.run(_govern(turns, budget, revive_at))


@pytest.fixture
def summarised() -> CutSession:
    """Ten turns: the old ones summarised, every kind of cut in the ledger (the outputs cut before a
    turn drop of the same pass are that drop's one event: issue 32 item 4)."""
    session = _governed(10)
    strategies = {event.strategy for event in session.ledger}
    assert {"static_marker", "turn_trim", "summary"} <= strategies
    return session


@pytest.fixture
def dropped_and_truncated() -> CutSession:
    """Seven turns, the summariser down throughout: old turns dropped (the failed summary's marker,
    then turn trims), and an old output shortened by a tool-output cut that reached the low-water
    mark without dropping the turn that holds it."""
    return _governed(7, 1600, revive_at=99)


async def test_transcript_statuses_follow_the_policy(make_host, summarised, dropped_and_truncated):
    for session, expected in (
        # The oldest turns were cut while the summariser was down (static marker, turn trims): a later
        # summary read only their breadcrumb, so they stay `dropped`.
        (summarised, {"dropped", "summarised", "in context"}),
        (dropped_and_truncated, {"dropped", "in context", "output truncated"}),
    ):
        app = make_host(lambda session=session: HistoryScreen(session))
        async with app.run_test(size=TERMINAL) as pilot:
            await inspector_loaded(pilot)
            table = app.screen.query_one("#transcript-table", DataTable)
            assert {str(table.get_row_at(i)[4]) for i in range(table.row_count)} == expected
            bars = app.screen.query_one("#history-chart").bars
            assert len(bars) == len({row.turn for row in app.screen.transcript_rows if row.turn})
            assert [bar.tokens > 0 for bar in bars] == [True] * len(bars)


async def test_keys_switch_tabs_and_move_the_ledger_detail(make_host, summarised):
    app = make_host(lambda: HistoryScreen(summarised))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        tabs = app.screen.query_one("#history-tabs", TabbedContent)
        for key, tab in (("t", "transcript"), ("l", "ledger"), ("c", "context")):
            await pilot.press(key)
            await pilot.pause()
            assert tabs.active == tab
            assert app.screen.focused is app.screen.query_one(f"#{tab}-table")
        await pilot.press("l")
        await pilot.pause()
        detail = app.screen.query_one("#ledger-detail", Static)
        first = str(detail.render())
        assert "summary failed" in first  # the ledger starts with the static marker and its note
        await pilot.press(*["down"] * (len(summarised.ledger) - 1))
        await pilot.pause()
        last = str(detail.render())
        assert last != first and "Extractive summary" in last


async def test_refresh_picks_up_a_session_that_moved_on(make_host):
    session = CutSession(module_turn(0), list(module_turn(0)))
    app = make_host(lambda: HistoryScreen(session))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        table = app.screen.query_one("#transcript-table", DataTable)
        assert table.row_count == 4
        session.transcript += module_turn(1)
        session.context += module_turn(1)
        await pilot.press("r")
        await inspector_loaded(pilot)
        assert table.row_count == 8
        await pilot.press("q")
        await pilot.pause()
        assert app.results == [None]


def test_history_summarised_snapshot(snap_compare, make_host, summarised):
    assert snap_compare(
        make_host(lambda: HistoryScreen(summarised)), terminal_size=TERMINAL, press=["t"], run_before=inspector_loaded
    )


def test_history_summarised_ledger_snapshot(snap_compare, make_host, summarised):
    assert snap_compare(
        make_host(lambda: HistoryScreen(summarised)), terminal_size=TERMINAL, press=["l"], run_before=inspector_loaded
    )


def _priced(turns: int) -> CutSession:
    """A Claude-like session: every response priced, the prompt cache written once, then read back."""
    from decimal import Decimal

    transcript = []
    for i in range(turns):
        for message in module_turn(i):
            if isinstance(message, ModelResponse):
                step = len(transcript)
                read = 0 if step < 2 else 900 + 150 * step
                write = 1_200 if step < 2 else 150
                usage = RequestUsage(
                    input_tokens=1_300 + 150 * step + write,
                    output_tokens=60 + 5 * step,
                    cache_read_tokens=read,
                    cache_write_tokens=write,
                    cost=Decimal("0.003") + Decimal(step) / 10_000,
                )
                message = replace(message, usage=usage, model_name="claude-sonnet-4-6")
            transcript.append(message)
    return CutSession(transcript, list(transcript), budget=8_000)


async def test_usage_tab_lists_every_request_with_cache_and_cost(make_host):
    session = _priced(3)
    app = make_host(lambda: HistoryScreen(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("4")
        await pilot.pause()
        tabs = app.screen.query_one("#history-tabs", TabbedContent)
        assert tabs.active == "usage"
        table = app.screen.query_one("#usage-table", DataTable)
        assert table.row_count == 6  # two requests a turn
        first, third = table.get_row_at(0), table.get_row_at(2)
        assert [str(cell) for cell in first[1:4]] == ["1", "2.6k", "–"]  # turn, input, nothing read yet
        assert str(first[4]) == "1.2k" and str(first[6]) == "$0.0031"
        assert str(third[1]) == "2" and str(third[3]).endswith("(75%)")  # 1,650 of 2,200 input read back
        totals = str(app.screen.query_one("#usage-totals", Static).render())
        assert totals.startswith("6 requests · $0.02") and "% of input read from cache" in totals
        # Every column is on screen at 80 columns: nothing scrolls off to the right.
        assert table.virtual_size.width <= table.size.width


async def test_usage_tab_says_when_the_model_is_unpriced(make_host):
    session = CutSession(module_turn(0), list(module_turn(0)))
    session.transcript[1] = replace(
        session.transcript[1], usage=RequestUsage(input_tokens=50, output_tokens=5), model_name="my-local-model"
    )
    app = make_host(lambda: HistoryScreen(session))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        table = app.screen.query_one("#usage-table", DataTable)
        assert str(table.get_row_at(0)[6]) == "unpriced"
        assert "cost unknown" in str(app.screen.query_one("#usage-totals", Static).render())


def test_history_usage_snapshot(snap_compare, make_host):
    session = _priced(3)
    assert snap_compare(
        make_host(lambda: HistoryScreen(session)), terminal_size=(80, 24), press=["4"], run_before=inspector_loaded
    )


def _evicted() -> CutSession:
    """Four turns: the first turn's tool output evicted, then the whole second turn."""
    from co_tui.governance.evict import evict

    transcript = [m for i in range(4) for m in module_turn(i, MODULE_LINES[i])]
    first = evict(transcript, 2, budget_tokens=BUDGET)
    second = evict(first.messages, 4, budget_tokens=BUDGET)
    return CutSession(
        transcript,
        second.messages,
        [first.event, second.event],
        ledger_positions=[len(transcript)] * 2,
    )


async def test_evicted_rows_are_marked_in_both_tabs(make_host):
    session = _evicted()
    app = make_host(lambda: HistoryScreen(session))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        context = app.screen.query_one("#context-table", DataTable)
        kinds = [str(context.get_row_at(i)[2]) for i in range(context.row_count)]
        statuses = [str(context.get_row_at(i)[4]) for i in range(context.row_count)]
        assert statuses[2] == "evicted" and kinds[4] == "marker"
        assert "Removed from the context by the user: the turn" in str(context.get_row_at(4)[5])
        transcript = [row.status for row in app.screen.transcript_rows]
        assert transcript.count("evicted") == 1 + 4  # the output, the second turn's four messages


def test_history_evicted_snapshot(snap_compare, make_host):
    session = _evicted()
    assert snap_compare(make_host(lambda: HistoryScreen(session)), terminal_size=TERMINAL, run_before=inspector_loaded)


def _about_to_cut():
    """Five turns under a 16-message limit: the next send trims (the real policy, previewed)."""
    from co_tui.governance.next_cut import preview_next_cut

    transcript = [m for i in range(5) for m in module_turn(i, MODULE_LINES[i])]
    session = CutSession(transcript, list(transcript), max_messages=16, budget=100_000)
    governor = Governor(GovernancePolicy(budget_tokens=100_000, max_history_messages=16, strategy="trim"))
    return session, lambda: preview_next_cut(governor, session.context)


async def test_next_to_go_rows_are_what_the_next_cut_removes(make_host):
    session, next_cut = _about_to_cut()
    cut = next_cut()
    assert cut is not None and cut.reason == "message_count" and cut.going
    app = make_host(lambda: HistoryScreen(session, next_cut=next_cut))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        table = app.screen.query_one("#context-table", DataTable)
        marked = [i for i in range(table.row_count) if str(table.get_row_at(i)[4]) == "next to go"]
        assert marked == cut.going
        assert marked == list(range(len(marked)))  # the oldest turns go first


def test_history_next_to_go_snapshot(snap_compare, make_host):
    session, next_cut = _about_to_cut()
    assert snap_compare(
        make_host(lambda: HistoryScreen(session, next_cut=next_cut)),
        terminal_size=TERMINAL,
        run_before=inspector_loaded,
    )


async def test_a_short_terminal_keeps_rows_of_every_table_on_screen(make_host, summarised):
    """At 60×20 the totals, the chart and the ledger's details took every line: the Trims tab
    showed no row at all. Under 30 lines the chart gives way and the details shorten; a resize
    while the inspector is open brings the chart back."""
    app = make_host(lambda: HistoryScreen(summarised))
    async with app.run_test(size=(60, 20)) as pilot:
        await inspector_loaded(pilot)
        await pilot.press("l")
        table = app.screen.query_one("#ledger-table", DataTable)
        chart = app.screen.query_one("#history-chart-row")
        await wait_until(pilot, lambda: table.size.height > 0, what="the ledger laid out")
        assert table.size.height >= 3, "the header and two cuts are on screen"
        assert not chart.display
        await pilot.resize_terminal(120, 36)
        await wait_until(pilot, lambda: chart.display and chart.size.height == 3, what="the chart back")
        assert table.size.height >= len(summarised.ledger) + 1
        context = app.screen.query_one("#context-table", DataTable)
        await wait_until(pilot, lambda: len(context.columns) == 6, what="the turn column back at 120 columns")
        await app.workers.wait_for_complete()


async def test_the_trims_table_does_not_call_summarised_messages_dropped(make_host, summarised):
    """The totals said `0 dropped · 132 summarised` over a Trims table whose `dropped` column held
    `24 msgs (6 turns)` for every summary: the column says `removed`, as the details do."""
    app = make_host(lambda: HistoryScreen(summarised))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        table = app.screen.query_one("#ledger-table", DataTable)
        assert [str(column.label) for column in table.ordered_columns] == [
            "#",
            "reason",
            "strategy",
            "removed",
            "tokens",
        ]
        assert any(str(table.get_row_at(i)[2]) == "older turns summarised" for i in range(table.row_count))
