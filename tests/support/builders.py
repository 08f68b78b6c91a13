"""Builders of pydantic-ai histories, one set for every test folder.

Governance shapes (`user`, `calls`, `results`, `tool_turn`, …) are bare messages; `saved_tool_turn`,
`breadcrumb` and `summary` carry what a saved session holds (usage, timestamps, markers' wording).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

_T0 = datetime(2025, 1, 1, tzinfo=UTC)


def system(text: str = "You are a helpful agent.") -> ModelRequest:
    return ModelRequest(parts=[SystemPromptPart(text)])


def user(text: str, *, with_system: str | None = None) -> ModelRequest:
    parts = [SystemPromptPart(with_system)] if with_system else []
    return ModelRequest(parts=[*parts, UserPromptPart(text)])


def reply(text: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(text)])


def calls(*specs: tuple[str, str, object], text: str | None = None) -> ModelResponse:
    """A response calling tools: specs are (tool_name, call_id, args)."""
    parts: list = [TextPart(text)] if text else []
    parts += [ToolCallPart(name, args, cid) for name, cid, args in specs]
    return ModelResponse(parts=parts)


def results(*specs: tuple[str, str, object]) -> ModelRequest:
    """A request with tool results: specs are (tool_name, call_id, content)."""
    return ModelRequest(parts=[ToolReturnPart(name, content, cid) for name, cid, content in specs])


def tool_turn(prompt: str, outputs: list[str], answer: str = "done", *, id_prefix: str = "c") -> list[ModelMessage]:
    """user → (call, result) per output → final text reply."""
    msgs: list[ModelMessage] = [user(prompt)]
    for i, out in enumerate(outputs):
        cid = f"{id_prefix}{i}"
        msgs.append(calls(("read_file", cid, {"path": f"f{i}.txt"})))
        msgs.append(results(("read_file", cid, out)))
    msgs.append(reply(answer))
    return msgs


def chat_turn(prompt: str, answer: str) -> list[ModelMessage]:
    return [user(prompt), reply(answer)]


# Line counts of the module turns of the history inspector's summarised conversation
# (tests/tui/screens/test_history_screen.py; tests/governance/test_policy.py replays its ledger).
MODULE_LINES = (3, 40, 8, 60, 5, 25, 12, 70, 6, 30)


def module_turn(i: int, lines: int = 40) -> list[ModelMessage]:
    """User turn `i`: asks to read module_i.py → read_file call → `lines` × 2 lines of code → answer."""
    call = f"call_{i}"
    return [
        user(f"read module_{i}.py and explain it"),
        calls(("read_file", call, {"path": f"module_{i}.py"})),
        results(("read_file", call, f"def step_{i}(x):\n    return x + {i}\n" * lines)),
        reply(f"module_{i}.py defines step_{i}, which adds {i} to its input."),
    ]


def saved_tool_turn(i: int, *, output_chars: int = 400) -> list[ModelMessage]:
    """Turn `i` as a session saves it: prompt → tool call → `output_chars` of tool output → answer,
    with the provider's usage, model name and timestamps (minute `i`) on its messages."""
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
