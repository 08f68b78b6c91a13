"""Hypothesis strategies for realistic agent histories.

Covers: system prompts (separate or inside the first request), parallel tool calls, retries (new
and legacy parts), dangling calls, reused ids, non-JSON arguments, dict/list outputs, huge outputs,
and markers (breadcrumbs by text and by metadata, summaries) left by earlier cuts.

Hypothesis draws the structure (turns, steps, sizes, endings, markers); the details inside a step
come from a `random.Random` seeded by one drawn integer. That keeps a generated case to ~30 draws,
so 10,000+ cases fit in CI time while shrinking still simplifies the structure.

Every part comes with its token count known (`_counted`), as a resumed session's messages do: the
texts come from a fixed pool, so the same content recurs in thousands of new part objects, and
counting it afresh in each (the estimator caches by identity) was ~40% of a property's CPU time.
"""

from __future__ import annotations

import random
import warnings
from functools import cache
from typing import TypeVar

from hypothesis import strategies as st
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from co_tui.governance import tokens
from co_tui.governance.markers import breadcrumb_text, make_breadcrumb, make_summary_marker

from .synthetic import CATEGORIES, make_text

SIZES = (0, 12, 60, 250, 1200, 6000, 20_000, 60_000)
SMALL = SIZES[:5]


@cache
def _text(category: str, size: int, seed: int) -> str:
    # A fixed pool (categories × sizes × 2 seeds): generation stays out of the per-example cost.
    return make_text(category, size, seed)


_P = TypeVar("_P", ModelRequestPart, ModelResponsePart)
_COUNTS: dict[tuple[object, ...], int] = {}


def _counted(part: _P, *content: object) -> _P:
    """`part`, its token count cached as if counted: `content` names everything its text is made of
    besides its class and tool name (pool texts, sizes), and the first part of each such content is
    counted by the real estimator. Bounded: the pool of texts is."""
    key = (type(part), getattr(part, "tool_name", None), *content)
    known = _COUNTS.get(key)
    if known is None:
        _COUNTS[key] = tokens.part_tokens(part)
    else:
        tokens._PART_CACHE.put(part, None, known)
    return part


def _pick_text(rng: random.Random, big: bool) -> str:
    return _text(rng.choice(CATEGORIES), rng.choice(SIZES if big else SMALL), rng.randrange(2))


def _call_id(rng: random.Random) -> str:
    # Reused ids are common in real transcripts: draw from a tiny pool half of the time.
    return rng.choice(("call_1", "call_2", "toolu_x")) if rng.random() < 0.5 else f"c{rng.getrandbits(40):x}"


# `_args` and `_output` return a value and what it is made of (the key `_counted` needs).
def _args(rng: random.Random) -> tuple[object, tuple[object, ...]]:
    kind = rng.randrange(4)
    if kind == 0:
        path = _pick_text(rng, False)[:40]
        return {"path": path}, ("path", path)
    if kind == 1:
        return "{not json", ("{not json",)
    if kind == 2:
        return "", ("",)
    text = _pick_text(rng, True)
    return {"content": text}, ("content", text)


def _output(rng: random.Random, big: bool) -> tuple[object, tuple[object, ...]]:
    kind = rng.randrange(6)
    if kind == 0:
        rows = rng.choice((0, 10, 3000))
        return {"rows": list(range(rows))}, ("rows", rows)
    if kind == 1:
        text = _pick_text(rng, False)
        return [text, 1], ("pair", text)
    text = _pick_text(rng, big)
    return text, (text,)


def _text_part(kind: type[_P], text: str, prefix: str = "") -> _P:
    return _counted(kind(prefix + text), prefix, text)


def _step(rng: random.Random, calls: int, big: bool) -> list[ModelMessage]:
    parts: list = []
    if rng.random() < 0.3:
        parts.append(_text_part(ThinkingPart, _pick_text(rng, False)))
    if rng.random() < 0.4:
        parts.append(_text_part(TextPart, _pick_text(rng, False)))
    call_parts = []
    for _ in range(calls):
        name = rng.choice(("read_file", "grep", "shell"))
        args, made_of = _args(rng)
        call_parts.append(_counted(ToolCallPart(name, args, _call_id(rng)), *made_of))
    results: list = []
    for call in call_parts:
        kind = rng.randrange(8)
        if kind == 0:  # legacy retry part: deprecated, but stored histories still hold it
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                retry = RetryPromptPart("bad args", tool_name=call.tool_name, tool_call_id=call.tool_call_id)
            results.append(_counted(retry))
        else:
            outcome = "retried" if kind == 1 else "success"
            output, made_of = _output(rng, big)
            results.append(
                _counted(ToolReturnPart(call.tool_name, output, call.tool_call_id, outcome=outcome), *made_of)
            )
    return [ModelResponse(parts=[*parts, *call_parts]), ModelRequest(parts=results)]


# One turn's shape: (calls per step, big outputs?, ending, system prompt inside the opening request?)
turn_shapes = st.tuples(
    st.lists(st.integers(1, 3), max_size=3),
    st.booleans(),
    st.sampled_from(("text", "text", "dangling", "none")),
    st.booleans(),
)


def _turn(rng: random.Random, shape, first: bool) -> list[ModelMessage]:
    step_calls, big, ending, with_system = shape
    opening: list = []
    if first and with_system:
        opening.append(_text_part(SystemPromptPart, _pick_text(rng, False), "You are a coding agent. "))
    opening.append(_text_part(UserPromptPart, _pick_text(rng, big and rng.random() < 0.3)))
    msgs: list[ModelMessage] = [ModelRequest(parts=opening)]
    for calls in step_calls:
        msgs += _step(rng, calls, big)
    if ending == "text":
        msgs.append(ModelResponse(parts=[_text_part(TextPart, _pick_text(rng, big and rng.random() < 0.3))]))
    elif ending == "dangling":
        msgs.append(ModelResponse(parts=[ToolCallPart("Finish", '{"answer": "x"}', _call_id(rng))]))
    return msgs


def _marker(kind: str, n: int, k: int) -> ModelMessage:
    if kind == "crumb_meta":
        return make_breadcrumb(n, k)
    if kind == "crumb_text":
        return ModelRequest(parts=[UserPromptPart(breadcrumb_text(n, k))])
    return make_summary_marker(n, k, _text("prose", 250 if n % 2 else 1200, k % 2))


@st.composite
def histories(draw, max_turns: int = 6) -> list[ModelMessage]:
    """A whole history: optional system request, optional earlier marker, 0..max_turns turns."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    msgs: list[ModelMessage] = []
    if draw(st.booleans()):
        msgs.append(ModelRequest(parts=[_text_part(SystemPromptPart, _pick_text(rng, False), "System: ")]))
    shapes = draw(st.lists(turn_shapes, max_size=max_turns))
    body = [_turn(rng, shape, first=(i == 0 and not msgs)) for i, shape in enumerate(shapes)]
    marker = draw(st.sampled_from(("none", "none", "crumb_meta", "crumb_text", "summary")))
    if marker != "none":
        m = _marker(marker, rng.randint(1, 90), rng.randint(1, 20))
        if draw(st.booleans()) or not body:
            msgs.append(m)
        else:
            body.insert(1, [m])
    for chunk in body:
        msgs += chunk
    return msgs
