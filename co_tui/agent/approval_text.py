"""What an approval shows of a tool call: the tool, a one-line summary (size, lines, arguments),
and the call's text as display lines with nothing hidden.

Pure Python (the dialog in `tui/screens/approval.py` only paints this). A model's command or
arguments are untrusted: they are escaped, never interpreted. Control and format characters (ESC,
carriage return, bidi overrides, zero-width characters) become visible escapes marked as such, so a
`\\x1b` the model typed and a real ESC look different. What can push part of a command out of view
is folded into one marked piece that says how much was there: a run of blank lines
(`touch …;` + 80 newlines + `ls -la` showed only `ls -la`), a long run of spaces inside a line, or a
run of one character that draws nothing (3,000 × U+2800, the braille blank, after `echo hello`
pushed `; touch x` out of view: it is `⟨3,000 × \u2800⟩`). A diff is split at newlines only (a `\r`
or U+2028 inside a line is shown, not taken for a line break), and a change of line endings alone is
said as such (`line endings only: LF → CRLF`), not shown as every line deleted and added again.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Any, Literal

from co_tui.text import plural

SegmentKind = Literal["text", "escape", "gap"]
LineKind = Literal["plain", "add", "delete", "hunk", "note"]

SHOWN_MAX_CHARS = 50_000
"""The box shows at most this much of a call (a 6,000-character argument is shown whole); beyond
it a marked line says how much is not shown, and the summary gives the full size."""
SPACE_RUN = 16  # a run of this many spaces inside a line is folded into one marked piece
FACT_VALUE_CHARS = 48  # an argument's value in the summary: its head, then its size
MAX_FACTS = 4  # arguments listed under the summary; the rest are counted

# Categories escaped wherever they appear: controls, format characters (bidi overrides,
# zero-width joiners…), surrogates, private-use and unassigned code points, line/paragraph separators.
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
# Characters outside those categories that a terminal draws as nothing or as a space: every Unicode
# space but the ASCII one (category Zs: NBSP, U+2000–U+200A, U+3000…), the braille blank, the Hangul
# fillers, the combining grapheme joiner, the Mongolian and other variation selectors.
_BLANK_MARKS = frozenset(
    "\u2800\u115f\u1160\u3164\uffa0\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
FOLD_RUN = 4  # a run of this many of one escaped character is folded into one counted marker


@dataclass(frozen=True)
class Segment:
    """A piece of a shown line: command text as is, an escaped character, or a folded gap."""

    text: str
    kind: SegmentKind = "text"


@dataclass(frozen=True)
class ShownLine:
    """One line of the box. `kind` colours diff lines (`add`, `delete`, `hunk`) and co-tui's own
    notes (`note`: never text of the call)."""

    segments: tuple[Segment, ...]
    kind: LineKind = "plain"

    @property
    def plain(self) -> str:
        """The line as plain text (escapes and gaps as written)."""
        return "".join(s.text for s in self.segments)


@dataclass(frozen=True)
class ShownCall:
    """What the dialog shows: `summary` (one line: tool, size, line count), `facts` (for a tool with
    JSON arguments: one line per argument, head and size) and `lines` (the whole call, escaped)."""

    tool: str
    summary: str
    facts: tuple[ShownLine, ...]
    lines: tuple[ShownLine, ...]
    chars: int
    line_count: int


def hidden(char: str) -> bool:
    """Whether `char` is shown as an escape: a control, format or separator character, or one that
    draws blank (`_BLANK_MARKS`, a Unicode space other than ASCII's)."""
    if char in _NAMED or char in _BLANK_MARKS:
        return True
    category = unicodedata.category(char)
    return category in _ESCAPED_CATEGORIES or (category == "Zs" and char != " ")


def escape_segments(text: str) -> list[Segment]:
    """`text` (one line, no newline) as segments: runs of ordinary text, one `escape` segment per
    hidden character (`hidden`: `\\x1b`, `\\r`, `\\t`, `\\u202e`, `\\u00a0`…), one `gap` per run of
    FOLD_RUN or more of one hidden character (`⟨3,000 × \\u2800⟩`) and one per run of SPACE_RUN or
    more spaces (`⟨200 spaces⟩`)."""
    segments: list[Segment] = []
    plain: list[str] = []

    def flush() -> None:
        if plain:
            segments.append(Segment("".join(plain)))
            plain.clear()

    i = 0
    while i < len(text):
        char = text[i]
        if char == " ":
            end = i
            while end < len(text) and text[end] == " ":
                end += 1
            if end - i >= SPACE_RUN:
                flush()
                segments.append(Segment(f"⟨{end - i:,} spaces⟩", "gap"))
            else:
                plain.append(text[i:end])
            i = end
            continue
        if hidden(char):
            flush()
            end = i + 1
            while end < len(text) and text[end] == char:
                end += 1
            if end - i >= FOLD_RUN:
                segments.append(Segment(f"⟨{end - i:,} × {_escape(char)}⟩", "gap"))
            else:
                segments.extend(Segment(_escape(char), "escape") for _ in range(end - i))
            i = end
            continue
        else:
            plain.append(char)
        i += 1
    flush()
    return segments


def escaped(text: str) -> str:
    """`text` on one line with every control/format character escaped and newlines as `\\n`."""
    return "\\n".join("".join(s.text for s in escape_segments(line)) for line in text.split("\n"))


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def text_lines(text: str, *, kind: LineKind = "plain") -> list[ShownLine]:
    """`text` split at newlines into escaped lines; two or more blank lines in a row become one
    `note` line naming how many there were."""
    lines: list[ShownLine] = []
    raw = text.split("\n")
    i = 0
    while i < len(raw):
        if raw[i].strip(" ") == "":
            end = i
            while end < len(raw) and raw[end].strip(" ") == "":
                end += 1
            if end - i >= 2:
                lines.append(note(f"⋯ {end - i:,} blank lines ⋯"))
                i = end
                continue
        lines.append(ShownLine(tuple(escape_segments(raw[i])), kind))
        i += 1
    return lines


def note(text: str) -> ShownLine:
    """A line co-tui adds to the box (not part of the call), drawn unlike the call's text."""
    return ShownLine((Segment(text, "gap"),), "note")


EDIT_TOOLS = ("write_file", "edit_file")


def show_call(tool: str, text: str, *, path: str | None = None) -> ShownCall:
    """What to show for a call of `tool` whose exact text is `text`.

    A file edit (`write_file`, `edit_file`; `text` its unified diff, `path` the file): the diff,
    its lines coloured by kind, and a summary with the file and the lines added and removed.

    `run_shell`: the command as is. Another tool whose `text` is `"{tool} {JSON object}"` (an MCP
    call, `mcp_servers.py`): the arguments pretty-printed one key a line, and a fact line per
    argument (name, head of its value, size), so the tool, every argument's name and the start of
    its value show above the box whatever the arguments' length or order.
    """
    if tool in EDIT_TOOLS:
        return _show_diff(tool, text, path or "?")
    body = text
    facts: list[ShownLine] = []
    args = _json_args(tool, text)
    if args is not None:
        body = json.dumps(args, indent=2, ensure_ascii=False)
        facts = _facts(args)
    lines = text_lines(body[:SHOWN_MAX_CHARS])
    if len(body) > SHOWN_MAX_CHARS:
        lines.append(note(f"… {len(body) - SHOWN_MAX_CHARS:,} more characters not shown"))
    count = text.count("\n") + 1
    blank = sum(1 for line in text.split("\n") if line.strip(" ") == "")
    parts = [escaped(tool)]
    if args is not None:
        parts.append(plural(len(args), "argument"))
    parts.append(plural(count, "line") + (f" ({blank:,} blank)" if blank else ""))
    parts.append(plural(len(text), "character"))
    return ShownCall(escaped(tool), " · ".join(parts), tuple(facts), tuple(lines), len(text), count)


def _show_diff(tool: str, diff: str, path: str) -> ShownCall:
    lines: list[ShownLine] = []
    added = removed = endings = 0
    # At newlines only: `splitlines` also breaks at `\r`, U+2028 and others, which then vanished.
    raw_lines = diff[:SHOWN_MAX_CHARS].split("\n")
    if raw_lines[-1] == "":
        raw_lines.pop()
    i = 0
    while i < len(raw_lines):
        raw = raw_lines[i]
        if raw.startswith("-") and not raw.startswith("---"):
            run = _ending_run(raw_lines, i)
            if run:
                lines.append(note(f"⋯ line endings only: {run.label} on {plural(run.count, 'line')} ⋯"))
                lines += [ShownLine((Segment("~"), *escape_segments(text)), "hunk") for text in run.after]
                endings += run.count
                i += 2 * run.count
                continue
        kind: LineKind = "plain"
        if raw.startswith(("+++", "---", "@@")):
            kind = "hunk"
        elif raw.startswith("+"):
            kind, added = "add", added + 1
        elif raw.startswith("-"):
            kind, removed = "delete", removed + 1
        elif raw.startswith("\\"):
            lines.append(note(raw))
            i += 1
            continue
        lines.append(ShownLine(tuple(escape_segments(raw)), kind))
        i += 1
    if len(diff) > SHOWN_MAX_CHARS:
        lines.append(note(f"… {len(diff) - SHOWN_MAX_CHARS:,} more characters of the diff not shown"))
    new = diff.startswith("--- /dev/null")
    changed = f"+{added:,} −{removed:,} lines" if added or removed or not endings else ""
    if endings:
        endings_part = f"line endings {'changed' if changed else 'only'} on {plural(endings, 'line')}"
    parts = [tool, escaped(path), "a new file" if new else "", changed, endings_part if endings else ""]
    summary = " · ".join(p for p in parts if p)
    return ShownCall(tool, summary, (), tuple(lines), len(diff), diff.count("\n"))


@dataclass(frozen=True)
class _EndingRun:
    """A block of `-` lines followed by as many `+` lines that differ from them only in their line
    ending (a trailing `\r`): `after` is the new lines' text, `label` the change (`LF → CRLF`)."""

    count: int
    after: tuple[str, ...]
    label: str


def _ending_run(raw: list[str], start: int) -> _EndingRun | None:
    """The line-ending-only run of diff lines starting at `start` (a `-` line), or None."""
    end = start
    while end < len(raw) and raw[end].startswith("-") and not raw[end].startswith("---"):
        end += 1
    count = end - start
    adds = raw[end : end + count]
    if len(adds) != count or not all(line.startswith("+") and not line.startswith("+++") for line in adds):
        return None
    if end + count < len(raw) and raw[end + count].startswith("+"):
        return None  # more lines added than deleted: a real change
    olds, news = [line[1:] for line in raw[start:end]], [line[1:] for line in adds]
    if any(o.rstrip("\r") != n.rstrip("\r") for o, n in zip(olds, news, strict=True)) or olds == news:
        return None
    crlf_before = sum(o.endswith("\r") for o in olds)
    crlf_after = sum(n.endswith("\r") for n in news)
    label = "LF → CRLF" if crlf_after > crlf_before == 0 else "CRLF → LF" if crlf_before > crlf_after == 0 else "mixed"
    return _EndingRun(count, tuple(news), label)


def _json_args(tool: str, text: str) -> dict[str, Any] | None:
    head = tool + " "
    if tool == "run_shell" or not text.startswith(head):
        return None
    try:
        parsed = json.loads(text[len(head) :])
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _facts(args: dict[str, Any]) -> list[ShownLine]:
    facts: list[ShownLine] = []
    for name, value in list(args.items())[:MAX_FACTS]:
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        size = f" ({plural(len(shown), 'character')})" if len(shown) > FACT_VALUE_CHARS else ""
        head = shown[:FACT_VALUE_CHARS] + ("…" if size else "")
        segments = [Segment(escaped(str(name)) + ": "), *escape_segments(head)]
        if size:
            segments.append(Segment(size, "gap"))
        facts.append(ShownLine(tuple(segments)))
    if len(args) > MAX_FACTS:
        facts.append(note(f"+ {plural(len(args) - MAX_FACTS, 'more argument')} in the box"))
    return facts
