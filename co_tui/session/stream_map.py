"""Map pydantic-ai run-stream events one-to-one onto co-tui domain events."""

from __future__ import annotations

import json
from typing import Any

from co_tui.session.events import TextDelta, ToolCall
from co_tui.session.tool_facts import tool_result


def tool_args_text(args: Any) -> str:
    """The call's arguments as the model wrote them: a raw string stays raw (it may not be JSON)."""
    if args is None:
        return "{}"
    if isinstance(args, str):
        return args
    try:
        return json.dumps(args, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(args)


def map_stream_event(event: Any, *, preview_chars: int = 0) -> list[Any]:
    """Domain events for one pydantic-ai stream event (text, tool call, tool result); [] otherwise.

    A tool result longer than `preview_chars` (`tool_output_preview_chars`; 0: none) carries the
    preview the model gets (`governance.preview.shown_preview`) as `content`, its whole length as
    `chars`: a front end never holds (or prints) a multi-megabyte output. Capability events (history
    trims) and run results are handled by the session, which needs to update its own state for them.
    """
    from pydantic_ai.messages import (
        FunctionToolCallEvent,
        FunctionToolResultEvent,
        PartDeltaEvent,
        PartStartEvent,
        RetryPromptPart,
        TextPart,
        TextPartDelta,
    )

    if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
        return [TextDelta(text=event.part.content)] if event.part.content else []
    if isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
        return [TextDelta(text=event.delta.content_delta)] if event.delta.content_delta else []
    if isinstance(event, FunctionToolCallEvent):
        call = event.part
        return [ToolCall(tool_name=call.tool_name, tool_call_id=call.tool_call_id, args=tool_args_text(call.args))]
    if isinstance(event, FunctionToolResultEvent):
        part = event.part
        if isinstance(part, RetryPromptPart):
            text = part.model_response()
            return [
                tool_result(
                    tool_name=part.tool_name or "",
                    tool_call_id=part.tool_call_id,
                    content=text,
                    chars=len(text),
                    is_error=True,
                )
            ]
        from co_tui.governance.preview import shown_preview

        text = part.model_response_str()
        return [
            tool_result(
                tool_name=part.tool_name,
                tool_call_id=part.tool_call_id,
                content=shown_preview(text, preview_chars),
                chars=len(text),
                is_error=getattr(part, "outcome", "success") not in ("success", None),
            )
        ]
    return []
