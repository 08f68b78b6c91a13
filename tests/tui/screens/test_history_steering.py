"""The inspector's undo (`u` on the Trims tab) and pin (`p`) views: snapshots and the keys, on a
history really cut by the governance rules (docs/context-governance.md, "Undo a cut" and "Pins")."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from screen_host import TERMINAL, inspector_loaded, make_host, screen_env  # (fixtures)
from support.builders import module_turn
from test_history_screen import BUDGET, TURNS, CutSession
from textual.widgets import DataTable, TabbedContent

from co_tui.governance import trim_to_recent_turns, trim_tool_returns
from co_tui.tui.screens.history import HistoryScreen

__all__ = ["make_host", "screen_env"]


@dataclass
class RecordingSteer:
    """Stands in for the chat controller: records the intents, answers with a line."""

    calls: list[tuple[str, int | None]] = field(default_factory=list)

    async def undo(self, cut: int | None = None) -> str:
        self.calls.append(("undo", cut))
        return "↶ Cut undone"

    async def toggle_pin(self, index: int | None = None) -> str:
        self.calls.append(("pin", index))
        return "pinned turn"


@pytest.fixture
def steered() -> CutSession:
    transcript = [m for i in range(TURNS) for m in module_turn(i)]
    trimmed = trim_tool_returns(transcript, 200)
    cut = trim_to_recent_turns(trimmed.messages, BUDGET)
    newest_prompt = len(transcript) - 4  # turn 8 of 8
    return CutSession(transcript, cut.messages, [cut.to_event("token_budget", BUDGET)], pins=[newest_prompt])


async def test_u_on_a_trims_row_and_p_on_a_message_call_the_controller(make_host, steered):
    steer = RecordingSteer()
    app = make_host(lambda: HistoryScreen(steered, steer=steer))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        await pilot.press("l", "u")
        await app.workers.wait_for_complete()
        assert steer.calls == [("undo", 0)]
        await pilot.press("t")
        table = app.screen.query_one("#transcript-table", DataTable)
        table.move_cursor(row=5)
        await pilot.press("p")
        await app.workers.wait_for_complete()
        assert steer.calls[-1] == ("pin", 5)
        await pilot.press("c")  # a context row pins the transcript message it shows
        context_table = app.screen.query_one("#context-table", DataTable)
        context_table.move_cursor(row=context_table.row_count - 1)
        await pilot.press("p")
        await app.workers.wait_for_complete()
        assert steer.calls[-1] == ("pin", len(steered.transcript) - 1)
        pinned_rows = {str(table.get_row_at(i)[4]) for i in range(table.row_count) if steered.transcript[i]}
        assert "pinned" in pinned_rows


async def test_without_a_controller_the_inspector_stays_read_only(make_host, steered):
    app = make_host(lambda: HistoryScreen(steered))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        await pilot.press("l", "u")
        await pilot.pause()
        assert "press u" not in str(app.screen.query_one("#ledger-detail").render())


TAB_KEYS = {"context": ("1", "c"), "transcript": ("2", "t"), "ledger": ("3", "l"), "usage": ("4",)}


def tab_key_walk() -> list[tuple[str, str, str]]:
    """Every (tab, key) pair once, as `(start, key, target)` steps ordered so that a key is pressed
    on the tab the step before went to wherever a pair from that tab is left: each step's start is
    reached by the key before it, not by setting the tab again (a tab switch lays out the tables:
    most of the test's time)."""
    left = [(start, key, target) for start in TAB_KEYS for target, keys in TAB_KEYS.items() for key in keys]
    steps, here = [], "context"
    while left:
        # From here, the pair whose target has the most pairs left to start (no dead end early).
        mine = [step for step in left if step[0] == here] or left
        step = max(mine, key=lambda s: sum(other[0] == s[2] for other in left if other is not s))
        left.remove(step)
        steps.append(step)
        here = step[2]
    return steps


def test_the_tab_key_walk_covers_every_pair_once() -> None:
    steps = tab_key_walk()
    pairs = {(start, key) for start in TAB_KEYS for keys in TAB_KEYS.values() for key in keys}
    assert sorted((start, key) for start, key, _ in steps) == sorted(pairs)
    assert all(target == next(t for t, keys in TAB_KEYS.items() if key in keys) for _, key, target in steps)
    jumps = sum(a[2] != b[0] for a, b in zip(steps, steps[1:], strict=False))
    assert jumps <= 4, jumps  # most starts are reached by the key before


@pytest.mark.parametrize("with_controller", [True, False])
async def test_each_key_does_one_thing_on_every_tab(make_host, steered, with_controller):
    """`1`-`4` (and `c`, `t`, `l`) switch tabs on every tab; `u` undoes on the Trims tab (with a
    controller) and nowhere switches to the Usage tab (it once did both, by tab). The tab keys are
    the screen's own bindings, the same with a controller or without: checked once, with one."""
    steer = RecordingSteer()
    app = make_host(lambda: HistoryScreen(steered, steer=steer if with_controller else None))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        tabs = app.screen.query_one("#history-tabs", TabbedContent)
        for start, key, target in tab_key_walk() if with_controller else ():
            if tabs.active != start:
                tabs.active = start  # the way there is not under test: every key is, from every tab
                await pilot.pause()
            assert tabs.active == start
            await pilot.press(key)
            await pilot.pause()
            assert tabs.active == target, f"{key} on the {start} tab"
        for start in TAB_KEYS:
            await pilot.press(TAB_KEYS[start][0])
            await pilot.pause()
            assert tabs.active == start
            before = list(steer.calls)
            await pilot.press("u")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert tabs.active == start, f"u on the {start} tab switched tabs"
            undone = [("undo", 0)] if with_controller and start == "ledger" else []
            assert steer.calls == [*before, *undone], f"u on the {start} tab"


def test_history_trims_tab_with_undo_snapshot(snap_compare, make_host, steered):
    assert snap_compare(
        make_host(lambda: HistoryScreen(steered, steer=RecordingSteer())),
        terminal_size=TERMINAL,
        press=["l"],
        run_before=inspector_loaded,
    )


def test_history_pinned_row_snapshot(snap_compare, make_host, steered):
    assert snap_compare(
        make_host(lambda: HistoryScreen(steered, steer=RecordingSteer())),
        terminal_size=TERMINAL,
        run_before=inspector_loaded,
    )


@pytest.fixture
def one_pass() -> CutSession:
    """A summary that failed and the turn drop after it: two events of one pass (they share the
    context the pass started from)."""
    from co_tui.governance.events import HistoryTrimmed

    transcript = [m for i in range(TURNS) for m in module_turn(i)]
    cut = trim_to_recent_turns(trim_tool_returns(transcript, 200).messages, BUDGET)
    failed = HistoryTrimmed(
        reason="token_budget",
        strategy="static_marker",
        dropped_messages=4,
        dropped_turns=1,
        tokens_before=2100,
        tokens_after=1661,
        budget_tokens=BUDGET,
        note="summary failed: ConnectionError: summariser unreachable; trimming only for 600s",
    )
    return CutSession(
        transcript,
        cut.messages,
        [failed, cut.to_event("token_budget", BUDGET)],
        ledger_positions=[len(transcript)] * 2,
        passes=[(0, 1), (0, 1)],
    )


async def test_the_undo_row_of_a_pass_says_u_takes_back_the_whole_pass(make_host, one_pass):
    """Issue 32 item 4: `u` on Trims row #2 undid #1 too (one pass) and said `cannot undo trim #1 …`;
    the row's `undo` line now names the pass before the key is pressed."""
    steer = RecordingSteer()
    app = make_host(lambda: HistoryScreen(one_pass, steer=steer))
    async with app.run_test(size=TERMINAL) as pilot:
        await inspector_loaded(pilot)
        await pilot.press("l", "down")
        await pilot.pause()
        table = app.screen.query_one("#ledger-table", DataTable)
        assert [str(table.get_row_at(i)[0]) for i in range(2)] == ["1┐", "2┘"]  # the rows of one pass
        detail = str(app.screen.query_one("#ledger-detail").render())
        assert "press u to undo trims #1–2 together (one pass): the model sees what they removed again" in detail
        await pilot.press("u")
        await app.workers.wait_for_complete()
        assert steer.calls == [("undo", 1)]


def test_history_trims_row_of_a_pass_snapshot(snap_compare, make_host, one_pass):
    assert snap_compare(
        make_host(lambda: HistoryScreen(one_pass, steer=RecordingSteer())),
        terminal_size=TERMINAL,
        press=["l", "down"],
        run_before=inspector_loaded,
    )
