"""What a summary kept: the artifacts of the summarised messages it still mentions, and those it lost.

Deterministic and model-free (docs/context-governance.md, "Summary check"). Summaries tend to lose
the artifacts earlier work touched (files, tools, names, figures); after every summary and
compaction this compares the summarised messages with the summary text and the event carries both
lists (`summary_kept`, `summary_lost`), so the banner can say `kept 14 of 16 paths; lost: src/a.py`.

The items come from what the conversation said and did — user prompts, assistant text, tool calls
(name and arguments) and earlier summaries — not from tool outputs, which are data a summary is
expected to condense. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic_ai.messages import ModelMessage, TextPart, ToolCallPart, UserPromptPart

from co_tui.governance.markers import marker_info
from co_tui.governance.tokens import content_text
from co_tui.governance.user_words import prompts_in, user_prompts

__all__ = ["SummaryCheck", "check_summary", "salient_items", "item_kind"]

ItemKind = Literal["path", "name", "number"]

# A path: with a directory (`src/a.py`, `docs/`) or a file name with a short extension (`a.py`).
_PATH = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)+[\w.-]*|(?<![\w/.-])[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b")
# An identifier: snake_case, CamelCase, or a call `name()`.
_NAME = re.compile(r"\b[A-Za-z_]\w*_\w+\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b|\b[a-z]\w*[A-Z]\w*\b")
# A number: at least two digits, or one digit with a decimal part (a lone digit is mostly noise);
# thousands separators belong to it (`10,817` is one figure, not `10` and `817`).
_NUMBER = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\b(?!\.\w|,\d)")
# Text cut short (`co_tui/tui/commands.p…`, `keys_refer...`): what ends there is not an item.
_CUT = ("…", "...")
_MAX_ITEMS = 200


def item_kind(item: str) -> ItemKind:
    """How the banner counts `item`: a path, a number, or a name (tools and identifiers)."""
    if _NUMBER.fullmatch(item):
        return "number"
    if "/" in item or _PATH.fullmatch(item):
        return "path"
    return "name"


def _texts(messages: Iterable[ModelMessage]) -> Iterable[str]:
    for message in messages:
        info = marker_info(message)
        if info is not None:
            if info.summary:
                yield info.summary
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                yield content_text(part.content)
            elif isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield part.tool_name
                yield part.args if isinstance(part.args, str) else content_text(part.args or "")


def _whole(text: str, match: re.Match[str]) -> bool:
    """Whether `match` is not the end of a cut (`…` or `...` right after it: a preview, not a name)."""
    return not text.startswith(_CUT, match.end())


def salient_items(messages: Sequence[ModelMessage]) -> list[str]:
    """File paths, tool names, identifiers and numbers mentioned in `messages`, first-seen order,
    without repeats (at most 200). Tool names come from the calls themselves."""
    seen: dict[str, None] = {}
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                seen.setdefault(part.tool_name, None)
    for text in _texts(messages):
        found = [m.group(0).rstrip(".-") for m in _PATH.finditer(text) if _whole(text, m)]
        found += [m.group(0) for m in _NAME.finditer(text) if _whole(text, m)]
        found += [
            m.group(0)
            for m in _NUMBER.finditer(text)
            if _whole(text, m) and len(m.group(0).replace(".", "").replace(",", "")) >= 2
        ]
        for item in found:
            if len(item) >= 2:
                seen.setdefault(item, None)
        if len(seen) >= _MAX_ITEMS:
            break
    return list(seen)[:_MAX_ITEMS]


@dataclass(frozen=True)
class SummaryCheck:
    """The items of the summarised messages the summary mentions (`kept`) and does not (`lost`), and
    how many of their user prompts (`prompts_total`) its words section holds verbatim (`prompts_kept`)."""

    kept: list[str]
    lost: list[str]
    prompts_kept: int = 0
    prompts_total: int = 0


def check_summary(summarised: Sequence[ModelMessage], summary: str) -> SummaryCheck:
    """Compare `summarised` with `summary`: each salient item (`salient_items`) is kept when the
    summary contains it verbatim — a path also counts as kept when its file name is there — and
    each user prompt (`user_words.user_prompts`) when the summary's words section holds it. Pure."""
    kept: list[str] = []
    lost: list[str] = []
    for item in salient_items(summarised):
        base = item.rstrip("/").rsplit("/", 1)[-1]
        found = (
            item in summary
            or (item_kind(item) == "path" and len(base) > 3 and base in summary)
            or (item_kind(item) == "number" and "," in item and item.replace(",", "") in summary)
        )
        (kept if found else lost).append(item)
    prompts = user_prompts(summarised)
    verbatim = set(prompts_in(summary))
    return SummaryCheck(kept, lost, sum(1 for p in prompts if p in verbatim), len(prompts))
