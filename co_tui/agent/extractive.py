"""Extractive summaries: key lines picked from a conversation, no LLM (the offline model's summaries).

A conversation becomes a list of turns (what the user asked, the tools used and what they touched,
the final answer); earlier trims and summaries are kept as "earlier context". The result fits a
character budget: items are shortened first, then middle turns are dropped (the first turn sets
the task, the newest ones are the current state), and the summary says what it left out.

Input is either pydantic-ai messages or plain text (a transcript in the prompt, e.g. what a
summariser agent sends): role-tagged lines (`User: …`, `Assistant: …`, `Tool …`) are grouped into
turns; untagged prose falls back to picking the highest-scoring sentences.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_MIN_CHARS = 900  # room for the fixed sections beside the turn lines
DEFAULT_MAX_CHARS = 8_000
ASK_CHARS = 200
ANSWER_CHARS = 240
MARKER_CHARS = 600
EARLIER_MIN_CHARS = 200  # what an earlier summary keeps at least when new turns need the room


def _is_marker_text(text: str) -> bool:
    """Text a context marker starts with (governance's cuts): never a user turn, always earlier context."""
    from co_tui.governance.markers import MARKER_PREFIXES  # pydantic-ai: loaded when a summary is made

    return text.startswith(MARKER_PREFIXES)


HEADER = "Extractive summary (offline model: key lines, no LLM)."


@dataclass
class Turn:
    """One user turn, reduced to what a summary needs."""

    ask: str = ""
    tools: list[str] = field(default_factory=list)
    answer: str = ""

    def mentions(self, words: Sequence[str]) -> bool:
        """Whether any of `words` (lowercase, as `focus_words` gives them) occurs in the ask, the tool
        names or the answer, case-insensitively."""
        text = f"{self.ask} {' '.join(self.tools)} {self.answer}".lower()
        return any(w in text for w in words)


@dataclass
class Digest:
    """A conversation reduced to turns plus the markers of earlier cuts."""

    turns: list[Turn] = field(default_factory=list)
    earlier: list[str] = field(default_factory=list)
    prose: str = ""  # untagged text, summarised by sentence scoring


def budget_from_text(text: str, source_chars: int) -> int:
    """The character budget a request asks for ("at most 300 words" …), else 20% of the source, clamped."""
    m = re.search(
        r"(?:at most|under|no more than|within|up to|max(?:imum)?(?: of)?|about)\s+(?:about\s+)?"
        r"([\d,]+)\s*(words|tokens|characters|chars)",
        text,
        re.I,
    )
    if m:
        n = int(m.group(1).replace(",", ""))
        per = {"words": 6, "tokens": 4}.get(m.group(2).lower(), 1)
        return max(200, n * per)
    return max(DEFAULT_MIN_CHARS, min(DEFAULT_MAX_CHARS, source_chars // 5))


_FOCUS = re.compile(r"\b(?:focus(?:ing)?\s*(?:on|:)|particular attention to:?)\s*(.+)", re.I)


def focus_words(text: str) -> list[str]:
    """Words of a "Focus: …" / "focus on …" request (e.g. `/compact focus`), lowercased, ≥ 4 letters."""
    m = _FOCUS.search(text)
    if not m:
        return []
    return [w for w in re.findall(r"[\w./-]+", m.group(1).splitlines()[0].lower()) if len(w) >= 4]


def focus_text(text: str) -> str:
    """The focus of such a request in the user's own words (its first line, as typed), or ""."""
    m = _FOCUS.search(text)
    return m.group(1).splitlines()[0].strip().lstrip(":").strip().rstrip(".") if m else ""


def digest_messages(messages: Sequence[Any]) -> Digest:
    """Turns and markers of pydantic-ai `messages` (requests and responses), in order."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart

    digest = Digest()
    turn: Turn | None = None
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if not isinstance(part, UserPromptPart):
                    continue
                text = prompt_text(part.content)
                if _is_marker_text(text):
                    digest.earlier.append(text)
                    continue
                turn = Turn(ask=text)
                digest.turns.append(turn)
        elif isinstance(message, ModelResponse):
            if turn is None:
                turn = Turn()
                digest.turns.append(turn)
            for response_part in message.parts:
                if isinstance(response_part, ToolCallPart):
                    turn.tools.append(_tool_label(response_part.tool_name, response_part.args_as_dict()))
                elif isinstance(response_part, TextPart) and response_part.content.strip():
                    turn.answer = response_part.content  # the last text of the turn is its answer
    return digest


_ROLE = re.compile(
    r"^\s*[\[(*_]*\s*(user|human|you|assistant|ai|model|tool(?:[ _-]?(?:call|result|return))?|"
    r"system|summary|marker)\b[^:\n]{0,40}?[\])*_]*\s*:\s?(.*)$",
    re.I,
)
# The governance summariser's rendering (`render_for_summary`): "[user] …", "[assistant calls read_file] {…}",
# "[tool result read_file, 120 chars] …", "[earlier summary of 12 messages] …", inside <conversation>…</conversation>.
_BRACKET = re.compile(r"^\s*\[(?P<tag>[^\]\n]{1,80})\]\s?(?P<body>.*)$")
_FRAME = re.compile(r"</?conversation>")

Role = str  # "user" | "assistant" | "tool" | "marker" | "skip"


def line_role(raw: str) -> tuple[Role, str] | None:
    """(role, body) of one transcript line, or None for an untagged (continuation) line."""
    if m := _BRACKET.match(raw):
        tag, body = m.group("tag").strip().lower(), m.group("body").strip()
        if tag in ("user", "human"):
            return "user", body
        if tag in ("assistant", "ai", "model"):
            return "assistant", body
        if tag.startswith("assistant calls "):
            return "tool", _call_label(m.group("tag").strip()[len("assistant calls ") :], body)
        if tag.startswith(("tool result", "retry")):
            return "skip", body
        if tag.startswith("earlier summary") or "earlier messages" in tag or "earlier lines omitted" in tag:
            return "marker", f"[{m.group('tag')}] {body}".strip()
    if m := _ROLE.match(raw):
        role, body = m.group(1).lower(), m.group(2).strip()
        if _is_marker_text(body) or role in ("summary", "marker"):
            return "marker", body
        if role in ("user", "human", "you"):
            return "user", body
        if role.startswith("tool"):
            return "tool", _short(body, 100)
        if role in ("assistant", "ai", "model"):
            return "assistant", body
        return "skip", body
    return None


def digest_text(text: str) -> Digest:
    """Turns of a plain-text transcript with role-tagged lines; untagged text is kept as prose."""
    digest = Digest()
    turn: Turn | None = None
    role = ""
    tagged = False
    for raw in _FRAME.sub("\n", text).splitlines():
        found = line_role(raw)
        if found is not None:
            tagged = True
            role, body = found
            if role == "marker":
                digest.earlier.append(body)
            elif role == "user":
                turn = Turn(ask=body)
                digest.turns.append(turn)
            elif role == "tool":
                turn = turn or _new_turn(digest)
                turn.tools.append(body)
            elif role == "assistant":
                turn = turn or _new_turn(digest)
                turn.answer = body
            continue
        line = raw.strip()
        if not line:
            continue
        if not tagged:
            digest.prose += raw + "\n"
        elif role == "marker" and digest.earlier:
            digest.earlier[-1] += " " + line
        elif turn is not None and role == "user" and len(turn.ask) < ASK_CHARS:
            turn.ask += " " + line
        elif turn is not None and role == "assistant" and len(turn.answer) < ANSWER_CHARS * 2:
            turn.answer += " " + line
    return digest


def _call_label(tool: str, raw_args: str) -> str:
    try:
        args = json.loads(raw_args) if raw_args else {}
    except ValueError:
        args = None
    if isinstance(args, dict):
        return _tool_label(tool, args)
    return f"{tool}({_short(raw_args, 60)})" if raw_args else tool


def summarize(digest: Digest, budget_chars: int, focus: Sequence[str] = (), focus_line: str = "") -> str:
    """The summary text of `digest` within `budget_chars` (never more, except a minimal header), in
    the summariser's fixed sections (`governance.summarize.SUMMARY_SECTIONS`).

    Every section but "Done so far" is a few short lines picked by rule (`_section_items`); "Done so
    far" gets the rest. There the turns come first: a summary is reported as covering every turn it
    was given, so each turn gets at least a short line (its ask) before anything else is spent;
    newest, first and focus turns are then written out in full while room lasts, and earlier
    summaries (already a digest of older turns) get what is left. Only when even the short lines do
    not fit are turns left out, and an "(… N turn(s) omitted …)" line says where. `focus_line`: the
    focus as the user typed it, quoted in the header (else its words).
    """
    from co_tui.governance.summarize import SUMMARY_SECTIONS

    lines = [HEADER]
    if focus_line or focus:
        lines.append(f"Focus: {focus_line or ' '.join(focus)}.")
    closing: list[str] = []
    if not digest.turns and not digest.prose.strip() and not digest.earlier:
        closing.append("There was nothing to summarise.")
    elif digest.turns:
        tools_total = sum(len(t.tools) for t in digest.turns)
        closing.append(f"In all: {len(digest.turns)} user turn(s), {tools_total} tool call(s).")
    item_chars = max(40, min(160, budget_chars // 14))
    sections = {heading: _section_items(heading, digest, item_chars) for heading, _ in SUMMARY_SECTIONS}
    others = [line for heading, items in sections.items() if heading != "Done so far" for line in items]
    headings = [f"## {heading}" for heading, _ in SUMMARY_SECTIONS]
    room = budget_chars - sum(len(line) + 1 for line in lines + closing + headings + others)
    prose = key_sentences(digest.prose, budget_chars // 2) if digest.prose.strip() else ""
    room -= len(prose) + 1 if prose else 0
    earlier_min = sum(len(_earlier_line(m, EARLIER_MIN_CHARS)) + 1 for m in digest.earlier[-2:])
    turn_lines = _fit_turn_lines(digest.turns, room - earlier_min, focus)
    room -= sum(len(line) + 1 for line in turn_lines)
    done: list[str] = []
    earlier = digest.earlier[-2:]
    for marker in earlier:
        done.append(_earlier_line(marker, max(EARLIER_MIN_CHARS, min(MARKER_CHARS, room // max(1, len(earlier)) - 60))))
    if prose:
        done.append(prose)
    done += turn_lines + closing
    for heading, _ in SUMMARY_SECTIONS:
        lines.append(f"## {heading}")
        lines += (done or ["- none"]) if heading == "Done so far" else sections[heading]
    text = "\n".join(lines)
    return text if len(text) <= budget_chars else text[: max(budget_chars, len(HEADER)) - 1].rstrip() + "…"


_CONSTRAINT = re.compile(
    r"\b(?:must|should|never|always|don't|do not|avoid|prefer\w*|only|without|keep|make sure)\b", re.I
)
_DECISION = re.compile(r"\b(?:decid\w*|chose|choose|going with|agreed|instead of|switched|will use)\b", re.I)
_HANDLE = re.compile(r"recall\(\s*[\"'][^\"'\s]{1,40}[\"']\s*\)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _sentences(texts: Sequence[str], pattern: re.Pattern[str], limit: int, chars: int) -> list[str]:
    found: dict[str, None] = {}
    for text in texts:
        for sentence in _SENTENCE.split(text):
            if pattern.search(sentence) and len(found) < limit:
                found.setdefault(f"- {_short(sentence, chars)}", None)
    return list(found)


def _section_items(heading: str, digest: Digest, chars: int) -> list[str]:
    """The lines of one section other than "Done so far", picked by rule from `digest` ("- none"
    when the rule finds nothing): the first ask is the goal, asks that say must/never/prefer… are
    constraints, answers that say decided/chose… decisions, the tools' targets and any recall
    handles the files and artifacts, an unanswered newest ask the open question and next step."""
    asks = [t.ask for t in digest.turns if t.ask]
    answers = [t.answer for t in digest.turns if t.answer]
    newest = digest.turns[-1] if digest.turns else None
    items: list[str] = []
    if heading == "Goal":
        goal = asks[0] if asks else (_SENTENCE.split(digest.prose.strip())[0] if digest.prose.strip() else "")
        items = [f"- {_quote(goal, chars)}"] if goal else []
    elif heading == "Constraints and preferences":
        items = _sentences(asks, _CONSTRAINT, 3, chars)
    elif heading == "Decisions":
        items = _sentences(answers, _DECISION, 3, chars)
    elif heading == "Files and artifacts":
        labels = list(dict.fromkeys(label for t in digest.turns for label in t.tools))
        texts = [*digest.earlier, *asks, *answers, digest.prose]
        handles = list(dict.fromkeys(m.group(0) for text in texts for m in _HANDLE.finditer(text)))
        artifacts = [*labels[:8], *handles[:8]]
        items = [f"- {_short(', '.join(artifacts), chars * 2)}"] if artifacts else []
    elif heading == "Open questions" and newest is not None and newest.ask.rstrip().endswith("?"):
        items = [] if newest.answer else [f"- {_quote(newest.ask, chars)}"]
    elif heading == "Next steps" and newest is not None and newest.ask and not newest.answer:
        items = [f"- answer the newest request: {_quote(newest.ask, chars)}"]
    return items or ["- none"]


def _earlier_line(marker: str, chars: int) -> str:
    """One earlier marker (a breadcrumb or an earlier summary), shortened to `chars` (0: its head only).

    An earlier extractive summary loses its header and totals first: its turn lines are what it holds.
    """
    from co_tui.governance.summarize import SUMMARY_SECTIONS
    from co_tui.governance.user_words import WORDS_HEADER

    # An earlier summary's words section is carried on by co-tui itself; its headings and empty
    # sections say nothing (the marker may arrive as one line: the summariser's input joins them).
    marker = marker.split(WORDS_HEADER, 1)[0]
    headings = "|".join(re.escape(heading) for heading, _ in SUMMARY_SECTIONS)
    marker = re.sub(rf"##\s*(?:{headings})\s*(?:-\s*none\b)?", " ", marker)
    marker = " ".join(marker.replace(HEADER, " ").split())
    marker = re.sub(r"\s*In all: \d+ user turn\(s\), \d+ tool call\(s\)\.", "", marker)
    if len(marker) > chars:  # the asks of its turns before their answers
        items = re.split(r"\s(?=\d+\. User asked: )", marker)
        marker = " ".join(item.split(" → answer: ", 1)[0] for item in items)
    head = marker.split("]", 1)[0] + "]" if marker.startswith("[") and "]" in marker else _short(marker, 60)
    body = _short(marker, chars) if chars > len(head) + 20 else head
    return f"Earlier context (already cut from view): {body}"


def _fit_turn_lines(turns: Sequence[Turn], room: int, focus: Sequence[str]) -> list[str]:
    """One line per turn within `room`: full lines where they fit (newest, first, focus matches
    first), short ask-only lines for the rest; turns are dropped (and the gap said) only if even the
    short lines do not fit."""
    full = [_turn_line(i + 1, t) for i, t in enumerate(turns)]
    if sum(len(line) + 1 for line in full) <= room:
        return full
    short = [_short_turn_line(i + 1, t) for i, t in enumerate(turns)]
    used = sum(len(line) + 1 for line in short)
    if used <= room:
        chosen = list(short)
        for i in _priority(turns, focus):
            extra = len(full[i]) - len(short[i])
            if used + extra <= room:
                chosen[i] = full[i]
                used += extra
        return chosen
    out: list[str] = []
    keep = _choose_turns(turns, [len(line) + 1 for line in short], room, focus)
    previous = 0
    for index in keep:
        if index > previous:
            out.append(f"(… {index - previous} turn(s) omitted to fit the summary budget …)")
        out.append(short[index])
        previous = index + 1
    if previous < len(turns):
        out.append(f"(… {len(turns) - previous} turn(s) omitted to fit the summary budget …)")
    return out


def _priority(turns: Sequence[Turn], focus: Sequence[str]) -> list[int]:
    """Turn indices in the order they deserve a full line: focus matches, the newest, the first, then newest first."""
    order = list(range(len(turns) - 1, -1, -1))
    if turns:
        order.remove(0)
        order.insert(1 if order else 0, 0)
    if focus:
        order.sort(key=lambda i: not turns[i].mentions(focus))
    return order


def _short_turn_line(number: int, turn: Turn) -> str:
    line = f"{number}. User asked: {_quote(turn.ask, 60)}" if turn.ask else f"{number}. (no user prompt)"
    if turn.tools:
        names = list(dict.fromkeys(label.split("(", 1)[0] for label in turn.tools))
        line += f" → tools: {', '.join(names[:3])}" + (f" +{len(names) - 3}" if len(names) > 3 else "")
    return line


def key_sentences(text: str, budget_chars: int) -> str:
    """The highest-scoring sentences of `text`, in their original order, within `budget_chars`."""
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n{2,}", text) if s.strip()]
    if not sentences:
        return ""

    def score(index: int, sentence: str) -> float:
        value = 0.0
        if index == 0 or index == len(sentences) - 1:
            value += 2
        if re.search(r"\b[\w-]+(?:/[\w.-]+)+|\b[\w-]+\.(?:py|md|toml|json|ya?ml|txt|js|ts|rs|go|c|h)\b", sentence):
            value += 1.5  # names files
        if re.search(
            r"\b(?:decid|fix|error|fail|todo|must|should|need|because|result|found|changed?)\w*", sentence, re.I
        ):
            value += 1
        if sentence.endswith("?"):
            value += 0.5
        return value - len(sentence) / 2000

    ranked = sorted(range(len(sentences)), key=lambda i: (-score(i, sentences[i]), i))
    chosen: list[int] = []
    used = 0
    for i in ranked:
        piece = _short(sentences[i], ANSWER_CHARS)
        if used + len(piece) + 1 > budget_chars:
            continue
        chosen.append(i)
        used += len(piece) + 1
    return " ".join(_short(sentences[i], ANSWER_CHARS) for i in sorted(chosen))


def prompt_text(content: Any) -> str:
    """The text of a `UserPromptPart.content` (a string, or a list mixing text and media)."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return " ".join(item if isinstance(item, str) else f"[{type(item).__name__}]" for item in content)
    return str(content)


def _new_turn(digest: Digest) -> Turn:
    turn = Turn()
    digest.turns.append(turn)
    return turn


def _tool_label(name: str, args: dict[str, Any]) -> str:
    detail = args.get("path") or args.get("command") or ""
    if "pattern" in args:
        detail = f"{args['pattern']!r} in {args.get('path', '.')}"
    return f"{name}({_short(str(detail), 60)})" if detail else name


def _turn_line(number: int, turn: Turn) -> str:
    parts = [f"{number}. User asked: {_quote(turn.ask, ASK_CHARS)}" if turn.ask else f"{number}. (no user prompt)"]
    if turn.tools:
        counted: dict[str, int] = {}
        for label in turn.tools:
            counted[label] = counted.get(label, 0) + 1
        labels = [f"{label} ×{n}" if n > 1 else label for label, n in counted.items()]
        parts.append("tools: " + ", ".join(labels[:6]) + (f", +{len(labels) - 6} more" if len(labels) > 6 else ""))
    if turn.answer:
        parts.append(f"answer: {_quote(turn.answer, ANSWER_CHARS)}")
    return " → ".join(parts)


def _choose_turns(turns: Sequence[Turn], sizes: Sequence[int], room: int, focus: Sequence[str]) -> list[int]:
    """Indices of the turns to keep: newest first, then the first turn, then focus matches, within `room`."""
    if sum(sizes) <= room:
        return list(range(len(turns)))
    order = list(range(len(turns) - 1, -1, -1))
    if turns:
        order.remove(0)
        order.insert(1 if len(order) else 0, 0)
    if focus:
        order.sort(key=lambda i: not turns[i].mentions(focus))  # stable: focus matches move to the front
    keep: list[int] = []
    used = 0
    omission = 60  # room for an "(… omitted …)" line
    for i in order:
        if used + sizes[i] + omission > room:
            continue
        keep.append(i)
        used += sizes[i] + omission
    return sorted(keep)


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return inline_code_safe(text if len(text) <= limit else text[: limit - 1].rstrip() + "…")


def inline_code_safe(text: str) -> str:
    """`text` (a piece cut out of Markdown: a quote, a sentence, a search hit) with the backticks that
    have no partner in it dropped, so it reads as written when shown as Markdown.

    A piece can start or end inside inline code. Its lone backtick then pairs with the next one, and
    Markdown trims the space at both ends of a code span, gluing the words around it: "…S=0` runs it
    with `make`" showed as "…S=0runs it withmake". So: a piece cut at its start ("…") whose first
    backtick closes code (it follows a word, not a space or an opening bracket) loses it; then, with
    an odd count left, the last one (code still open where the piece was cut) goes too. Pure."""
    ticks = [i for i, char in enumerate(text) if char == "`"]
    if not ticks:
        return text
    drop: set[int] = set()
    before = text[ticks[0] - 1] if ticks[0] else " "
    if text.startswith("…") and not before.isspace() and before not in "([{\"'":
        drop.add(ticks[0])
    if (len(ticks) - len(drop)) % 2:
        drop.add(ticks[-1])
    return "".join(char for i, char in enumerate(text) if i not in drop) if drop else text


def _quote(text: str, limit: int) -> str:
    return f'"{_short(text, limit)}"'
