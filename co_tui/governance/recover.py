"""Recover a lost item: a verbatim excerpt of what a summary left out, appended to the context.

After a summary or compaction the summary check (`summary_check.py`) lists the paths, names and
numbers of the summarised messages the summary no longer mentions. The user can bring one back: the
lines around its mentions in those messages — verbatim, capped at `MAX_EXCERPT_CHARS`, saying so
when cut — go into the context as one marker request at its END, so everything before it is sent
byte for byte as before and the provider's prompt cache still holds. One `history_trimmed` event
(reason `restore`, `restored_messages` 1, the summary's strategy, `salvaged_item`/`salvaged_text`).
Deterministic: no model call. Pure: inputs are never mutated. docs/context-governance.md,
"Recover a lost item".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from co_tui.governance.events import HistoryTrimmed, Strategy
from co_tui.governance.markers import (
    RECOVERED_PREFIX,
    make_recovered_marker,
    marker_info,
    recovered_items,
    separate_markers,
)
from co_tui.governance.refused import Refused
from co_tui.governance.tokens import content_text, estimate_tokens, message_tokens, part_text
from co_tui.governance.turns import segment

__all__ = [
    "MAX_EXCERPT_CHARS",
    "RecoverRefused",
    "Snippet",
    "Recovery",
    "find_snippets",
    "mentions",
    "recover_item",
]

MAX_EXCERPT_CHARS = 1_500
"""The verbatim text an excerpt may hold (its labels apart): a few mentions, not a turn."""
_SNIPPET_CHARS = 400  # one mention's window: its line and the lines either side, cut around it
_AROUND = 180  # kept either side of a mention when its lines are longer than a window


class RecoverRefused(Refused):
    """A recovery that cannot happen (`Refused`: one line)."""


@dataclass(frozen=True)
class Snippet:
    """One verbatim window: `text` is `source_text[start:end]` of summarised message `message`."""

    message: int
    source: str  # where it was: "the user's prompt", "the output of read_file", …
    text: str
    cut_before: bool  # the window starts mid-line
    cut_after: bool  # the window ends mid-line


@dataclass(frozen=True)
class Recovery:
    """The new context (the old one plus the excerpt at its end), the event, and what was taken."""

    messages: list[ModelMessage]
    event: HistoryTrimmed
    snippets: list[Snippet]
    excerpt: str


def mentions(text: str, item: str) -> list[int]:
    """Where `item` occurs in `text` as a whole token (no letter, digit or `_` glued to a side that
    is itself one: `42` is not found in `1423`, `docs/` is in `docs/b.md`)."""
    if not item:
        return []
    left = r"(?<![\w])" if re.match(r"\w", item[0]) else ""
    right = r"(?![\w])" if re.match(r"\w", item[-1]) else ""
    return [m.start() for m in re.finditer(left + re.escape(item) + right, text)]


def _sources(messages: Sequence[ModelMessage]) -> Iterator[tuple[int, str, str, bool]]:
    """(message index, label, text, is_tool_output) of every text the model read in `messages`."""
    for i, message in enumerate(messages):
        info = marker_info(message)
        if info is not None:
            if info.summary:
                yield i, "an earlier summary", info.summary, False
            elif info.kind == "salvaged":
                yield i, "an earlier recovered excerpt", part_text(message.parts[-1]), False
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                yield i, "the user's prompt", part_text(part), False
            elif isinstance(part, TextPart):
                yield i, "the assistant's answer", part.content, False
            elif isinstance(part, ToolCallPart):  # its name and raw arguments, as the model wrote them
                yield i, "a tool call", part_text(part), False
            elif isinstance(part, ToolReturnPart) or (isinstance(part, RetryPromptPart) and part.tool_name):
                yield i, f"the output of {part.tool_name}", content_text(part.content), True


def _window(text: str, at: int, length: int, limit: int) -> tuple[int, int]:
    """The line holding text[at:at+length] and the lines either side, cut to `limit` chars around it."""
    start = text.rfind("\n", 0, at) + 1
    if start > 0:
        start = text.rfind("\n", 0, start - 1) + 1
    end = text.find("\n", at + length)
    end = len(text) if end < 0 else end
    if end < len(text):
        following = text.find("\n", end + 1)
        end = len(text) if following < 0 else following
    if end - start > limit:
        room = max(0, limit - length)
        start = max(start, at - min(_AROUND, room // 2))
        end = min(end, max(at + length, start + limit))
    while start < at and text[start] in "\r\n":  # no blank edges: a neighbour line may be empty
        start += 1
    while end > at + length and text[end - 1] in "\r\n":
        end -= 1
    return start, end


def find_snippets(
    summarised: Sequence[ModelMessage], item: str, max_chars: int = MAX_EXCERPT_CHARS
) -> tuple[list[Snippet], int]:
    """The verbatim windows around `item`'s mentions in `summarised` (markers' summaries included),
    what the conversation said first (prompts, answers, call arguments, earlier summaries), then
    tool outputs, until `max_chars` of text; returned in message order with the number of mentions
    not shown (left out by the cap; a window repeating one already taken is not counted). Pure."""
    chosen: list[tuple[int, int, Snippet]] = []
    seen: set[str] = set()
    left = used = 0
    ordered = sorted(enumerate(_sources(summarised)), key=lambda s: (s[1][3], s[0]))
    for order, (index, label, text, _output) in ordered:
        covered = -1
        for at in mentions(text, item):
            if at < covered:
                continue  # inside the previous window of this text
            start, end = _window(text, at, len(item), min(_SNIPPET_CHARS, max_chars))
            covered = end
            if text[start:end] in seen:
                continue  # the same lines again (a repeated answer, a re-read file)
            if used + (end - start) > max_chars:
                left += 1
                continue
            seen.add(text[start:end])
            used += end - start
            snippet = Snippet(
                index,
                label,
                text[start:end],
                start > 0 and text[start - 1] != "\n",
                end < len(text) and text[end] != "\n",
            )
            chosen.append((order, start, snippet))
    chosen.sort(key=lambda c: (c[0], c[1]))
    return [s for _, _, s in chosen], left


def _excerpt_text(item: str, snippets: Sequence[Snippet], left: int, max_chars: int) -> str:
    lines = [f'{RECOVERED_PREFIX}: verbatim lines around "{item}" from messages a summary replaced]']
    for snippet in snippets:
        body = ("…" if snippet.cut_before else "") + snippet.text + ("…" if snippet.cut_after else "")
        lines.append(f"— in {snippet.source}:\n{body}")
    if left > 0:
        lines.append(
            f"[… {left} more mention{'' if left == 1 else 's'} not shown: the excerpt is capped at "
            f"{max_chars:,} chars; the transcript keeps them]"
        )
    return "\n".join(lines)


def _already_in(context: Sequence[ModelMessage], item: str) -> int | None:
    """The index of a context message that already shows `item` to the model, else None."""
    for i, message in enumerate(context):
        if item in recovered_items(message):
            return i
    for i, _label, text, _output in _sources(context):
        if recovered_items(context[i]):  # its header names its own items, checked above
            text = text.split("\n", 1)[1] if "\n" in text else ""
        if mentions(text, item):
            return i
    return None


def recover_item(
    context: Sequence[ModelMessage],
    summarised: Sequence[ModelMessage],
    item: str,
    *,
    strategy: Strategy,
    cut_number: int,
    budget_tokens: int = 0,
    overhead_tokens: int = 0,
    tokens_before: int | None = None,
    max_chars: int = MAX_EXCERPT_CHARS,
) -> Recovery:
    """Append to `context` a verbatim excerpt of `summarised` around `item` (one marker request at
    the end; when the context already ends with a recovered excerpt, the two become one, as adjacent
    requests would be fused anyway). `strategy` and `cut_number` (1-based, named in the note) are
    those of the summary the item was lost by. `tokens_before`: the meter's figure for `context`
    (default: the estimate plus `overhead_tokens`); the excerpt's estimate is added to it.

    Raises `RecoverRefused` (`why`, facts) when the item is empty, already in the context (a message
    there mentions it), not mentioned in `summarised`, when the context ends with an unanswered
    request, or when the result would be over `budget_tokens` (> 0). Pure.
    """
    item = item.strip()
    if not item:
        raise RecoverRefused(why="recover.no_item")
    current = separate_markers(context)
    where = _already_in(current, item)
    if where is not None:
        raise RecoverRefused(why="recover.in_context", item=item, where=where)
    snippets, left = find_snippets(separate_markers(summarised), item, max_chars)
    if not snippets:
        raise RecoverRefused(why="recover.not_summarised", item=item, cut_number=cut_number)
    excerpt = _excerpt_text(item, snippets, left, max_chars)
    # Built on `context` as given (a marker pydantic-ai fused with its prompt stays fused): every
    # message before the excerpt is the same object, so the request's prefix is sent as before.
    last = context[-1] if context else None
    items, text = [item], excerpt
    base = list(context)
    if last is not None and (earlier := recovered_items(last)):
        items, text = [*earlier, item], f"{part_text(last.parts[-1])}\n\n{excerpt}"
        base = base[:-1]
    elif isinstance(last, ModelRequest):
        raise RecoverRefused(why="recover.unanswered")
    marker = make_recovered_marker(items, text)
    new = [*base, marker]
    before = estimate_tokens(context) + overhead_tokens if tokens_before is None else tokens_before
    after = before - estimate_tokens(context[len(base) :]) + message_tokens(marker)
    if budget_tokens > 0 and after > budget_tokens:
        raise RecoverRefused(why="recover.over_budget", item=item, after=after, budget_tokens=budget_tokens)
    chars = sum(len(s.text) for s in snippets)
    shown = f"{len(snippets)} passage{'s' * (len(snippets) != 1)}"
    return Recovery(
        new,
        HistoryTrimmed(
            reason="restore",
            strategy=strategy,
            kept_turns=len(segment(new).turns),
            tokens_before=before,
            tokens_after=after,
            budget_tokens=budget_tokens,
            restored_messages=1,
            note=f'recovered "{item}" from the messages trim #{cut_number} summarised: {shown}, {chars:,} chars verbatim'
            + (f"; {left} more left out (capped at {max_chars:,} chars)" if left else ""),
            salvaged_item=item,
            salvaged_text=excerpt,
        ),
        snippets,
        excerpt,
    )
