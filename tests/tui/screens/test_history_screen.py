"""History inspector over a history really cut by the governance rules: tables, totals, ledger, snapshot."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart
from textual.widgets import DataTable, Static, TabbedContent

from co_tui.governance import estimate_tokens, trim_tool_returns, trim_to_recent_turns
from co_tui.governance.events import HistoryTrimmed
from co_tui.session.events import UsageUpdate
from co_tui.tui.screens.history import HistoryScreen

from conftest import TERMINAL

TURNS = 8
BUDGET = 900


def _turn(i: int) -> list:
    call = f"call_{i}"
    return [
        ModelRequest(parts=[UserPromptPart(f"read module_{i}.py and explain it")]),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": f"module_{i}.py"}, tool_call_id=call)]),
        ModelRequest(parts=[ToolReturnPart("read_file", f"def step_{i}(x):\n    return x + {i}\n" * 40,
                                           tool_call_id=call)]),
        ModelResponse(parts=[TextPart(f"module_{i}.py defines step_{i}, which adds {i} to its input.")]),
    ]


@dataclass
class CutSession:
    """What the inspector reads from a ChatSession, filled by the real trim rules."""

    transcript: list
    context: list = field(default_factory=list)
    ledger: list[HistoryTrimmed] = field(default_factory=list)

    def meter_reading(self) -> UsageUpdate:
        return UsageUpdate(input_tokens=0, output_tokens=0, context_tokens=estimate_tokens(self.context),
                           budget_tokens=BUDGET, messages=len(self.context), max_messages=40)


@pytest.fixture
def session() -> CutSession:
    transcript = [m for i in range(TURNS) for m in _turn(i)]
    trimmed = trim_tool_returns(transcript, 200)
    cut = trim_to_recent_turns(trimmed.messages, BUDGET)
    assert cut.trimmed and trimmed.trimmed  # the fixture must exercise both kinds of cut
    return CutSession(transcript, cut.messages, [cut.to_event("token_budget", BUDGET)])


async def test_tables_totals_and_ledger(make_host, session):
    app = make_host(lambda: HistoryScreen(session))
    async with app.run_test(size=TERMINAL) as pilot:
        await pilot.pause()
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
    whole = _turn(0)
    app = make_host(lambda: HistoryScreen(CutSession(whole, list(whole))))
    async with app.run_test(size=TERMINAL) as pilot:
        await pilot.pause()
        assert "No trims yet" in str(app.screen.query_one("#ledger-detail", Static).render())


def test_history_snapshot(snap_compare, make_host, session):
    assert snap_compare(make_host(lambda: HistoryScreen(session)), terminal_size=TERMINAL)


def test_history_ledger_snapshot(snap_compare, make_host, session):
    assert snap_compare(make_host(lambda: HistoryScreen(session)), terminal_size=TERMINAL, press=["l"])
