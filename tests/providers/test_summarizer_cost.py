"""The summariser's calls count in the session's cost: the `summarize` strategy's summaries and
`/compact`, over the real OpenAI client to the loopback server with a priced model (gpt-4o).

Their responses are not part of the transcript; their usage rides on the cut's `history_trimmed`
event (and so in the saved ledger), and the session adds it to its cost: the meter, the `usage`
events, `sessions.cost_usd` (`--list-sessions`), the export and a resumed session all count it.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from genai_prices import Usage, calc_price
from support.turns import collect, of_type

from co_tui.session.export import export_json
from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore

from .harness import session, settings
from .loopback import LoopbackServer, Reply
from .scripted_session import SUMMARY, is_summary_request

OPENAI = "openai-chat:gpt-4o"


def price(input_tokens: int, output_tokens: int) -> Decimal:
    return calc_price(
        Usage(input_tokens=input_tokens, output_tokens=output_tokens), "gpt-4o", provider_id="openai"
    ).total_price


async def test_compact_counts_its_summariser_call_in_the_session_cost(env: LoopbackServer, tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path / "data")
    try:
        chat = session(tmp_path, store=store, model=OPENAI)
        env.script(Reply("an answer. " * 100, input_tokens=9_000, output_tokens=400))
        assert not (await collect(chat.run_turn("hello")))[-1].failed
        env.script(Reply("We said hello.", input_tokens=3_000, output_tokens=200))
        events = await collect(chat.compact())
        [trim] = of_type(events, "history_trimmed")
        assert (trim.summarizer_input_tokens, trim.summarizer_output_tokens) == (3_000, 200)
        assert trim.summarizer_cost_usd == pytest.approx(float(price(3_000, 200)), abs=1e-9)

        expected = float(price(9_000, 400) + price(3_000, 200))
        assert of_type(events, "usage")[-1].cost_usd == pytest.approx(expected, abs=1e-9)
        [meta] = store.list_sessions()
        assert meta.cost_usd == pytest.approx(expected, abs=1e-9)
        assert json.loads(export_json(store.load(chat.id)))["meta"]["cost_usd"] == pytest.approx(expected, abs=1e-9)
        chat.release_claim()

        from co_tui.session.chat import ChatSession

        resumed = resume_session(settings(model=OPENAI), workspace=tmp_path, store=store, session_id=chat.id)
        assert resumed.meter_reading().cost_usd == pytest.approx(expected, abs=1e-9)
    finally:
        store.close()


async def test_summaries_of_the_summarize_strategy_count_in_the_session_cost(
    env: LoopbackServer, tmp_path: Path
) -> None:
    main: list[Decimal] = []
    summaries: list[Decimal] = []

    def respond(request: Any) -> Reply:
        if is_summary_request(request.body):
            summaries.append(price(4_000, 150))
            return Reply(SUMMARY, input_tokens=4_000, output_tokens=150)
        main.append(price(2_000, 300))
        return Reply("noted " * 200, input_tokens=2_000, output_tokens=300)

    env.responder = respond
    chat = session(tmp_path, model=OPENAI, context_budget_tokens=4_000, context_strategy="summarize")
    events: list[Any] = []
    for turn in range(8):
        events += await collect(chat.run_turn(f"turn {turn}: " + "tell me more about this " * 60))
        assert not events[-1].failed, events[-3:]
    cuts = [e for e in of_type(events, "history_trimmed") if e.strategy == "summary"]
    assert cuts and len(cuts) == len(summaries)
    assert all(e.summarizer_input_tokens == 4_000 and e.summarizer_output_tokens == 150 for e in cuts)
    expected = float(sum(main) + sum(summaries))
    assert of_type(events, "usage")[-1].cost_usd == pytest.approx(expected, abs=1e-9)
    assert expected > float(sum(main))  # the summaries were not free


async def test_an_unpriced_summariser_makes_the_session_cost_unknown(env: LoopbackServer, tmp_path: Path) -> None:
    """A summary by an unpriced model: the session's cost is unknown, not a partial sum."""
    chat = session(tmp_path, model=OPENAI, summarization_model="openai-chat:qwen-local")
    env.script(Reply("an answer. " * 100, input_tokens=9_000, output_tokens=400))
    assert not (await collect(chat.run_turn("hello")))[-1].failed
    env.script(Reply("We said hello.", input_tokens=3_000, output_tokens=200))
    events = await collect(chat.compact())
    assert of_type(events, "history_trimmed")[0].summarizer_cost_usd is None
    assert of_type(events, "usage")[-1].cost_usd is None
