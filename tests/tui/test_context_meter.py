"""The context meter line: cost and cached share, the look-ahead, and how it shortens on narrow terminals."""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.app import App, ComposeResult

from co_tui.session.events import UsageUpdate
from co_tui.tui.widgets.context_meter import LAYOUTS, ContextMeter, ahead_text, economy_text, fit_layout, meter_width

# A Claude session past half its budget: cost known, most of the last request read from the cache.
READING = UsageUpdate(
    input_tokens=118_000,
    output_tokens=2_400,
    context_tokens=120_400,
    budget_tokens=160_000,
    messages=38,
    max_messages=40,
    exactness="exact",
    cache_read_tokens=95_600,
    cache_write_tokens=3_100,
    cost_usd=0.4213,
    turns_to_trim=3,
    window_tokens=200_000,  # the budget is 80% of it
)


def test_economy_text() -> None:
    assert economy_text(READING) == "$0.42 · 81% cached"
    assert economy_text(READING, short=True) == "$0.42"
    # Unpriced: the cached share alone. No cache use reported: the cost alone. Neither: nothing.
    assert economy_text(replace(READING, cost_usd=None)) == "81% cached"
    assert economy_text(replace(READING, cost_usd=None), short=True) == "81% cached"
    assert economy_text(replace(READING, cache_read_tokens=0, cache_write_tokens=0)) == "$0.42"
    assert economy_text(replace(READING, cost_usd=None, cache_read_tokens=0, cache_write_tokens=0)) == ""
    # Writes only (the first request after a cut): the cache is in use, nothing was read back yet.
    assert economy_text(replace(READING, cache_read_tokens=0)) == "$0.42 · 0% cached"


def test_ahead_text() -> None:
    assert ahead_text(READING) == "≈3 turns to trim"
    assert ahead_text(replace(READING, turns_to_trim=1)) == "≈1 turn to trim"
    assert ahead_text(READING, short=True) == "≈3 to trim"
    # Under the summarize strategy the forecast names its cut (issue 32, item 6).
    assert ahead_text(replace(READING, forecast_kind="summary")) == "≈3 turns to summary"
    assert ahead_text(replace(READING, forecast_kind="summary"), short=True) == "≈3 to summary"
    assert ahead_text(replace(READING, turns_to_trim=None)) == ""
    # A cut due on the next send outranks any forecast.
    assert ahead_text(replace(READING, trim_pending=True)) == "trims on next send"


@pytest.mark.parametrize("width", [118, 98, 78, 60, 40])
def test_the_line_fits_every_width(width: int) -> None:
    """The fullest layout that fits is chosen; down to 40 cells nothing is cropped."""
    layout = fit_layout(READING, width)
    assert meter_width(READING, layout) <= width
    fuller = LAYOUTS[: LAYOUTS.index(layout)]
    assert all(meter_width(READING, other) > width for other in fuller)


def test_at_80_columns_the_facts_stay() -> None:
    layout = fit_layout(READING, 78)  # 80 columns less the meter's padding
    assert layout.economy == "full" and layout.messages and layout.bar_width > 0
    assert fit_layout(READING, 98) == LAYOUTS[1]  # 100 columns: a shorter bar is all it takes


@pytest.mark.parametrize("width", [118, 98, 78, 60])
def test_the_attachment_note_comes_first_and_the_line_still_fits(width: int) -> None:
    """`@path` mentions in the prompt: what they add on send leads the notes, shortened with the rest."""
    from co_tui.tui.widgets.context_meter import meter_notes

    layout = fit_layout(READING, width, 1_234)
    assert meter_width(READING, layout, 1_234) <= width
    text, kind = meter_notes(READING, layout, 1_234)[0]
    assert kind == "attach"
    assert text == ("+1.2k @" if layout.ahead == "short" else "+1.2k tokens attached on send")
    assert meter_notes(READING, layout)[0][1] != "attach", "nothing to attach: no note"


