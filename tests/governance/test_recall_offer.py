"""When `recall` is offered: only once the request's context carries a cut note (governance/recall_offer.py)."""

from __future__ import annotations

from dataclasses import replace

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.tools import ToolDefinition

from co_tui.governance.handles import stamp_handles
from co_tui.governance.markers import make_breadcrumb, make_evicted_marker
from co_tui.governance.preview import preview_big_outputs
from co_tui.governance.recall_offer import carries_cut_notes, offer_recall
from co_tui.governance.trim import truncate_text


def _turn(output: str) -> list:
    return stamp_handles(
        [
            ModelRequest(parts=[UserPromptPart("read it")]),
            ModelResponse(parts=[TextPart("ok")]),
            ModelRequest(parts=[ToolReturnPart("read_file", output, tool_call_id="a")]),
            ModelResponse(parts=[TextPart("done")]),
        ],
        0,
    )


def _params() -> ModelRequestParameters:
    return ModelRequestParameters(function_tools=[ToolDefinition(name="read_file"), ToolDefinition(name="recall")])


def test_nothing_cut_means_no_note_and_no_recall() -> None:
    messages = _turn("x" * 5000)
    params = _params()
    assert not carries_cut_notes(messages)
    offered = offer_recall(params, messages)
    assert [t.name for t in offered.function_tools] == ["read_file"]
    assert [t.name for t in params.function_tools] == ["read_file", "recall"]  # the input is not mutated


def test_every_kind_of_note_offers_recall() -> None:
    base = _turn("x" * 5000)
    out = base[2].parts[0]
    cut = replace(base[2], parts=[replace(out, content=truncate_text(out.content, 100))])
    variants = {
        "breadcrumb": [make_breadcrumb(4, 1), *base],
        "evicted": [make_evicted_marker(2, "[a tool output was removed]"), *base],
        "truncated": [*base[:2], cut, base[3]],
        "previewed": preview_big_outputs(base, 1000),
    }
    for kind, messages in variants.items():
        assert carries_cut_notes(messages), kind
        params = _params()
        assert offer_recall(params, messages) is params, kind


def test_a_request_without_recall_is_left_as_it_is() -> None:
    params = ModelRequestParameters(function_tools=[ToolDefinition(name="read_file")])
    assert offer_recall(params, _turn("x")) is params
