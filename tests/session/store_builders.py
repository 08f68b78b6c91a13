"""Messages built directly with pydantic_ai.messages, shaped like real agent turns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

_T0 = datetime(2025, 1, 1, tzinfo=UTC)


def tool_turn(i: int, *, output_chars: int = 400) -> list[ModelMessage]:
    """One user turn: prompt → tool call → tool output → answer, with provider usage on responses."""
    at = _T0 + timedelta(minutes=i)
    call_id = f"call_{i}"
    output = (f"line {i}: def handler(request): return process(request.body)  # TODO\n" * 200)[:output_chars]
    return [
        ModelRequest(parts=[UserPromptPart(f"read file_{i}.py and explain it", timestamp=at)]),
        ModelResponse(
            parts=[
                TextPart("Let me read it."),
                ToolCallPart("read_file", {"path": f"file_{i}.py"}, tool_call_id=call_id),
            ],
            usage=RequestUsage(input_tokens=100 + i, output_tokens=12),
            model_name="test-model",
            timestamp=at,
        ),
        ModelRequest(parts=[ToolReturnPart("read_file", output, tool_call_id=call_id, timestamp=at)]),
        ModelResponse(
            parts=[TextPart(f"file_{i}.py defines a request handler.")],
            usage=RequestUsage(input_tokens=200 + i, output_tokens=30),
            model_name="test-model",
            timestamp=at,
        ),
    ]


def breadcrumb(messages: int, turns: int) -> ModelRequest:
    """The marker `trim_to_recent_turns` leaves where it cut (docs/context-governance.md)."""
    return ModelRequest(
        parts=[
            UserPromptPart(
                f"[Earlier conversation trimmed — {messages} messages ({turns} turns) removed "
                "to stay within the context budget]",
                timestamp=_T0,
            )
        ]
    )


def summary(n: int, text: str) -> ModelRequest:
    """A summary marker as the summarize strategy writes it (docs/context-governance.md)."""
    return ModelRequest(parts=[UserPromptPart(f"[Summary of {n} earlier messages]\n{text}", timestamp=_T0)])
