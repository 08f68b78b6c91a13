"""Turns, steps and call/result pairing: the units governance may cut along.

A turn starts at a `ModelRequest` holding a real user prompt (not a marker, and not a request that
also answers tool calls) and runs to the next one, so a tool call and its result always live in one
turn. Messages before the first user prompt are the *prefix*: system-prompt-only requests stay there;
anything else (a response with no prompt, e.g. a history that was cut badly elsewhere) forms a
prompt-less turn so it can still be dropped as a unit. Markers are pulled out wherever they sit.

A step is one model response plus the requests that follow it up to the next response (its tool
results). Calls and results are paired by position within the turn — the earliest open call with
the same id — never by id across the history: real transcripts reuse ids.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)

from co_tui.governance.markers import MarkerInfo, is_compact_ack, marker_info
from co_tui.governance.tokens import _IdentityCache

__all__ = ["Layout", "Turn", "Pairing", "segment", "split_turns", "steps_of", "pair_calls", "check_pairing"]


@dataclass
class Turn:
    """One user turn: `messages` in order, and their `indices` in the history they came from."""

    messages: list[ModelMessage]
    indices: list[int]
    has_prompt: bool = True

    def __len__(self) -> int:
        return len(self.messages)

    def __iter__(self) -> Iterator[ModelMessage]:
        return iter(self.messages)

    def __getitem__(self, i: int) -> ModelMessage:
        return self.messages[i]


@dataclass
class Layout:
    """A history taken apart: system prefix, markers (with their info) and turns."""

    messages: Sequence[ModelMessage]
    system: list[int] = field(default_factory=list)
    markers: list[tuple[int, MarkerInfo]] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)

    @property
    def prior_messages(self) -> int:
        """Messages earlier cuts removed (the sum of the markers' counts)."""
        return sum(info.messages for _, info in self.markers)

    @property
    def prior_turns(self) -> int:
        """Turns earlier cuts removed (the sum of the markers' counts)."""
        return sum(info.turns for _, info in self.markers)


def _is_system_only(message: ModelMessage) -> bool:
    return (
        isinstance(message, ModelRequest)
        and bool(message.parts)
        and all(getattr(p, "part_kind", "") == "system-prompt" for p in message.parts)
    )


def answers_calls(part: object) -> TypeGuard[ToolReturnPart[Any] | RetryPromptPart]:
    """Whether a request part is the result of a tool call (a return, or a legacy tool retry).

    Typed returns (tool search, capability loads) are `ToolReturnPart` subclasses with its part kind.
    """
    if isinstance(part, ToolReturnPart):
        return True
    return isinstance(part, RetryPromptPart) and part.tool_name is not None


def starts_turn(message: ModelMessage) -> bool:
    """A request with a user prompt that answers no tool call (markers are checked separately)."""
    if not isinstance(message, ModelRequest):
        return False
    has_prompt = False
    for part in message.parts:
        kind = getattr(part, "part_kind", "")
        if kind == "user-prompt":
            has_prompt = True
        elif answers_calls(part):
            return False
    return has_prompt


_START, _SYSTEM, _OTHER = 1, 2, 3
# id(message) -> (message kind code, MarkerInfo | None); keyed on the parts list like token counts.
_CLASS_CACHE: _IdentityCache[tuple[int, MarkerInfo | None]] = _IdentityCache()


_PLAIN_RESPONSE: tuple[int, MarkerInfo | None] = (_OTHER, None)


def _classify(message: ModelMessage) -> tuple[int, MarkerInfo | None]:
    if isinstance(message, ModelResponse) and not message.metadata:
        # Only a response's metadata can make it a marker (a compact acknowledgement), and a response
        # never starts a turn: decided without the cache (half of a fresh history's first pass).
        return _PLAIN_RESPONSE
    parts = message.parts
    key = (id(parts), len(parts))
    cached = _CLASS_CACHE.get(message, key)
    if cached is not None:
        return cached
    info = marker_info(message)
    if info is not None:
        result: tuple[int, MarkerInfo | None] = (_OTHER, info)
    elif starts_turn(message):
        result = (_START, None)
    elif _is_system_only(message):
        result = (_SYSTEM, None)
    else:
        result = (_OTHER, None)
    _CLASS_CACHE.put(message, key, result)
    return result


def segment(messages: Sequence[ModelMessage]) -> Layout:
    """Take `messages` apart into system prefix, markers and turns (input untouched). O(messages).

    Each message's classification is cached by identity, so repeated passes cost a lookup each.
    """
    layout = Layout(messages)
    current: Turn | None = None
    previous_info: MarkerInfo | None = None
    for i, message in enumerate(messages):
        code, info = _classify(message)
        if info is None and previous_info is not None and previous_info.kind == "compact":
            if is_compact_ack(message, messages[i - 1]):
                info = MarkerInfo("compact_ack")
        previous_info = info
        if info is not None:
            layout.markers.append((i, info))
            continue
        if code == _START:
            current = Turn([message], [i])
            layout.turns.append(current)
        elif current is None:
            if code == _SYSTEM and not layout.turns:
                layout.system.append(i)
                continue
            current = Turn([message], [i], has_prompt=False)
            layout.turns.append(current)
        else:
            current.messages.append(message)
            current.indices.append(i)
    return layout


def split_turns(messages: Sequence[ModelMessage]) -> list[Turn]:
    """The user turns of `messages`, oldest first (markers and the system-only prefix excluded).

    Every tool call and its result land in the same turn. Never mutates its input.
    """
    return segment(messages).turns


def steps_of(turn: Turn) -> list[list[int]]:
    """Positions (within `turn.messages`) of each step: a response and the requests after it.

    The opening request(s) before the first response are not a step.
    """
    steps: list[list[int]] = []
    for pos, message in enumerate(turn.messages):
        if isinstance(message, ModelResponse):
            steps.append([pos])
        elif steps:
            steps[-1].append(pos)
    return steps


@dataclass
class Pairing:
    """Calls and results of one turn; positions are `(message position in turn, part index)`."""

    pairs: list[tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=list)
    unanswered: list[tuple[int, int]] = field(default_factory=list)
    orphans: list[tuple[int, int]] = field(default_factory=list)


def pair_calls(messages: Sequence[ModelMessage]) -> Pairing:
    """Pair tool calls with results inside one turn's messages, by position.

    Each result answers the earliest still-open call with the same id; a result with no open call
    is an orphan; calls left open are unanswered (e.g. a dangling last call).
    """
    pairing = Pairing()
    open_calls: list[tuple[str, tuple[int, int]]] = []
    for pos, message in enumerate(messages):
        if isinstance(message, ModelResponse):
            for k, part in enumerate(message.parts):
                if isinstance(part, ToolCallPart):  # typed calls (tool search, capability loads) too
                    open_calls.append((part.tool_call_id, (pos, k)))
            continue
        for k, request_part in enumerate(message.parts):
            if not answers_calls(request_part):
                continue
            match = next((j for j, (cid, _) in enumerate(open_calls) if cid == request_part.tool_call_id), None)
            if match is None:
                pairing.orphans.append((pos, k))
            else:
                pairing.pairs.append((open_calls.pop(match)[1], (pos, k)))
    pairing.unanswered = [where for _, where in open_calls]
    return pairing


def check_pairing(messages: Sequence[ModelMessage]) -> list[str]:
    """Human-readable pairing problems of a history, turn by turn (empty when every call is paired)."""
    problems: list[str] = []
    for n, turn in enumerate(split_turns(messages), 1):
        pairing = pair_calls(turn.messages)
        for pos, k in pairing.unanswered:
            call = turn.messages[pos].parts[k]
            if isinstance(call, ToolCallPart):  # always: pair_calls records only calls here
                problems.append(f"turn {n}: call {call.tool_name} ({call.tool_call_id}) has no result")
        for pos, k in pairing.orphans:
            result = turn.messages[pos].parts[k]
            if answers_calls(result):  # always: pair_calls records only results here
                problems.append(f"turn {n}: result {result.tool_name} ({result.tool_call_id}) has no call")
    return problems
