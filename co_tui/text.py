"""Text helpers every layer uses (no imports: governance, agent, session and the TUI all may)."""

from __future__ import annotations

import re
from collections.abc import Iterable


def plural(n: int, word: str, shown: str | None = None, *, many: str | None = None) -> str:
    """`n` and `word`, with an `s` unless `n` is 1: '1 turn', '1,234 messages'. `shown`: how `n` is
    written (default `f"{n:,}"`); `many`: the plural when it is not `word` + 's' ('directories')."""
    return f"{f'{n:,}' if shown is None else shown} {word if n == 1 else many or word + 's'}"


def format_tokens(n: int) -> str:
    """A token count as banners, the meter, the inspectors and exports write it: 12 → '12',
    12_900 → '12.9k', 1_250_000 → '1.25M'."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n / 1_000_000:.2f}M"


def one_line(text: str, limit: int) -> str:
    """`text` with its whitespace runs collapsed to single spaces, cut to at most `limit` characters
    (the last one an ellipsis when cut)."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: max(0, limit - 1)].rstrip() + "…"


def fit_words(text: str, width: int) -> str:
    """`text` within `width` characters, cut at a word boundary with an ellipsis (never mid-word,
    unless its first word alone is too long)."""
    if len(text) <= width:
        return text
    words, line = text.split(" "), ""
    for word in words:
        candidate = f"{line} {word}" if line else word
        if len(candidate) + 1 > width:
            break
        line = candidate
    return (line or text[: max(0, width - 1)]) + "…"


def fit_segments(parts: list[str], width: int, sep: str = " · ") -> str:
    """`parts` joined by `sep` within `width` characters: whole parts are dropped from the end, an
    ellipsis segment saying some were. A part too long to follow the first one at this width even
    alone is skipped instead (an ellipsis in its place), so the shorter parts after it, such as the
    figures, still show. The first part alone is cut at a word boundary (`fit_words`)."""
    line = sep.join(parts)
    if len(line) <= width:
        return line
    kept = [parts[0]]
    for i, part in enumerate(parts[1:], start=1):
        last = i == len(parts) - 1
        trial = [*kept, part] if last else [*kept, part, "…"]
        if len(sep.join(_one_ellipsis(trial))) <= width:
            kept.append(part)
        elif len(sep.join([parts[0], part])) > width:
            kept.append("…")  # it can never show here: the parts after it may
        else:
            kept.append("…")
            break
    kept = _one_ellipsis(kept)
    if len(kept) == 1 or len(sep.join(kept)) > width:
        return fit_words(parts[0], width)
    return sep.join(kept)


def _one_ellipsis(parts: list[str]) -> list[str]:
    """`parts` with runs of `…` segments as one, and no `…` left after a kept last part's place."""
    out: list[str] = []
    for part in parts:
        if not (part == "…" and out and out[-1] == "…"):
            out.append(part)
    return out


# C0 controls, DEL, the C1 controls (a terminal may read 0x9b as CSI and 0x9d as OSC, as ESC [ and
# ESC ]) and the Unicode line breaks `str.splitlines` honours: what must not reach a terminal raw.
_CONTROL = {c: f"\\x{c:02x}" for c in [*range(32), 127, *range(0x80, 0xA0)]}
_CONTROL.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", 0x2028: "\\u2028", 0x2029: "\\u2029"})
_CONTROL_KEEPING_LINES = {c: v for c, v in _CONTROL.items() if c not in (ord("\n"), ord("\t"))}


def _char_class(codes: Iterable[int]) -> str:
    """A regular expression's class matching exactly `codes`, runs of consecutive ones as ranges:
    it compiles in a fraction of the time a class listing 70 characters one by one takes (this
    module is imported before the TUI's first frame)."""
    runs: list[list[int]] = []
    for code in sorted(codes):
        if runs and code == runs[-1][1] + 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "[" + "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in runs) + "]"


# Whether there is anything to escape, found at C speed: a multi-megabyte answer is checked per flush.
_HAS_CONTROL = re.compile(_char_class(_CONTROL))
_HAS_CONTROL_KEEPING_LINES = re.compile(_char_class(_CONTROL_KEEPING_LINES))


def escape_controls(text: str, *, keep_lines: bool = False) -> str:
    """`text` with control characters escaped as `\\x1b`, `\\n`…, so a terminal shows them instead of
    obeying them (an OSC sequence retitles the window, others move the cursor or rewrite lines).
    `keep_lines`: newlines and tabs stay as they are (an answer's own layout)."""
    table, found = (_CONTROL_KEEPING_LINES, _HAS_CONTROL_KEEPING_LINES) if keep_lines else (_CONTROL, _HAS_CONTROL)
    return text.translate(table) if found.search(text) else text


def screen_text(text: str) -> str:
    """`text` as a screen may show it: control characters escaped (`escape_controls`), its own
    newlines and tabs kept, a CRLF line end read as LF. For every widget that shows text co-tui did
    not write (answers, tool output, files, MCP, saved sessions): such text never drives the terminal."""
    return escape_controls(text.replace("\r\n", "\n") if "\r" in text else text, keep_lines=True)


def mend_surrogates(text: str) -> str:
    """`text` with each UTF-16 surrogate pair joined into its character and every lone surrogate
    replaced by U+FFFD: what UTF-8 can hold. A JSON `\\ud83d` that arrived in one stream chunk and
    `\\ude00` in the next are a pair; a lone one cannot be written to a file, a terminal or a
    database. Text without surrogates is returned as is (the common case costs one scan)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def ends_in_high_surrogate(text: str) -> bool:
    """Whether `text` ends with the first half of a surrogate pair (its second may come next)."""
    return bool(text) and "\ud800" <= text[-1] <= "\udbff"
