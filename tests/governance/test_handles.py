"""Handles: stamped by transcript position, unique although tool-call ids repeat; notes name them."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

from co_tui.governance.handles import call_of, handle_of, parse_handle, stamp_handles
from co_tui.governance.trim import trim_tool_returns, truncate_text


def _turn(prompt: str, outputs: list[str], call_id: str = "call_1") -> list:
    calls = [ToolCallPart("read_file", {"path": f"f{i}.py"}, tool_call_id=call_id) for i in range(len(outputs))]
    return [
        ModelRequest(parts=[UserPromptPart(prompt)]),
        ModelResponse(parts=calls),
        ModelRequest(parts=[ToolReturnPart("read_file", o, tool_call_id=call_id) for o in outputs]),
        ModelResponse(parts=[TextPart("done")]),
    ]


def test_handles_come_from_positions_not_reused_call_ids() -> None:
    history = [*_turn("a", ["one", "two"]), *_turn("b", ["three"])]  # the same call id everywhere
    frozen = [repr(m) for m in history]
    stamped = stamp_handles(history, 10)
    assert [repr(m) for m in history] == frozen  # never mutated
    parts = [p for m in stamped for p in m.parts if isinstance(p, ToolReturnPart)]
    assert [handle_of(p) for p in parts] == ["r12", "r12.1", "r16"]
    assert [call_of(p) for p in parts] == [
        'read_file(path="f0.py")',
        'read_file(path="f1.py")',
        'read_file(path="f0.py")',
    ]
    assert parse_handle("r12.1") == (12, 1) and parse_handle("x12") is None
    assert stamp_handles(stamped, 99) == stamped  # a stamp is never replaced
    assert stamped[0] is history[0]  # untouched messages pass by identity


def test_a_cut_note_names_the_call_and_the_recall_that_brings_it_back() -> None:
    history = [*stamp_handles(_turn("a", ["word " * 1000]), 0), *_turn("b", ["y"])]
    cut = trim_tool_returns(history, 100)
    content = cut.messages[2].parts[0].content
    assert content.startswith(("word " * 20)[:100])
    assert content.endswith('\n[…truncated, 5000 chars total — read_file(path="f0.py"); recall("r2") returns it whole]')
    assert trim_tool_returns(cut.messages, 100).trimmed_parts == 0  # idempotent with the longer note
    assert truncate_text("z" * 50, 10) == "z" * 10 + "\n[…truncated, 50 chars total]"  # no handle: the plain note


def test_an_eviction_marker_names_the_recall_that_brings_it_back() -> None:
    from co_tui.governance.evict import evict

    history = [*stamp_handles(_turn("a", ["word " * 100]), 0), *_turn("b", ["y"])]
    output = evict(history, 2).messages[2].parts[0].content
    assert output.startswith("[Removed from the context by the user") and output.endswith('; recall("r2") returns it]')
    turn = evict(history, 0).messages[0].parts[0].content
    assert turn.endswith('; recall(turns="1") returns it]')


def test_the_stub_policy_clears_recallable_outputs_to_their_note_only() -> None:
    text = "word " * 1000
    history = [*stamp_handles(_turn("a", [text]), 0), *_turn("b", [text]), *_turn("c", ["y"])]
    cut = trim_tool_returns(history, 100, stub=True)
    stamped_output = cut.messages[2].parts[0].content
    assert stamped_output == '\n[…truncated, 5000 chars total — read_file(path="f0.py"); recall("r2") returns it whole]'
    assert cut.messages[6].parts[0].content.startswith(text[:100])  # no handle: cut to its head as before
    assert trim_tool_returns(cut.messages, 100, stub=True).trimmed_parts == 0  # idempotent


async def test_with_stubs_a_summary_is_asked_for_only_when_clearing_is_not_enough() -> None:
    from pydantic_ai.models.function import FunctionModel

    from co_tui.governance.policy import Governor
    from co_tui.governance.policy_settings import GovernancePolicy
    from co_tui.governance.tokens import estimate_tokens

    calls: list[int] = []

    async def summarise(messages, info):
        calls.append(1)
        return ModelResponse(parts=[TextPart("a summary")])

    history: list = []
    for t in range(6):
        history += stamp_handles(_turn(f"turn {t}", ["word " * 1500]), len(history))
    budget = estimate_tokens(history) - 500

    async def cuts(clear: str) -> list[str]:
        policy = GovernancePolicy(budget_tokens=budget, tool_output_clear=clear)  # type: ignore[arg-type]
        out = await Governor(policy, summarizer_model=FunctionModel(summarise)).apply(history)
        return [e.strategy for e in out.events]

    assert await cuts("head") == ["summary"] and calls == [1]
    assert await cuts("stub") == ["tool_output_trim"] and calls == [1]  # cleared, nothing summarised away