class MeterHost(App[None]):
    """The meter alone, at the foot of a bare app, with one reading."""

    CSS = "Screen { align: left bottom; }"

    def __init__(self, reading: UsageUpdate) -> None:
        super().__init__()
        self.reading = reading

    def compose(self) -> ComposeResult:
        yield ContextMeter(id="meter")

    def on_mount(self) -> None:
        self.query_one(ContextMeter).reading = self.reading


@pytest.mark.parametrize("columns", [100, 80, 60])
def test_meter_economy_and_lookahead_snapshot(snap_compare, columns: int) -> None:
    assert snap_compare(MeterHost(READING), terminal_size=(columns, 3))


async def test_the_rendered_line_is_the_fitted_one() -> None:
    app = MeterHost(READING)
    async with app.run_test(size=(80, 3)) as pilot:
        await pilot.pause()
        line = str(app.query_one(ContextMeter).render())
        assert line.endswith("38/40 msgs · 120.4k/160k tokens (75%)  $0.42 · 81% cached  ≈3 to trim")
        assert len(line) <= 78


def test_meter_text_without_a_message_limit() -> None:
    """`max_history_messages = 0` turns the message limit off: the meter counts messages, no '/0'."""
    from co_tui.session.events import UsageUpdate
    from co_tui.tui.widgets.context_meter import meter_text

    reading = dict(input_tokens=0, output_tokens=0, context_tokens=18_200, budget_tokens=100_000, messages=23)
    assert meter_text(UsageUpdate(**reading, max_messages=40)).startswith("23/40 msgs · ")
    assert meter_text(UsageUpdate(**reading, max_messages=0)).startswith("23 msgs · ")


def test_the_meter_and_the_inspector_round_one_way() -> None:
    """The meter said 90% and the history inspector 89% for one figure."""
    from co_tui.tui.screens.history import _tokens_of_budget
    from co_tui.tui.widgets.context_meter import meter_text

    reading = replace(READING, context_tokens=143_900, budget_tokens=160_000)  # 89.94%
    assert meter_text(reading).endswith("(90%)")
    assert _tokens_of_budget(reading.context_tokens, reading.budget_tokens, False).endswith("(90%)")


def test_an_mcp_server_still_starting_is_said_like_a_guessed_window() -> None:
    """Its tool schemas are in no figure yet: the meter says so, shorter when narrow, and not at all
    once no server is starting."""
    from co_tui.tui.widgets.context_meter import meter_notes

    starting = replace(READING, mcp_starting=1)
    assert ("MCP tools not counted yet", "guess") in meter_notes(starting, LAYOUTS[0])
    assert ("MCP pending", "guess") in meter_notes(starting, LAYOUTS[-1])
    assert all("MCP" not in text for text, _ in meter_notes(READING, LAYOUTS[0]))
    assert meter_width(starting, fit_layout(starting, 78)) <= 78


async def test_the_bar_marks_the_budget_in_the_models_real_window(workspace) -> None:
    """With `context_budget_tokens` set, the budget is not `compact_threshold` of the window: the mark
    sits at budget / window, the same window /context draws (the session's, not the settings')."""
    from pilot_helpers import wait_ready, wait_until
    from quiet_app import QuietApp

    from co_tui.config import load_settings

    app = QuietApp(load_settings(context_budget_tokens=8_000), workspace)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_ready(pilot)
        meter = app.chat.meter
        await wait_until(pilot, lambda: meter.reading is not None, what="a reading")
        assert app.session is not None and meter.reading is not None
        breakdown = app.session.context_breakdown()
        assert meter.reading.window_tokens == breakdown.window_tokens > breakdown.budget_tokens == 8_000
        layout = fit_layout(meter.reading, meter.content_size.width)
        bar = str(meter.render()).removeprefix("Context ")[: layout.bar_width]
        assert set(bar) <= {"█", "░", "┃"} and bar.count("┃") == 1
        share = breakdown.budget_tokens / breakdown.window_tokens
        assert abs(share - app.settings.compact_threshold) > 0.2, "the test needs a budget off the threshold"
        assert bar.index("┃") == round(share * layout.bar_width)
