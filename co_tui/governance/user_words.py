"""The user's own words in a summary: their prompts of the summarised stretch, verbatim.

A summariser paraphrases; the user's prompts carry their goals, rules and preferences in their own
words, so co-tui keeps them itself instead of trusting the model to (Codex keeps the recent user
messages, Claude Code all of them). After the summariser's sections co-tui appends one section,
newest prompt first, each prompt one JSON string (exact, one line, and no text inside a prompt can
forge a heading or close the list), within a share of the summary's token budget; what did not fit
is counted in a closing line. A later summary that folds an earlier one in carries its prompts on
(`prompts_in`), so the words survive repeated cuts while they fit. Pure
(docs/context-governance.md, "The user's words").
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from co_tui.governance.markers import marker_info
from co_tui.governance.tokens import estimate_text_tokens

__all__ = ["WORDS_HEADER", "WORDS_SHARE", "UserWords", "user_prompts", "user_words", "prompts_in", "with_words"]

WORDS_HEADER = "## User prompts, verbatim (newest first)"
WORDS_SHARE = 0.25
"""The share of a summary's token budget its verbatim prompts may take (the model gets the rest)."""

_ITEM = "- "


@dataclass(frozen=True)
class UserWords:
    """The section co-tui appends to a summary: `text` ("" when there were no prompts), how many
    prompts it holds (`kept`) of how many the stretch had (`total`), and its estimated `tokens`."""

    text: str
    kept: int
    total: int
    tokens: int


def _prompt_text(part: UserPromptPart) -> str:
    content = part.content
    if isinstance(content, str):
        return content
    return "\n".join(item for item in content if isinstance(item, str))


def _header_at(lines: list[str]) -> int | None:
    """Index of the last line that is exactly the words header (a prompt, one JSON line, cannot be)."""
    found = [i for i, line in enumerate(lines) if line == WORDS_HEADER]
    return found[-1] if found else None


def prompts_in(summary: str) -> list[str]:
    """The prompts a summary's words section holds, newest first ([] without one). Lines that are
    not the JSON strings `user_words` writes are skipped."""
    lines = summary.splitlines()
    at = _header_at(lines)
    if at is None:
        return []
    out: list[str] = []
    for line in lines[at + 1 :]:
        if not line.startswith(_ITEM):
            continue
        try:
            value = json.loads(line[len(_ITEM) :])
        except ValueError:
            continue
        if isinstance(value, str):
            out.append(value)
    return out


def user_prompts(messages: Sequence[ModelMessage]) -> list[str]:
    """Every user prompt of `messages`, oldest first: the real prompts (not governance's markers) and
    the prompts an earlier summary or compaction among them kept verbatim, in its place."""
    out: list[str] = []
    for message in messages:
        info = marker_info(message)
        if info is not None:
            if info.summary:
                out.extend(reversed(prompts_in(info.summary)))
            continue
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart) and (text := _prompt_text(part)).strip():
                out.append(text)
    return out


def user_words(messages: Sequence[ModelMessage], budget_tokens: int) -> UserWords:
    """The words section for a summary of `messages`, at most `budget_tokens` (estimated).

    Newest prompt first; a prompt too long for the room left is left out and the next older one
    tried, so one long paste does not push out every short prompt before it. The closing line
    says how many were left out.
    """
    prompts = user_prompts(messages)
    if not prompts:
        return UserWords("", 0, 0, 0)
    room = budget_tokens - estimate_text_tokens(WORDS_HEADER) - 10  # the header, and the closing line
    lines: list[str] = []
    for prompt in reversed(prompts):
        line = _ITEM + json.dumps(prompt, ensure_ascii=False)
        tokens = estimate_text_tokens(line) + 1
        if tokens <= room:
            lines.append(line)
            room -= tokens
    left_out = len(prompts) - len(lines)
    if left_out:
        lines.append(f"({left_out} more left out to fit)")
    text = "\n".join([WORDS_HEADER, *lines])
    return UserWords(text, len(prompts) - left_out, len(prompts), estimate_text_tokens(text))


def with_words(summary: str, words: UserWords) -> str:
    """`summary` (the summariser's sections) with the words section after it. A words section the
    model wrote itself (copied from an earlier summary it read) is dropped: only co-tui's counts."""
    lines = summary.splitlines()
    first = next((i for i, line in enumerate(lines) if line == WORDS_HEADER), len(lines))
    own = "\n".join(lines[:first]).rstrip()
    return f"{own}\n\n{words.text}" if words.text else own
