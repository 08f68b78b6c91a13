"""`recall` lookups: read back, verbatim, what governance took out of the model's view.

Pure functions over one session's transcript (append-only, originals only) and its context (what
the model is sent). Nothing else is reachable: a handle names a position in *this* transcript
(governance/handles.py), so it cannot point into another session or the file system.

- `recall_output(transcript, "r12")`: a tool output whole, as the tool returned it;
- `recall_turns(transcript, "3-5")`: those turns as they happened (prompts, answers, calls, outputs);
- `search_history(transcript, context, "pattern")`: literal, case-insensitive hits in what the model
  cannot see (turns out of view, outputs that were cut), each with its turn and handle.

Each result is one page: `offset`/`limit` in characters, `limit` capped at the caller's `page_chars`
(a share of the budget), and the header says how to get the next page. Text goes through `redact`
(the store's redaction of secret-looking environment values) before it is returned.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from co_tui.governance.cut_notes import turn_numbers
from co_tui.governance.handles import (
    RECALL_TOOL,
    RECALLED_KEY,
    call_of,
    handle_of,
    parse_handle,
    recall_call,
    render_call,
)
from co_tui.governance.markers import TRUNCATION_MARK, separate_markers
from co_tui.governance.preview import HEAD_CHARS, TAIL_CHARS, previewed_chars
from co_tui.governance.tokens import content_text
from co_tui.governance.turns import segment

__all__ = [
    "RecallError",
    "Recalled",
    "recall_output",
    "recall_turns",
    "search_history",
    "has_cut",
    "recalled_what",
    "page_chars_for",
    "MAX_HITS",
    "SEARCH_DEADLINE_S",
]

MAX_HITS = 20
HIT_CONTEXT_CHARS = 80
SEARCH_DEADLINE_S = 10.0  # as search_text's child-process timeout
PAGE_SHARE = 0.2  # one recall page: at most this share of the budget


class RecallError(ValueError):
    """A recall that cannot be answered (unknown handle, bad range): its one-line message says why."""


@dataclass(frozen=True)
class Recalled:
    """One page of a recall: `text` (header line + the page), and where it came from.

    `spec` is what the call asked for (`{"handle": …}`, `{"turns": …}` or `{"search": …}`): a recall's
    own output carries it, so recalling that output asks the same again (no header inside a header)."""

    text: str
    spec: dict[str, str]
    turn: int | None = None
    total_chars: int = 0
    next_offset: int | None = None


Redact = Callable[[str], str]


def _same(text: str) -> str:
    return text


def page_chars_for(budget_tokens: int) -> int:
    """Characters one recall page may hold: `PAGE_SHARE` of the budget at ~3 characters a token
    (conservative: code and logs run denser), at least 1,000."""
    return max(1000, int(budget_tokens * PAGE_SHARE * 3))


def _numbered_turns(transcript: Sequence[ModelMessage]) -> list[tuple[int, list[int]]]:
    """(turn number, transcript indices) of every turn of the transcript, in order."""
    layout = segment(transcript)
    return list(zip(turn_numbers(layout), (t.indices for t in layout.turns), strict=True))


def _turn_of_index(transcript: Sequence[ModelMessage], index: int) -> int | None:
    for number, indices in _numbered_turns(transcript):
        if indices[0] <= index <= indices[-1]:
            return number
    return None


def _page(body: str, offset: int, limit: int, page_chars: int) -> tuple[str, int, int | None]:
    """(page, start, next offset or None) of `body` from `offset`, at most min(limit, page_chars) chars."""
    size = page_chars if limit <= 0 else min(limit, page_chars)
    start = max(0, min(offset, len(body)))
    end = min(len(body), start + size)
    return body[start:end], start, end if end < len(body) else None


def _find_output(transcript: Sequence[ModelMessage], handle: str) -> tuple[ToolReturnPart[Any], int] | None:
    where = parse_handle(handle)
    if where is None or not 0 <= where[0] < len(transcript):
        return None
    message = transcript[where[0]]
    if not isinstance(message, ModelRequest):
        return None
    for part in message.parts:
        if isinstance(part, ToolReturnPart) and handle_of(part) == handle.strip():
            return part, where[0]
    return None


def _header(what: str, start: int, shown: int, total: int, next_offset: int | None, again: str) -> str:
    span = f"chars {start}-{start + shown} of {total}"
    more = f"; next page: {again[:-1]}, offset={next_offset})" if next_offset is not None else "; the end"
    return f"[{what}, {span}{more}]"


def recall_output(
    transcript: Sequence[ModelMessage],
    handle: str,
    *,
    offset: int = 0,
    limit: int = 0,
    page_chars: int = 20_000,
    redact: Redact = _same,
) -> Recalled:
    """The tool output `handle` names, verbatim (one page). A handle naming a recall's own output
    answers what that recall asked (its original), so recalls never nest. Raises `RecallError`."""
    found = _find_output(transcript, handle)
    if found is None:
        raise RecallError(f"no tool output {handle!r} in this session (handles look like r12)")
    part, index = found
    spec = (part.metadata or {}).get(RECALLED_KEY) if isinstance(part.metadata, dict) else None
    if part.tool_name == RECALL_TOOL and isinstance(spec, dict):
        return recall_spec(transcript, (), spec, offset=offset, limit=limit, page_chars=page_chars, redact=redact)
    body = redact(content_text(part.content))
    page, start, next_offset = _page(body, offset, limit, page_chars)
    turn = _turn_of_index(transcript, index)
    call = call_of(part) or render_call(part.tool_name, None)
    what = f"{recall_call(handle)}: the output of {call}" + (f" from turn {turn}" if turn is not None else "")
    text = _header(what, start, len(page), len(body), next_offset, recall_call(handle)) + "\n" + page
    return Recalled(text, {"handle": handle}, turn, len(body), next_offset)


def _parse_range(turns: str, last: int) -> tuple[int, int]:
    text = turns.replace("–", "-").replace(" ", "")
    shown = repr(turns) if len(turns) <= 40 else repr(turns[:40]) + f"… ({len(turns):,} characters)"
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", text)
    if match is None:
        raise RecallError(f'turns must look like "3" or "3-5", not {shown}')
    # A number past the session's turns is said as such, however many digits it has (int() refuses
    # over 4,300 digits): compared as text lengths first.
    first_s, end_s = match.group(1).lstrip("0") or "0", (match.group(2) or match.group(1)).lstrip("0") or "0"
    if len(first_s) > len(str(last)) or int(first_s) > last:
        raise RecallError(f"no turn {shown if len(first_s) > 40 else first_s}: this session has {last} turns")
    first = int(first_s)
    end = last if len(end_s) > len(str(last)) else int(end_s)
    if first < 1 or end < first:
        raise RecallError(f"no turns {shown}: turns are numbered from 1")
    return first, min(end, last)


def _render_message(message: ModelMessage) -> list[str]:
    lines: list[str] = []
    if isinstance(message, ModelRequest):
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                content = part.content if isinstance(part.content, str) else content_text(list(part.content))
                lines.append(f"user: {content}")
            elif isinstance(part, ToolReturnPart):
                handle = handle_of(part)
                name = f"{part.tool_name} {handle}" if handle else part.tool_name
                lines.append(f"tool output ({name}):\n{content_text(part.content)}")
    elif isinstance(message, ModelResponse):
        for answer in message.parts:
            if isinstance(answer, TextPart):
                lines.append(f"assistant: {answer.content}")
            elif isinstance(answer, ToolCallPart):
                lines.append(f"tool call: {render_call(answer.tool_name, answer.args, limit=10_000)}")
    return lines


def recall_turns(
    transcript: Sequence[ModelMessage],
    turns: str,
    *,
    offset: int = 0,
    limit: int = 0,
    page_chars: int = 20_000,
    redact: Redact = _same,
) -> Recalled:
    """Turns `turns` ("3" or "3-5", 1-based as the markers number them) as they happened: prompts,
    answers, tool calls and outputs in order (one page). Raises `RecallError`."""
    numbered = _numbered_turns(transcript)
    if not numbered:
        raise RecallError("this session has no turns yet")
    first, last = _parse_range(turns, numbered[-1][0])
    blocks: list[str] = []
    for number, indices in numbered:
        if first <= number <= last:
            lines = [line for i in indices for line in _render_message(transcript[i])]
            blocks.append(f"--- turn {number} ---\n" + "\n".join(lines))
    body = redact("\n".join(blocks))
    page, start, next_offset = _page(body, offset, limit, page_chars)
    spec = f"{first}-{last}" if first != last else str(first)
    again = f'{RECALL_TOOL}(turns="{spec}")'
    text = _header(f"{again}: turns {spec} as they happened", start, len(page), len(body), next_offset, again)
    return Recalled(text + "\n" + page, {"turns": spec}, first, len(body), next_offset)


def recall_child(
    transcript: Sequence[ModelMessage],
    agent: str,
    *,
    offset: int = 0,
    limit: int = 0,
    page_chars: int = 20_000,
    redact: Redact = _same,
) -> Recalled:
    """A subagent's whole transcript (`agent`: its id, the handle its `delegate` result names): its
    task, calls, outputs and answer in order (one page; docs/subagents.md)."""
    lines = [line for message in transcript for line in _render_message(message)]
    body = redact("\n".join(lines))
    page, start, next_offset = _page(body, offset, limit, page_chars)
    again = recall_call(agent)
    text = _header(f"{again}: subagent {agent}'s transcript", start, len(page), len(body), next_offset, again)
    return Recalled(text + "\n" + page, {"handle": agent}, None, len(body), next_offset)


def _visible(context: Sequence[ModelMessage]) -> tuple[set[str], dict[str, tuple[int, int]], int]:
    """(handles of the outputs the context holds uncut, the unseen span of each previewed one —
    its middle, `HEAD_CHARS` on after the head to `TAIL_CHARS` before the end — and the number of
    turns before the first in view)."""
    layout = segment(separate_markers(context))
    numbers = turn_numbers(layout)
    seen: set[str] = set()
    middles: dict[str, tuple[int, int]] = {}
    for turn in layout.turns:
        for message in turn.messages:
            for part in message.parts if isinstance(message, ModelRequest) else ():
                if isinstance(part, ToolReturnPart) and (h := handle_of(part)) is not None:
                    whole = previewed_chars(part)
                    if whole is not None:  # the model saw its head and tail only
                        middles[h] = (HEAD_CHARS, max(HEAD_CHARS, whole - TAIL_CHARS))
                    elif TRUNCATION_MARK not in content_text(part.content)[-400:]:
                        seen.add(h)
    return seen, middles, (numbers[0] - 1 if numbers else layout.prior_turns)


def _snippet(text: str, at: int, size: int) -> str:
    start = max(0, at - HIT_CONTEXT_CHARS // 2)
    end = min(len(text), at + size + HIT_CONTEXT_CHARS // 2)
    return ("…" if start else "") + " ".join(text[start:end].split()) + ("…" if end < len(text) else "")


def search_history(
    transcript: Sequence[ModelMessage],
    context: Sequence[ModelMessage],
    pattern: str,
    *,
    offset: int = 0,
    limit: int = 0,
    page_chars: int = 20_000,
    redact: Redact = _same,
    deadline_s: float = SEARCH_DEADLINE_S,
    clock: Callable[[], float] = time.monotonic,
) -> Recalled:
    """Literal, case-insensitive hits of `pattern` in what the model cannot see now: the turns out
    of view, the outputs cut in view, and the middle of those previewed in view. At most `MAX_HITS` hits, each with its turn and handle (and
    the call to read it whole); the scan stops at `deadline_s` and says so. Raises `RecallError`."""
    needle = pattern.strip().lower()
    if not needle:
        raise RecallError("search needs a non-empty pattern")
    visible, middles, hidden_turns = _visible(context)
    started = clock()
    hits: list[str] = []
    stopped = ""
    for number, indices in _numbered_turns(transcript):
        if clock() - started > deadline_s:
            stopped = f"; stopped after {deadline_s:g}s at turn {number}"
            break
        out_of_view = number <= hidden_turns
        for i in indices:
            message = transcript[i]
            for label, text, call in _texts(message):
                handle = label if label.startswith("r") else None
                if not out_of_view and (handle is None or handle in visible):
                    continue
                low, high = middles.get(handle or "", (0, len(text))) if not out_of_view else (0, len(text))
                at = text.lower().find(needle, low, high)
                if at < 0:
                    continue
                # The call that made an output is named: a hit in README.md's output that mentions
                # docs/x.md is not docs/x.md's text, and whoever reads the hit must be able to tell.
                source = f"{call} → " if call else ""
                where = f"turn {number}" + (
                    f", {source}{recall_call(handle)}" if handle else f', {label}, recall(turns="{number}")'
                )
                hits.append(f"- {where}: {_snippet(redact(text), at, len(needle))}")
                if len(hits) >= MAX_HITS:
                    break
            if len(hits) >= MAX_HITS:
                break
        if len(hits) >= MAX_HITS:
            stopped = stopped or f"; the first {MAX_HITS} hits"
            break
    body = "\n".join(hits) if hits else "(no hits)"
    page, start, next_offset = _page(body, offset, limit, page_chars)
    again = f"{RECALL_TOOL}(search={pattern!r})".replace("'", '"')
    what = f"{again}: {len(hits)} hits in what is out of view{stopped}"
    text = _header(what, start, len(page), len(body), next_offset, again)
    return Recalled(text + "\n" + page, {"search": pattern}, None, len(body), next_offset)


def _texts(message: ModelMessage) -> list[tuple[str, str, str | None]]:
    """(label, text, call) of a message's searchable parts: a tool output's label is its handle,
    its call the one that made it (`read_file(path="README.md")`, None when not known)."""
    out: list[tuple[str, str, str | None]] = []
    for part in message.parts:
        if isinstance(part, ToolReturnPart):
            out.append((handle_of(part) or "output", content_text(part.content), call_of(part)))
        elif isinstance(part, UserPromptPart) and isinstance(part.content, str):
            out.append(("prompt", part.content, None))
        elif isinstance(part, TextPart):
            out.append(("answer", part.content, None))
    return out


def recall_spec(
    transcript: Sequence[ModelMessage],
    context: Sequence[ModelMessage],
    spec: dict[str, Any],
    **page: Any,
) -> Recalled:
    """Answer a recall described by `spec` (`Recalled.spec`): handle, turns or search."""
    if isinstance(spec.get("handle"), str):
        return recall_output(transcript, spec["handle"], **page)
    if isinstance(spec.get("turns"), str):
        return recall_turns(transcript, spec["turns"], **page)
    if isinstance(spec.get("search"), str):
        return search_history(transcript, context, spec["search"], **page)
    raise RecallError('recall needs a handle ("r12"), turns="3-5" or search="text"')


def recalled_what(content: str) -> str | None:
    """What a recall's output holds, from its first line (`_header`): `the output of read_file(…)
    from turn 3`, `turns 2-4 as they happened`, `3 hits in what is out of view`; None when
    `content` is no recall result (a failed call's message). For the front ends' tool row."""
    first = content.partition("\n")[0]
    if not first.startswith(f"[{RECALL_TOOL}(") or "): " not in first:
        return None
    what = first.split("): ", 1)[1]
    return what.rsplit(", chars ", 1)[0] if ", chars " in what else what.rstrip("]")


def has_cut(messages: Sequence[ModelMessage]) -> bool:
    """Whether `messages` (a context) hold anything cut: a marker, or a tool output that was
    shortened. The `recall` tool is offered while this (or a cut about to happen) holds."""
    layout = segment(separate_markers(messages))
    if layout.markers:
        return True
    for message in messages:
        for part in message.parts if isinstance(message, ModelRequest) else ():
            if isinstance(part, ToolReturnPart) and isinstance(part.content, str):
                if TRUNCATION_MARK in part.content[-400:]:
                    return True
    return False
