"""The `usage` event of a real ChatSession: cost for the offline model, and a look-ahead that comes true."""

from __future__ import annotations

from pathlib import Path

from support.turns import collect

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession


def usage_of(events: list):
    return [e for e in events if e.type == "usage"][-1]


async def test_the_offline_model_costs_nothing(tmp_path: Path) -> None:
    chat = ChatSession(load_settings(), workspace=tmp_path)  # model "offline"
    usage = usage_of(await collect(chat.run_turn("hello")))
    assert usage.cost_usd == 0.0
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (0, 0)
    assert usage.input_tokens > 0


async def test_the_forecast_counts_down_to_the_cut(tmp_path: Path) -> None:
    """The offline model's turns grow the context alike: once past half the budget the meter
    forecasts the cut, the forecast counts down turn by turn, and the cut comes with the turn it
    named (give or take one)."""
    settings = load_settings(context_budget_tokens=2_400, context_strategy="trim", max_history_messages=400)
    chat = ChatSession(settings, workspace=tmp_path)
    forecasts: list[int | None] = []
    cut_at = None
    for turn in range(1, 60):
        events = await collect(chat.run_turn(f"question {turn}"))
        if any(e.type == "history_trimmed" for e in events):
            cut_at = turn
            break
        usage = usage_of(events)
        half = usage.context_tokens > usage.budget_tokens / 2
        assert (usage.turns_to_trim is not None) == (half and not usage.trim_pending), usage
        forecasts.append(usage.turns_to_trim)
    assert cut_at is not None, "the context never reached the budget"
    shown = [(turn, n) for turn, n in enumerate(forecasts, start=1) if n is not None]
    assert len(shown) >= 3, forecasts
    for turn, n in shown:
        assert abs((turn + n) - cut_at) <= 1, (turn, n, cut_at, forecasts)
    assert [n for _, n in shown] == sorted((n for _, n in shown), reverse=True)
