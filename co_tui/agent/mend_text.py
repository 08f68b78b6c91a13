"""`MendText`: the one place model and tool text enters a run, where surrogates are mended.

A provider's JSON may split an emoji's UTF-16 pair across two stream chunks (`"smile \\ud83d"`,
then `"\\ude00 end"`), or hold a lone surrogate (in tool arguments, an MCP result). Python keeps
such halves as lone code points, which UTF-8 cannot encode: the save, the rescue copy, the
terminal and the next request would all fail on them. This capability, on every agent whatever
its provider, joins pairs and replaces lone halves with U+FFFD (`text.mend_surrogates`):

- in each model response before the run keeps it (`after_model_request`): history, tool calls
  (raw JSON arguments that spell a surrogate out as `\\ud83d` are decoded and mended too);
- in each tool result before the model gets it (`after_tool_execute`);
- in the streamed deltas a front end shows (`wrap_run_event_stream`): a delta ending in the first
  half of a pair holds that half back until the next delta of the same part, so the pair shows
  as its character.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import AsyncIterable
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    AgentStreamEvent,
    ModelResponse,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
)

from co_tui.text import ends_in_high_surrogate, mend_surrogates

__all__ = ["MendText", "mended"]

_Held = dict[int, tuple[str, type[TextPartDelta | ThinkingPartDelta]]]


def mended(value: Any) -> Any:
    """`value` with every string in it mended (`mend_surrogates`): strings, lists, tuples, dicts
    and dataclasses (message parts, `ToolReturn`) are rebuilt only where something changed; other
    values are returned as they are."""
    if isinstance(value, str):
        return mend_surrogates(value)
    if isinstance(value, list):
        items = [mended(v) for v in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        items = [mended(v) for v in value]
        return tuple(items) if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if isinstance(value, dict):
        pairs = {mended(k): mended(v) for k, v in value.items()}
        changed = any(a is not b for a, b in zip(pairs.values(), value.values(), strict=True))
        return pairs if changed or list(pairs) != list(value) else value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for field in dataclasses.fields(value):
            if not field.init:
                continue
            old = getattr(value, field.name)
            new = mended(old)
            if new is not old:
                changes[field.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    return value


@dataclasses.dataclass
class MendText(AbstractCapability[Any]):
    """Mends surrogates in what a run receives (module docstring). Stateless between runs."""

    async def after_model_request(self, ctx: Any, *, request_context: Any, response: ModelResponse) -> ModelResponse:
        """The response with its parts mended (the same object when nothing needed it)."""
        parts = mended([_mend_args(p) for p in response.parts])
        return response if parts is response.parts else dataclasses.replace(response, parts=parts)

    async def after_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, result: Any) -> Any:
        """The tool's result with its text mended."""
        return mended(result)

    async def wrap_run_event_stream(
        self, ctx: Any, *, stream: AsyncIterable[AgentStreamEvent]
    ) -> AsyncIterable[AgentStreamEvent]:
        """The stream with text and thinking mended; a trailing first half of a pair waits for the
        next delta of its part (it becomes U+FFFD if its part ends first)."""
        held: _Held = {}  # part index -> the high surrogate held back, and its delta's kind
        try:
            async for event in stream:
                for out in _mend_event(event, held):
                    yield out
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()


def _mend_event(event: AgentStreamEvent, held: _Held) -> list[AgentStreamEvent]:
    """`event` mended, after the held half of its part (as U+FFFD) when the part starts anew or ends."""
    if isinstance(event, PartDeltaEvent) and isinstance(event.delta, (TextPartDelta, ThinkingPartDelta)):
        text = event.delta.content_delta
        if text is None:
            return [event]
        before, _kind = held.pop(event.index, ("", TextPartDelta))
        text, tail = _split_tail(before + text)
        if tail:
            held[event.index] = (tail, type(event.delta))
        return [dataclasses.replace(event, delta=dataclasses.replace(event.delta, content_delta=mend_surrogates(text)))]
    out: list[AgentStreamEvent] = []
    if isinstance(event, (PartStartEvent, PartEndEvent)) and event.index in held:
        _tail, kind = held.pop(event.index)
        out.append(PartDeltaEvent(index=event.index, delta=kind(content_delta="\ufffd")))
    if isinstance(event, PartStartEvent) and isinstance(event.part, (TextPart, ThinkingPart)):
        text, tail = _split_tail(event.part.content)
        if tail:
            held[event.index] = (tail, TextPartDelta if isinstance(event.part, TextPart) else ThinkingPartDelta)
        event = dataclasses.replace(event, part=dataclasses.replace(event.part, content=mend_surrogates(text)))
    elif isinstance(event, (PartStartEvent, PartEndEvent)):
        event = dataclasses.replace(event, part=mended(event.part))
    out.append(event)
    return out


# A JSON string escape of a surrogate (`\\ud83d`): raw tool arguments may spell one out.
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _mend_args(part: Any) -> Any:
    """A tool call whose raw JSON arguments spell out a surrogate, with them decoded, mended and
    written back (pydantic would reject the lone half, and its error would carry it on)."""
    args = getattr(part, "args", None)
    if not isinstance(part, ToolCallPart) or not isinstance(args, str) or not _ESCAPED_SURROGATE.search(args):
        return part
    try:
        value = json.loads(args)
    except ValueError:
        return part  # not JSON: the tool's own validation says so
    return dataclasses.replace(part, args=json.dumps(mended(value), ensure_ascii=False))


def _split_tail(text: str) -> tuple[str, str]:
    """`text` without a trailing high surrogate, and that surrogate ('' when there is none)."""
    return (text[:-1], text[-1]) if ends_in_high_surrogate(text) else (text, "")
