"""The session's cost: pricing rules over a transcript, the stored figure (schema 2) and its migration."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.usage import RequestUsage
from support.builders import saved_tool_turn

from co_tui.session import migrations
from co_tui.session.cost import cached_share, format_usd, request_costs, response_cost, session_cost
from co_tui.store.session_store import SessionStore


def answer(
    model: str | None, *, cost: str | None = None, input_tokens: int = 100, output_tokens: int = 10, read: int = 0
) -> ModelResponse:
    usage = RequestUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=read,
        cost=None if cost is None else Decimal(cost),
    )
    return ModelResponse(parts=[TextPart("ok")], usage=usage, model_name=model)


def prompt(text: str = "hi") -> ModelRequest:
    return ModelRequest(parts=[UserPromptPart(text)])


def test_priced_responses_add_up() -> None:
    transcript = [prompt(), answer("gpt-4o", cost="0.0125"), prompt(), answer("gpt-4o", cost="0.0300")]
    assert session_cost(transcript) == pytest.approx(0.0425)


def test_one_unpriced_response_makes_the_total_unknown() -> None:
    transcript = [prompt(), answer("gpt-4o", cost="0.01"), prompt(), answer("my-local-model")]
    assert response_cost(transcript[-1]) is None
    assert session_cost(transcript) is None


def test_offline_and_silent_responses_are_free() -> None:
    # The offline model reports usage but no price: it costs nothing. A response reporting no
    # tokens at all (a marker's acknowledgement, an answer cut off before usage came) bills nothing we know of.
    assert response_cost(answer("offline", input_tokens=500)) == 0
    assert response_cost(answer(None, input_tokens=0, output_tokens=0)) == 0
    assert session_cost([prompt(), answer("offline", input_tokens=500)]) == 0.0
    assert session_cost([]) == 0.0


def test_request_costs_lists_each_response_with_its_cache_counts() -> None:
    transcript = [prompt(), answer("gpt-4o", cost="0.02", input_tokens=4000, read=3000), prompt(), answer("x")]
    first, second = request_costs(transcript)
    assert (first.index, first.input_tokens, first.cache_read_tokens, first.cost) == (1, 4000, 3000, Decimal("0.02"))
    assert (second.index, second.cost) == (3, None)
    assert cached_share(first.input_tokens, first.cache_read_tokens) == 0.75
    assert cached_share(0, 0) is None


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [
        (None, 2, "–"),
        (0.0, 2, "$0.00"),
        (0.004, 2, "<$0.01"),
        (0.4249, 2, "$0.42"),
        (1234.5, 2, "$1,234"),
        (0.00421, 4, "$0.0042"),
        (0.00001, 4, "<$0.0001"),
    ],
)
def test_format_usd(value: float | None, digits: int, shown: str) -> None:
    assert format_usd(value, digits=digits) == shown


def test_save_turn_stores_keeps_and_clears_the_cost(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="openai:gpt-4o", workspace=tmp_path)
    [meta] = store.list_sessions()
    assert meta.cost_usd is None  # nothing known yet
    store.save_turn(sid, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[], cost_usd=0.42)
    assert store.list_sessions()[0].cost_usd == pytest.approx(0.42)
    store.save_turn(sid, new_transcript=[], context=None, new_events=[])  # not given: kept
    assert store.list_sessions()[0].cost_usd == pytest.approx(0.42)
    assert store.load(sid).meta.cost_usd == pytest.approx(0.42)
    store.save_turn(sid, new_transcript=saved_tool_turn(1), context=None, new_events=[], cost_usd=None)  # now unknown
    assert store.list_sessions()[0].cost_usd is None


def test_a_schema_1_database_gains_the_cost_column(data_dir: Path, tmp_path: Path) -> None:
    data_dir.mkdir(parents=True)
    conn = sqlite3.connect(data_dir / "sessions.db")
    for statement in migrations.MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO sessions (id, title, created, updated, model, workspace) VALUES "
        "('0ld5e55i0n', 'from before costs', 1.0, 1.0, 'offline', ?)",
        (str(tmp_path),),
    )
    conn.commit()
    conn.close()
    with SessionStore.open(data_dir) as store:
        [meta] = store.list_sessions()
        assert (meta.title, meta.cost_usd) == ("from before costs", None)  # unknown, not free
        store.save_turn(
            meta.id, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[], cost_usd=0.0
        )
        assert store.list_sessions()[0].cost_usd == 0.0
    conn = sqlite3.connect(data_dir / "sessions.db")
    assert migrations.schema_version(conn) == migrations.SCHEMA_VERSION == len(migrations.MIGRATIONS)
    conn.close()
