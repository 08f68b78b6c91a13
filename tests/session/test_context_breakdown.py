"""The /context breakdown: categories that add up to the meter, through real turns and real cuts."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from co_tui.config import load_settings
from co_tui.governance import estimate_tokens
from co_tui.governance.markers import make_breadcrumb, make_compact_pair
from co_tui.session.chat import ChatSession
from co_tui.session.context_breakdown import OverheadPart, apportion, classify_messages, compute_breakdown

PARTS = [OverheadPart("instructions", "co-tui", 400), OverheadPart("tool_schemas", "workspace", 300, 3)]


def _turn(i: int) -> list:
    return [
        ModelRequest(parts=[UserPromptPart(f"question {i}: " + "why does the parser fail " * 20)]),
        ModelResponse(parts=[TextPart(f"answer {i}: " + "because the lexer drops a token " * 20)]),
    ]


def _breakdown(messages: list, meter: int, **kwargs) -> object:
    return compute_breakdown(
        messages, PARTS, meter_tokens=meter, overhead_tokens=700, ratio=1.0, budget_tokens=20_000,
        window_tokens=25_000, **kwargs,
    )  # fmt: skip


@pytest.mark.parametrize("weights,total", [([1, 1, 1], 10), ([0.2, 5, 0], 7), ([3, 3], 0), ([0, 0], 5), ([], 3)])
def test_apportion_adds_up(weights: list[float], total: int) -> None:
    shares = apportion(weights, total)
    assert len(shares) == len(weights) and (sum(shares) == total or not weights)
    assert all(share >= 0 for share in shares)


def test_markers_and_compactions_are_their_own_category() -> None:
    summary, ack = make_compact_pair(6, 2, "the parser was fixed")
    messages = [make_breadcrumb(8, 2), *_turn(1), summary, ack, *_turn(2)]
    kinds = [key for key, _ in classify_messages(messages)]
    assert kinds == ["markers", "messages", "messages", "markers", "markers", "messages", "messages"]


def test_the_rows_add_up_to_the_meter_and_the_messages_keep_their_estimate() -> None:
    messages = [make_breadcrumb(8, 2), *_turn(1), *_turn(2)]
    before = copy.deepcopy(messages)
    estimate = estimate_tokens(messages)
    b = _breakdown(messages, meter=estimate + 900)
    assert b.total_tokens == sum(row.tokens for row in b.rows) == estimate + 900
    assert [row.key for row in b.rows] == ["instructions", "tool_schemas", "messages", "markers"]
    assert b.category_tokens("messages") + b.category_tokens("markers") == pytest.approx(estimate, abs=12)
    # The fixed part is the meter's remainder, shared 4:3 as the estimates are.
    fixed = b.category_tokens("instructions") + b.category_tokens("tool_schemas")
    assert fixed == pytest.approx(900, abs=12)
    assert b.category_tokens("instructions") / b.category_tokens("tool_schemas") == pytest.approx(4 / 3, rel=0.02)
    assert b.free_tokens == 20_000 - b.total_tokens and b.reserve_tokens == 5_000 and b.over_tokens == 0
    assert messages == before, "inputs are not changed"


def test_a_meter_below_the_messages_estimate_shrinks_every_part() -> None:
    messages = [*_turn(1), *_turn(2)]
    meter = estimate_tokens(messages) // 2
    b = _breakdown(messages, meter=meter)
    assert b.total_tokens == meter and all(row.tokens > 0 for row in b.rows)


def test_pinned_turns_have_a_row_only_when_there_are_some() -> None:
    messages = [*_turn(1), *_turn(2)]
    meter = estimate_tokens(messages) + 700
    assert "pinned" not in [row.key for row in _breakdown(messages, meter=meter).rows]
    pinned_ids = {id(messages[0]), id(messages[1])}
    b = _breakdown(messages, meter=meter, is_pinned=lambda m: id(m) in pinned_ids)
    (row,) = [row for row in b.rows if row.key == "pinned"]
    assert row.items == 2 and b.total_tokens == meter


def test_an_empty_context_holds_the_fixed_part() -> None:
    b = _breakdown([], meter=0)
    assert b.total_tokens == 700 and b.meter_tokens == 0 and [row.tokens for row in b.rows] == [400, 300]


def test_over_the_trigger() -> None:
    messages = [*_turn(1)]
    b = _breakdown(messages, meter=21_500)
    assert b.over_tokens == 1_500 and b.free_tokens == 0


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    return {
        "README.md": "# Demo\n\n" + "The parser reads the lexer's tokens one by one.\n" * 60,
        "AGENTS.md": "Answer briefly; cite file names.\n",
    }


async def test_a_real_session_adds_up_through_turns_and_cuts(workspace: Path) -> None:
    settings = load_settings(context_budget_tokens=3000, max_history_messages=0, context_strategy="trim")
    chat = ChatSession(settings, workspace=workspace)
    seen_markers = False
    for prompt in ("read README.md", "hello", "read README.md", "what did you find?", "read README.md", "ok"):
        async for _ in chat.run_turn(prompt):
            pass
        b = chat.context_breakdown()
        reading = chat.meter_reading()
        assert b.total_tokens == reading.context_tokens, (prompt, b, reading)
        assert b.exactness == chat.meter.reading(chat.context).exactness
        assert [row.label for row in b.rows][:3] == ["co-tui", "AGENTS.md", "workspace"]
        assert all(row.tokens >= 0 for row in b.rows)
        seen_markers = seen_markers or b.category_tokens("markers") > 0
    assert chat.ledger, "the budget made governance cut"
    assert seen_markers, "the cut's marker is counted as a marker"
    assert b.window_tokens == chat.binding.context_window and b.budget_tokens == 3000


async def test_a_pinned_turn_of_a_real_session_has_its_own_row(workspace: Path) -> None:
    settings = load_settings(context_budget_tokens=20_000, max_history_messages=0, context_strategy="trim")
    chat = ChatSession(settings, workspace=workspace)
    for prompt in ("read README.md", "hello"):
        async for _ in chat.run_turn(prompt):
            pass
    assert chat.context_breakdown().category_tokens("pinned") == 0
    await chat.pin_newest()  # "hello" and its answer
    b = chat.context_breakdown()
    pinned = b.category_tokens("pinned")
    assert 0 < pinned < b.category_tokens("messages"), b
    assert b.total_tokens == chat.meter_reading().context_tokens
