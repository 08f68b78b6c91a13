"""The `offline` model: a deterministic stand-in built on pydantic-ai's `FunctionModel`. No network.

It says plainly that it is offline and how to configure a real model, and still exercises every
feature of co-tui so it can be demoed and tested without an API key:

- greetings, `help`, questions, anything else → honest canned replies that quote the input;
- `list .`, `search TODO`, `read notes.txt`, `run ls` (only when `run_shell` exists),
  joined with "and"/"then"/";" for several → it calls the workspace tools, then answers from their
  results (a file: line count, first lines, headings or definitions; a listing; match counts);
- `big output` → a search whose output is large and capped (to see tool-output trimming);
- `what did we do so far?` / `recap` → an extractive recap of the visible context, markers included;
- a summarisation request (governance's summariser or `/compact`, recognised by its
  `is_summarization_request`, or any tool-less agent asked for a summary) → an extractive summary:
  user asks, tools and files touched, final answers, earlier summaries, within the requested
  length and focus (see `extractive.py`);
- the word `slow` in a prompt → text streamed word by word with SLOW_DELAY_S between chunks; the
  environment variable `CO_TUI_OFFLINE_DELAY` (seconds per chunk) slows every reply instead;
- `CO_TUI_OFFLINE_HOLD` naming a file (for tests): a streamed text answer, once all its chunks are
  out, does not end while that file does not exist — the run stays "writing its answer" until the
  test creates it (or interrupts the run, which ends it at once). Unset: no hold.

Text streams in word chunks. Usage is reported per request: input tokens estimated from what was
sent (messages, instructions, tool definitions), output tokens from the answer, so the meter moves.
The profile declares a context window of OFFLINE_CONTEXT_WINDOW tokens.

What to answer is decided in `offline_plan.py` (the intents, replies and extractive summaries),
imported at the first request: a session builds its model without it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import ModelRequestParameters, StreamedResponse
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.profiles import ModelProfile
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RequestUsage

from co_tui.governance.tokens import estimate_text_tokens, estimate_tokens

if TYPE_CHECKING:
    from co_tui.agent.offline_plan import Reply

OFFLINE_MODEL_NAME = "offline"
OFFLINE_CONTEXT_WINDOW = 32_000
"""A typical small-model window: small enough that long sessions show trimming and summaries."""
DELAY_ENV = "CO_TUI_OFFLINE_DELAY"
HOLD_ENV = "CO_TUI_OFFLINE_HOLD"
HOLD_POLL_S = 0.05
"""How often a held answer looks for its release file (a test's condition, not a timing)."""


class OfflineModel(FunctionModel):
    """The offline stand-in. `model_name` and `system` are both "offline"."""

    def __init__(self) -> None:
        super().__init__(
            respond,
            stream_function=stream_reply,
            model_name=OFFLINE_MODEL_NAME,
            profile=ModelProfile(
                context_window=OFFLINE_CONTEXT_WINDOW,
                supports_json_schema_output=True,
                supports_json_object_output=True,
            ),
        )
        self._system = OFFLINE_MODEL_NAME

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """FunctionModel's stream, with input tokens estimated from the whole request.

        (FunctionModel's own stream counts a flat 50 input tokens, which would freeze the meter.)
        """
        async with super().request_stream(messages, model_settings, model_request_parameters, run_context) as stream:
            instructions = "\n".join(p.content for p in model_request_parameters.instruction_parts or ())
            tokens = input_tokens(messages, instructions, model_request_parameters.function_tools)
            # `_usage` is where every StreamedResponse keeps its usage (FunctionStreamedResponse adds to it too).
            # The offline model is free: a known zero cost, not an unpriced model's unknown one.
            stream._usage = replace(stream._usage, input_tokens=tokens, cost=Decimal(0))
            yield stream


def offline_model() -> OfflineModel:
    """A new offline model (stateless: every instance answers the same input the same way)."""
    return OfflineModel()


# --- the two FunctionModel entry points -------------------------------------------------------------


async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Non-streamed requests (`agent.run`): the whole reply in one response, usage included."""
    reply = plan(messages, info)
    if reply.calls:
        parts: list[Any] = [ToolCallPart(c.tool, c.args, tool_call_id=c.call_id) for c in reply.calls]
        out_text = " ".join(json.dumps(c.args) for c in reply.calls)
    else:
        parts = [TextPart(reply.text)]
        out_text = reply.text
    usage = RequestUsage(
        input_tokens=input_tokens(messages, info.instructions or "", info.function_tools),
        output_tokens=estimate_text_tokens(out_text),
        cost=Decimal(0),  # free: a known zero, not an unpriced model's unknown
    )
    return ModelResponse(parts=parts, usage=usage, model_name=OFFLINE_MODEL_NAME)


async def stream_reply(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    """Streamed requests (`run_stream_events`): text in word chunks, or the tool calls in one go."""
    reply = plan(messages, info)
    if reply.calls:
        if reply.delay_s:
            await anyio.sleep(reply.delay_s)
        yield {
            i: DeltaToolCall(name=c.tool, json_args=json.dumps(c.args), tool_call_id=c.call_id)
            for i, c in enumerate(reply.calls)
        }
        return
    for chunk in word_chunks(reply.text):
        if reply.delay_s:
            await anyio.sleep(reply.delay_s)
        yield chunk
    await held()


async def held() -> None:
    """Return once the file CO_TUI_OFFLINE_HOLD names exists (at once when it is unset or empty).

    Polls between sleeps, so cancelling the run (an interrupt) ends the wait at once.
    """
    raw = os.environ.get(HOLD_ENV, "").strip()
    if not raw:
        return
    release = Path(raw)
    while not release.exists():
        await anyio.sleep(HOLD_POLL_S)


def plan(messages: Sequence[ModelMessage], info: AgentInfo) -> Reply:
    """The reply to the request that ends `messages` (`offline_plan.plan_reply`, loaded at the first request)."""
    from co_tui.agent.offline_plan import plan_reply

    return plan_reply(messages, info, configured_delay())


# --- streaming, delay, usage -----------------------------------------------------------------------


def word_chunks(text: str) -> list[str]:
    """`text` split into chunks of one word plus its trailing whitespace (joined, they give `text` back)."""
    return re.findall(r"\s*\S+\s*", text) or ([text] if text else ["…"])


def configured_delay() -> float:
    """Seconds per chunk from CO_TUI_OFFLINE_DELAY (0 when unset or not a non-negative number)."""
    raw = os.environ.get(DELAY_ENV, "").strip()
    try:
        value = float(raw) if raw else 0.0
    except ValueError:
        return 0.0
    return value if 0 < value < 60 else 0.0


def input_tokens(messages: Sequence[ModelMessage], instructions: str, tools: Sequence[Any]) -> int:
    """Estimated input tokens of a request: messages, instructions and tool definitions.

    Uses the meter's own estimator, so the offline "provider" figure and the meter agree.
    """
    schema = json.dumps(
        [{"name": t.name, "description": t.description, "parameters": t.parameters_json_schema} for t in tools]
    )
    return estimate_tokens(list(messages)) + estimate_text_tokens(instructions) + estimate_text_tokens(schema)
