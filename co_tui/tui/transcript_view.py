"""What the chat log shows for saved messages (resume): pydantic-ai messages → display items.

Imports pydantic-ai lazily: it is only called once a session exists.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

TRUNCATION_MARK = "[…truncated"  # governance's marker on a shortened tool output (DESIGN §2)


@dataclass(frozen=True)
class Item:
    """One chat-log entry. `kind` picks the widget; unused fields stay empty."""

    kind: Literal["user", "assistant", "tool"]
    text: str = ""
    tool_name: str = ""
    tool_call_id: str = ""
    args: str = ""
    result: str | None = None
    is_error: bool = False
    at: int = 0  # index of the transcript message it starts at (places trim banners on resume)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        return "\n".join(part if isinstance(part, str) else f"[{type(part).__name__}]" for part in content)
    return str(content)


def _args_of(args: Any) -> str:
    if args is None:
        return ""
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


def _result_of(part: Any) -> str:
    content = part.content
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)


def transcript_items(messages: Sequence[Any]) -> list[Item]:
    """User prompts, assistant text runs and tool calls (paired with their results), in order."""
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        RetryPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    items: list[Item] = []
    tool_index: dict[str, int] = {}
    for at, message in enumerate(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart):
                    items.append(Item("user", text=_text_of(part.content), at=at))
                elif isinstance(part, (ToolReturnPart, RetryPromptPart)) and part.tool_call_id in tool_index:
                    i = tool_index[part.tool_call_id]
                    is_error = isinstance(part, RetryPromptPart)
                    text = part.model_response() if is_error else _result_of(part)
                    items[i] = Item("tool", tool_name=items[i].tool_name, tool_call_id=part.tool_call_id,
                                    args=items[i].args, result=text, is_error=is_error, at=items[i].at)
        elif isinstance(message, ModelResponse):
            for part in message.parts:
                if isinstance(part, TextPart) and part.content.strip():
                    if items and items[-1].kind == "assistant":
                        items[-1] = Item("assistant", text=items[-1].text + part.content, at=items[-1].at)
                    else:
                        items.append(Item("assistant", text=part.content, at=at))
                elif isinstance(part, ToolCallPart):
                    tool_index[part.tool_call_id] = len(items)
                    items.append(Item("tool", tool_name=part.tool_name, tool_call_id=part.tool_call_id,
                                      args=_args_of(part.args), at=at))
    return items


def truncated_tool_call_ids(context: Sequence[Any]) -> frozenset[str]:
    """Ids of tool calls whose output the model now sees shortened (governance's marker)."""
    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    ids = set()
    for message in context:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart) and TRUNCATION_MARK in _result_of(part)[-200:]:
                    ids.add(part.tool_call_id)
    return frozenset(ids)
