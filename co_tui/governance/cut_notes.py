"""What a cut's marker lists about what left: transcript turn numbers, first words, tools and files.

The model reads these lines under a breadcrumb (or a summary's header) and can copy the `recall`
call they show (docs/context-governance.md, "Nothing cut is out of reach"). Turn numbers are the
transcript's: the context is walked in order, each marker adding the turns it stands for and each
turn one, which is the transcript's numbering as long as cuts removed whole turns (they do). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from typing import Any

from pydantic_ai.messages import ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart

from co_tui.governance.handles import call_of, handle_of, recall_turns_call, render_call, turn_range
from co_tui.governance.tokens import _IdentityCache
from co_tui.governance.turns import Layout, Turn
from co_tui.text import one_line

__all__ = ["turn_numbers", "turn_line", "removed_listing", "listing_room", "LISTING_CHARS", "LISTED_PREFIX"]

LISTING_CHARS = 1500  # about 350 tokens: the whole listing under one marker, at most
PROMPT_WORDS_CHARS = 60
TOOLS_PER_TURN = 4
LISTED_PREFIX = "- turn "


def turn_numbers(layout: Layout) -> list[int]:
    """The transcript number (1-based) of each of `layout.turns`, in order.

    Markers before a turn add the turns they stand for (a breadcrumb's or summary's count, an
    eviction's one turn); each turn adds one."""
    events: list[tuple[int, int]] = [(i, info.turns) for i, info in layout.markers]
    events += [(t.indices[0], -1) for t in layout.turns]
    events.sort()
    numbers: list[int] = []
    n = 0
    for _, weight in events:
        if weight < 0:
            n += 1
            numbers.append(n)
        else:
            n += weight
    return numbers


def _prompt_words(turn: Turn) -> str:
    for part in turn.messages[0].parts if turn.has_prompt else ():
        if isinstance(part, UserPromptPart):
            text = part.content if isinstance(part.content, str) else " ".join(str(c) for c in part.content)
            return one_line(text, PROMPT_WORDS_CHARS)
    return ""


def _tools(turn: Turn) -> list[str]:
    """The turn's calls, each with the handle of its output when it has one (`read_file(…) → r12`)."""
    seen: list[str] = []
    for message in turn.messages:
        if isinstance(message, ModelResponse):
            calls = [_short(render_call(p.tool_name, p.args)) for p in message.parts if isinstance(p, ToolCallPart)]
            seen.extend(c for c in calls if c not in seen)
            continue
        for part in message.parts:
            if isinstance(part, ToolReturnPart) and (handle := handle_of(part)) is not None:
                call = _short(call_of(part) or render_call(part.tool_name, None))
                if call in seen:
                    seen[seen.index(call)] = f"{call} → {handle}"
                else:
                    seen.append(f"{call} → {handle}")
    return seen


def _short(call: str) -> str:
    return call if len(call) <= 48 else call[:47] + "…"


def turn_line(number: int, turn: Turn) -> str:
    """`- turn 3: "first words of the prompt" — read_file(path="a.py"), …` (one line)."""
    words = _prompt_words(turn)
    tools = _tools(turn)
    shown = ", ".join(tools[:TOOLS_PER_TURN]) + (
        f", +{len(tools) - TOOLS_PER_TURN} more" if len(tools) > TOOLS_PER_TURN else ""
    )
    line = f'{LISTED_PREFIX}{number}: "{words}"' if words else f"{LISTED_PREFIX}{number}"
    return f"{line} — {shown}" if shown else line


# A turn's line, memoised on its first message: a cut's listing is rendered once per cut, not on
# every pass that makes (or previews, or re-plans) the same cut. Safe without any invalidation: the
# key is what the line is computed from — the number, the first message's parts list (identity and
# length, as the token counts key on it) and every other message of the turn (a tuple compared by
# identity first, by value otherwise) — and governance never mutates a message. The first message
# is held weakly (the entry goes with it); the rest are held while it lives, which the transcript
# does anyway.
_LINES: _IdentityCache[str] = _IdentityCache()


def _cached_turn_line(number: int, turn: Turn) -> str:
    first = turn.messages[0]
    key = (number, id(first.parts), len(first.parts), tuple(turn.messages[1:]))
    line = _LINES.get(first, key)
    if line is None:
        line = turn_line(number, turn)
        _LINES.put(first, key, line)
    return line


def _earlier_lines(layout: Layout, marker_text: Any) -> list[str]:
    """The listed lines of the earlier markers (their text under the header), oldest first."""
    lines: list[str] = []
    for index, info in layout.markers:
        if info.kind not in ("breadcrumb", "static"):
            continue
        text = marker_text(layout.messages[index]) or ""
        lines.extend(line for line in text.split("\n")[1:] if line.startswith(LISTED_PREFIX))
    return lines


def listing_room(budget_tokens: int | None) -> int:
    """Characters a cut's listing may take: `LISTING_CHARS`, and at most about a tenth of a small
    budget (`budget_tokens` None: no budget to respect, 0: no listing)."""
    return LISTING_CHARS if budget_tokens is None else min(LISTING_CHARS, budget_tokens * 4 // 10)


def removed_listing(
    layout: Layout, dropped: int, marker_text: Any, room: int = LISTING_CHARS, *, start: int = 0
) -> str:
    """The lines under a breadcrumb for a cut that drops `layout.turns[start:dropped]` (`start`: the
    leading turns kept before the marker, a summary's head): the range out of view with its `recall`
    call, then one line per removed turn (earlier markers' lines first), the oldest left out when
    they would exceed `room` characters. "" when nothing was dropped or `room` cannot hold even the
    first line.

    Lines are made newest first and only until the room is full (a cut of hundreds of turns renders
    the few it lists), each turn's line once per cut (`_cached_turn_line`)."""
    if dropped <= start:
        return ""
    numbers = turn_numbers(layout)
    first = numbers[start - 1] + 1 if start else 1
    last = numbers[dropped - 1]
    span = f"Turns {turn_range(first, last)} are" if first != last else f"Turn {first} is"
    them = "them" if first != last else "it"
    head = f"{span} out of view; {recall_turns_call(first, last)} returns {them} verbatim (page with offset/limit)."
    if len(head) > room:
        return ""
    earlier = _earlier_lines(layout, marker_text)
    newest_first = chain(
        (_cached_turn_line(numbers[i], layout.turns[i]) for i in range(dropped - 1, start - 1, -1)),
        reversed(earlier),
    )
    return "\n".join([head, *_fit(newest_first, len(earlier) + dropped - start, room - len(head))])


_SHORTEST_LINE = len(LISTED_PREFIX) + 2  # "- turn 1" and its newline


def _fit(newest_first: Iterable[str], count: int, room: int) -> list[str]:
    """The newest of `count` lines (given newest first, taken only while they fit) that fit in `room`
    characters, oldest first, after one line saying how many were left out. All of them when they
    fit in `room`: the note's 32 characters are kept free only when a line is left out — a note in
    place of a short line made a smaller room's listing longer than a larger room's."""
    kept: list[str] = []
    used = 0
    lines = iter(newest_first)
    for line in lines:
        if used + len(line) + 1 > room - 32:
            # The rest goes in whole if it fits the full room; a line is rendered only while the rest
            # could (each is at least "- turn N" and its newline), so at most 32 characters more.
            tail = [line]
            more = used + len(line) + 1
            while len(kept) + len(tail) < count and more + (count - len(kept) - len(tail)) * _SHORTEST_LINE <= room:
                extra = next(lines, None)
                if extra is None:
                    break
                tail.append(extra)
                more += len(extra) + 1
            if more <= room and len(kept) + len(tail) == count:
                kept.extend(tail)
            break
        kept.append(line)
        used += len(line) + 1
    left = count - len(kept)
    if left and room >= 32:
        kept.append(f"- ({left} earlier turns not listed)")
    return list(reversed(kept))
