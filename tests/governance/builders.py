"""Small builders for pydantic-ai histories used across governance tests."""

from __future__ import annotations

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
