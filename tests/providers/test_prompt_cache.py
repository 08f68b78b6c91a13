"""Prompt caching and cost, on the wire: the real pydantic-ai clients against the loopback server.

- Anthropic requests carry `cache_control` breakpoints by default (the stable prefix: instructions
  and tool definitions; the moving tail: the request-level breakpoint), none with `prompt_cache = false`.
- The provider's cache counts and genai-prices' cost reach the `usage` event, add up over the
  session, are saved with it (`--list-sessions`, the export) and come back on resume.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from genai_prices import Usage, calc_price
from support.turns import collect, of_type

from co_tui.cli_sessions import list_sessions
from co_tui.session.export import export_json, export_markdown
from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore

from .harness import co_tui, provider_env, session, settings
from .loopback import LoopbackServer, Reply, ToolCallSpec

ANTHROPIC = "anthropic:claude-sonnet-4-6"
OPENAI = "openai-chat:gpt-4o"


def list_price(
    model: str, provider: str, *, input_tokens: int, output_tokens: int, read: int = 0, write: int = 0
) -> Decimal:
    """What genai-prices says one request costs (input counts include the cached part)."""
    usage = Usage(
        input_tokens=input_tokens, output_tokens=output_tokens, cache_read_tokens=read, cache_write_tokens=write
    )
    return calc_price(usage, model, provider_id=provider).total_price


async def test_anthropic_requests_carry_cache_breakpoints_by_default(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, model=ANTHROPIC)
    env.script(Reply("", tool_calls=(ToolCallSpec("list_dir", {"path": "."}),)), Reply("one"), Reply("two"))
    for prompt in ("look around", "and now?"):
        events = await collect(chat.run_turn(prompt))
        assert not events[-1].failed, events
    assert env.count("anthropic") == 3
    for request in env.requests:
        body = request.body
        # The stable prefix: the instructions and the tool definitions end with a breakpoint ...
        assert body["system"][-1]["cache_control"]["type"] == "ephemeral"
        assert body["tools"][-1]["cache_control"]["type"] == "ephemeral"
        # ... and the moving tail: Anthropic's request-level breakpoint follows the newest message.
        assert body["cache_control"]["type"] == "ephemeral"


async def test_prompt_cache_false_sends_no_cache_control(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, model=ANTHROPIC, prompt_cache=False)
    env.script(Reply("", tool_calls=(ToolCallSpec("list_dir", {"path": "."}),)), Reply("one"))
    events = await collect(chat.run_turn("look around"))
    assert not events[-1].failed, events
    assert env.count("anthropic") == 2
    for request in env.requests:
        assert "cache_control" not in json.dumps(request.body)


@pytest.mark.parametrize(
    ("model", "provider", "write"),
    [(OPENAI, "openai", 0), (ANTHROPIC, "anthropic", 300)],  # OpenAI reports no cache writes
)
async def test_cache_counts_and_cost_reach_the_usage_event(
    env: LoopbackServer, tmp_path: Path, model: str, provider: str, write: int
) -> None:
    chat = session(tmp_path, model=model)
    name = model.split(":", 1)[1]
    env.script(
        Reply("first", input_tokens=9_000, output_tokens=400, cache_write_tokens=write),
        Reply("second", input_tokens=12_000, output_tokens=600, cache_read_tokens=8_000),
    )
    first = of_type(await collect(chat.run_turn("one")), "usage")[-1]
    assert (first.input_tokens, first.cache_read_tokens, first.cache_write_tokens) == (9_000, 0, write)
    price_1 = list_price(name, provider, input_tokens=9_000, output_tokens=400, write=write)
    assert first.cost_usd == pytest.approx(float(price_1), abs=1e-9) and first.cost_usd > 0

    second = of_type(await collect(chat.run_turn("two")), "usage")[-1]
    assert (second.input_tokens, second.cache_read_tokens, second.cache_write_tokens) == (12_000, 8_000, 0)
    price_2 = list_price(name, provider, input_tokens=12_000, output_tokens=600, read=8_000)
    # The session's cost so far: both requests, the cached input at its lower rate.
    assert second.cost_usd == pytest.approx(float(price_1 + price_2), abs=1e-9)
    assert price_2 < list_price(name, provider, input_tokens=12_000, output_tokens=600)


async def test_cost_of_every_request_in_a_turn_with_tool_calls(env: LoopbackServer, tmp_path: Path) -> None:
    """A usage event in the middle of a turn already counts the response it reports."""
    chat = session(tmp_path, model=OPENAI)
    env.script(
        Reply("", tool_calls=(ToolCallSpec("list_dir", {"path": "."}),), input_tokens=5_000, output_tokens=50),
        Reply("done", input_tokens=6_000, output_tokens=80, cache_read_tokens=4_000),
    )
    usage = of_type(await collect(chat.run_turn("look")), "usage")
    costs = [u.cost_usd for u in usage]
    first = float(list_price("gpt-4o", "openai", input_tokens=5_000, output_tokens=50))
    both = first + float(list_price("gpt-4o", "openai", input_tokens=6_000, output_tokens=80, read=4_000))
    assert costs[0] == pytest.approx(first, abs=1e-9)
    assert costs[-1] == pytest.approx(both, abs=1e-9)
    assert costs == sorted(costs), "the session's cost never goes down"


async def test_an_unpriced_model_has_no_cost(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, model="openai-chat:qwen-local")
    env.script(Reply("hi", input_tokens=1_000, output_tokens=10, cache_read_tokens=600))
    usage = of_type(await collect(chat.run_turn("hello")), "usage")[-1]
    assert usage.cost_usd is None
    assert usage.cache_read_tokens == 600  # the cache counts are the provider's, priced or not


async def test_cost_is_saved_listed_exported_and_resumed(
    env: LoopbackServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir = tmp_path / "data"
    store = SessionStore.open(data_dir)
    try:
        chat = session(tmp_path, store=store, model=OPENAI)
        env.script(Reply("a long answer", input_tokens=90_000, output_tokens=2_000, cache_read_tokens=60_000))
        usage = of_type(await collect(chat.run_turn("hello")), "usage")[-1]
        expected = float(list_price("gpt-4o", "openai", input_tokens=90_000, output_tokens=2_000, read=60_000))
        assert usage.cost_usd == pytest.approx(expected, abs=1e-9)

        [meta] = store.list_sessions()
        assert meta.cost_usd == pytest.approx(expected, abs=1e-9)
        loaded = store.load(chat.id)
        assert f"- Cost: ${expected:.2f}" in export_markdown(loaded)
        assert json.loads(export_json(loaded))["meta"]["cost_usd"] == pytest.approx(expected, abs=1e-9)

        from co_tui.session.chat import ChatSession

        resumed = resume_session(settings(model=OPENAI), workspace=tmp_path, store=store, session_id=chat.id)
        reading = resumed.meter_reading()
        assert reading.cost_usd == pytest.approx(expected, abs=1e-9)
        assert (reading.input_tokens, reading.cache_read_tokens) == (90_000, 60_000)
    finally:
        store.close()
    assert list_sessions(settings(model=OPENAI, data_dir=data_dir), tmp_path) == 0
    out = capsys.readouterr().out
    assert "COST" in out.splitlines()[0] and f"${expected:.2f}" in out


def test_print_mode_usage_lines_carry_cache_and_cost(loopback: LoopbackServer, tmp_path: Path) -> None:
    loopback.script(
        Reply(
            "cached hello", input_tokens=20_000, output_tokens=100, cache_read_tokens=15_000, cache_write_tokens=2_000
        )
    )
    proc = co_tui(
        "-p",
        "hello",
        "--model",
        ANTHROPIC,
        "--output-format",
        "jsonl",
        cwd=tmp_path,
        env={**provider_env(loopback), "CO_TUI_DATA_DIR": str(tmp_path / "data")},
    )
    assert proc.returncode == 0, proc.stderr
    usage = [json.loads(line) for line in proc.stdout.splitlines() if '"usage"' in line]
    assert usage and all(u["type"] == "usage" for u in usage)
    last = usage[-1]
    assert (last["cache_read_tokens"], last["cache_write_tokens"]) == (15_000, 2_000)
    expected = list_price(
        "claude-sonnet-4-6", "anthropic", input_tokens=20_000, output_tokens=100, read=15_000, write=2_000
    )
    assert last["cost_usd"] == pytest.approx(float(expected), abs=1e-9)
    assert "turns_to_trim" in last
