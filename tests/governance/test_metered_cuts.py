"""`in_meter_figures`: a policy pass's events restated in the meter's readings."""

from __future__ import annotations

from support.builders import tool_turn

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.meter import TokenMeter
from co_tui.governance.metered_cuts import in_meter_figures
from co_tui.governance.tokens import estimate_tokens
from co_tui.governance.trim import fit_to_budget


def _history() -> list:
    messages: list = []
    for n in range(6):
        messages += tool_turn(f"read part {n}", [f"line {n} " * 400], id_prefix=f"t{n}")
    return messages


def test_a_pass_starts_and_ends_at_the_meters_readings_and_chains_between() -> None:
    # A newest turn too heavy alone: the older turns go, then its older steps shrink (two events).
    history = [*_history()[:-12], *tool_turn("read all", [f"log {i} " * 3000 for i in range(6)], id_prefix="big")]
    fitted = fit_to_budget(history, estimate_tokens(history) // 3, tool_output_trim_chars=200)
    assert [e.strategy for e in fitted.events] == ["turn_trim", "step_shrink"], "a pass of several rules"
    meter = TokenMeter(provider="anthropic", overhead_tokens=300)  # ratio 1.2: figures differ from the rules'

    restated = in_meter_figures(fitted.events, meter, history, fitted.messages)

    assert restated[0].tokens_before == meter.reading(history).tokens != fitted.events[0].tokens_before
    assert restated[-1].tokens_after == meter.reading(fitted.messages).tokens
    for earlier, later in zip(restated, restated[1:], strict=False):
        assert later.tokens_before == earlier.tokens_after
    assert all(e.tokens_after <= e.tokens_before for e in restated)
    # Everything else is the rules' own account, and the inputs are untouched.
    assert [(e.strategy, e.dropped_messages) for e in restated] == [
        (e.strategy, e.dropped_messages) for e in fitted.events
    ]
    assert fitted.events[0].tokens_before == estimate_tokens(history)


def test_no_events_no_figures() -> None:
    assert in_meter_figures([], TokenMeter(), [], []) == []


def test_a_boundary_never_runs_past_the_passs_ends() -> None:
    meter = TokenMeter(provider="openai")
    events = [
        HistoryTrimmed(reason="token_budget", strategy="tool_output_trim", tokens_before=900, tokens_after=100),
        HistoryTrimmed(reason="token_budget", strategy="turn_trim", tokens_before=100, tokens_after=50),
    ]
    history = _history()
    restated = in_meter_figures(events, meter, history, history[-3:])
    first, last = meter.reading(history).tokens, meter.reading(history[-3:]).tokens
    assert last <= restated[0].tokens_after <= first
