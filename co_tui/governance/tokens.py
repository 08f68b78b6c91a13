"""Dependency-free token estimate for messages: words + punctuation, not chars/4.

chars/4 undercounts exactly the content that overflows windows (base64, logs, JSON, CJK: 25–75%
low). This estimator counts the pieces BPE tokenizers split text into — word runs, case changes
inside words, digit groups, punctuation runs, line breaks, multibyte characters — with weights fitted
against cl100k/o200k on prose, code, JSON, logs, base64, CJK, markdown and the real-transcript corpus
(see `benchmarks/meter.py`). Every feature is a C-level `bytes.translate`/`count` pass over the
whole text (about 30 ms per MB, once per part thanks to the cache below; two-byte counts are the
bulk of it, so each is counted once and shared between features). Nothing is sampled: a
sample can be fooled by any text whose dense and sparse stretches fall between its windows (16
windows once read 102 KB as 99 tokens against 98,418 measured), and the meter's promise is a
bounded error for every input, not only for homogeneous ones (docs/context-governance.md).

Counts are cached per part and per message object (weakly, by identity), so a model request costs
O(new messages). The cache assumes parts are not mutated in place — governance never does that; it
builds new parts with `dataclasses.replace`.
"""

from __future__ import annotations

import json
import string
import weakref
from collections.abc import Iterable, Sequence
from typing import Any, Generic, TypeVar

__all__ = [
    "estimate_tokens",
    "estimate_text_tokens",
    "message_tokens",
    "sum_message_tokens",
    "part_text",
    "content_text",
    "prime_message_tokens",
    "ESTIMATOR_VERSION",
]

# Bump whenever a change to the estimator changes its figures: estimates saved with a session's rows
# (session/token_counts.py) under another version are ignored and counted afresh.
ESTIMATOR_VERSION = 1

# Framing the providers add around every message / part (role tags, tool-call envelopes).
MESSAGE_OVERHEAD = 3
PART_OVERHEAD = 2
# Images, audio, documents: providers bill them by size/resolution we cannot see cheaply.
MEDIA_TOKENS = 1000

# Texts are scored in blocks of this many characters so a huge paste needs bounded scratch memory
# (each feature pass makes a translated copy); a block boundary changes the score by a token or two.
_BLOCK = 1 << 20


def _table(*mapping: tuple[bytes, str]) -> bytes:
    table = bytearray(b"x" * 256)
    for chars, cls in mapping:
        for c in chars:
            table[c] = ord(cls)
    return bytes(table)


_LOWER = string.ascii_lowercase.encode()
_UPPER = string.ascii_uppercase.encode()
_DIGITS = string.digits.encode()
_T_CASE = _table((_LOWER, "l"), (_UPPER, "U"))
_T_ALNUM = _table((_LOWER + _UPPER, "a"), (_DIGITS, "0"))
_T_PUNCT = _table((string.punctuation.encode(), "."))
_T_NL = _table((b"\n\r", "n"))
_T_MB = _table((bytes(range(0xE0, 0xF0)), "C"), (bytes(range(0xC2, 0xE0)), "L"), (bytes(range(0xF0, 0xF5)), "E"))

# Weights fitted by non-negative least squares on relative error (equal weight per content
# category); the fit is reproduced and checked by benchmarks/meter.py.
_W_WORD = 0.95  # a run of ASCII letters
_W_CAMEL = 0.70  # lower→Upper inside a run (camelCase, base64)
_W_CAPS = 0.27  # Upper→Upper
_W_UL = 0.52  # Upper→lower
_W_DIGIT_RUN = 1.27
_W_DIGIT3 = 0.20  # every further 3 digits
_W_ALNUM_MIX = 0.46  # letter↔digit switches (hashes, base64, ids)
_W_PUNCT = 0.12  # every punctuation character
_W_PUNCT_RUN = 0.65  # every run of punctuation
_W_NEWLINE = 1.20  # every run of line breaks
_W_MB3 = 1.10  # 3-byte UTF-8 characters: CJK, most symbols
_W_MB2 = 1.10  # 2-byte UTF-8 characters: accented Latin, Cyrillic, Greek, …
_W_MB4 = 2.50  # 4-byte UTF-8 characters: emoji
_SAFETY = 1.04  # lean high: undercounting is the direction that overflows


def _features_score(data: bytes, ascii_only: bool) -> float:
    c = data.translate(_T_CASE)
    a = data.translate(_T_ALNUM)
    p = data.translate(_T_PUNCT)
    n = data.translate(_T_NL)
    first = data[:1]
    # Two-byte counts are the bulk of the cost: each one is counted once and shared. A word starts
    # where a letter follows a non-letter (`x` or a digit `0` in the alnum classes).
    letter_after_digit = a.count(b"0a")
    digit_after_letter = a.count(b"a0")
    words = a.count(b"xa") + letter_after_digit + (1 if first.isalpha() else 0)
    digit_runs = a.count(b"x0") + digit_after_letter + (1 if first.isdigit() else 0)
    score = (
        _W_WORD * words
        + _W_CAMEL * c.count(b"lU")
        + _W_CAPS * c.count(b"UU")
        + _W_UL * c.count(b"Ul")
        + _W_DIGIT_RUN * digit_runs
        + _W_DIGIT3 * a.count(b"000")
        + _W_ALNUM_MIX * (digit_after_letter + letter_after_digit)
        + _W_PUNCT * p.count(b".")
        + _W_PUNCT_RUN * (p.count(b"x.") + (1 if p[:1] == b"." else 0))
        + _W_NEWLINE * (n.count(b"xn") + (1 if n[:1] == b"n" else 0))
    )
    if not ascii_only:
        m = data.translate(_T_MB)
        score += _W_MB3 * m.count(b"C") + _W_MB2 * m.count(b"L") + _W_MB4 * m.count(b"E")
    return score


def _score(text: str) -> float:
    ascii_only = text.isascii()
    data = text.encode("ascii") if ascii_only else text.encode("utf-8", "surrogatepass")
    return _features_score(data, ascii_only)


def estimate_text_tokens(text: str) -> int:
    """Estimated tokens of one string. Deterministic; 0 for "".

    Every character is looked at (in blocks of `_BLOCK`): the estimate's error does not depend on
    how dense and sparse content is laid out in the text, which sampling could not promise.
    """
    size = len(text)
    if not size:
        return 0
    if size <= _BLOCK:
        return max(1, round(_score(text) * _SAFETY))
    score = sum(_score(text[start : start + _BLOCK]) for start in range(0, size, _BLOCK))
    return max(1, round(score * _SAFETY))


def content_text(content: Any) -> str:
    """Text of a tool-return / retry / user content value: str as is, anything else as JSON.

    Media items inside lists are skipped here (they are billed by `MEDIA_TOKENS`).
    """
    if isinstance(content, str):
        return content
    try:
        return json.dumps(content, ensure_ascii=False, default=str, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(content)


def _media_count(content: Any) -> int:
    if isinstance(content, (list, tuple)):
        return sum(1 for item in content if _is_media(item))
    return 1 if _is_media(content) else 0


def _is_media(item: Any) -> bool:
    kind = getattr(item, "kind", None)
    return isinstance(kind, str) and kind in {
        "binary",
        "image-url",
        "audio-url",
        "document-url",
        "video-url",
        "uploaded-file",
    }


def _text_items(content: Any) -> str:
    """User-prompt content: str, or a sequence of str / TextContent / media."""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        out: list[str] = []
        for item in content:
            if isinstance(item, str):
                out.append(item)
            elif not _is_media(item):
                text = getattr(item, "content", None)
                out.append(text if isinstance(text, str) else content_text(item))
        return "\n".join(out)
    return content_text(content)


def part_text(part: Any) -> str:
    """The model-visible text of one message part (tool calls: name + raw arguments)."""
    kind = getattr(part, "part_kind", "")
    if kind in ("tool-call", "builtin-tool-call") or kind.endswith("-call"):
        args = getattr(part, "args", None)
        args_text = args if isinstance(args, str) else content_text(args) if args is not None else ""
        return f"{getattr(part, 'tool_name', '')} {args_text}"
    if kind == "user-prompt":
        return _text_items(part.content)
    content = getattr(part, "content", None)
    if content is None:
        return ""
    name = getattr(part, "tool_name", None)
    text = _text_items(content) if isinstance(content, (list, tuple)) else content_text(content)
    return f"{name} {text}" if name else text


_V = TypeVar("_V")


class _IdentityCache(Generic[_V]):
    """id(obj) → (weakref, key, value); entries vanish with their object.

    Model messages are unhashable dataclasses, so `WeakKeyDictionary` is not an option.
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[Any], Any, _V]] = {}

    def get(self, obj: Any, key: Any) -> _V | None:
        entry = self._entries.get(id(obj))
        if entry is not None and entry[0]() is obj and entry[1] == key:
            return entry[2]
        return None

    def put(self, obj: Any, key: Any, value: _V) -> None:
        oid = id(obj)
        entries = self._entries

        def forget(_ref: weakref.ref[Any]) -> None:
            entries.pop(oid, None)

        try:
            ref = weakref.ref(obj, forget)
        except TypeError:  # not weak-referenceable: just don't cache
            return
        entries[oid] = (ref, key, value)

    def __len__(self) -> int:
        return len(self._entries)


_PART_CACHE: _IdentityCache[int] = _IdentityCache()
_MESSAGE_CACHE: _IdentityCache[int] = _IdentityCache()


def part_tokens(part: Any) -> int:
    """Estimated tokens of one part (cached by identity)."""
    cached = _PART_CACHE.get(part, None)
    if cached is not None:
        return cached
    content = getattr(part, "content", None)
    tokens = PART_OVERHEAD + estimate_text_tokens(part_text(part)) + MEDIA_TOKENS * _media_count(content)
    _PART_CACHE.put(part, None, tokens)
    return tokens


def message_tokens(message: Any) -> int:
    """Estimated tokens of one `ModelMessage` (cached by identity; re-counted if its parts list changes)."""
    parts = message.parts
    key = (id(parts), len(parts))
    cached = _MESSAGE_CACHE.get(message, key)
    if cached is not None:
        return cached
    tokens = MESSAGE_OVERHEAD + sum(part_tokens(p) for p in parts)
    _MESSAGE_CACHE.put(message, key, tokens)
    return tokens


def estimate_tokens(messages: Iterable[Any] | Any) -> int:
    """Estimated tokens of `messages` (a list of `ModelMessage`, one message, or a plain str).

    Never mutates its input. Cost is O(messages not seen before) plus a dict lookup per message.
    """
    if isinstance(messages, str):
        return estimate_text_tokens(messages)
    if hasattr(messages, "parts"):
        return message_tokens(messages)
    return sum_message_tokens(messages)


def sum_message_tokens(messages: Iterable[Any]) -> int:
    """`sum(message_tokens(m) for m in messages)`, with the cache lookup inlined: a pass sums the
    whole context several times, and the function calls were most of a repeat pass's cost."""
    entries = _MESSAGE_CACHE._entries
    total = 0
    for message in messages:
        entry = entries.get(id(message))
        parts = message.parts
        if entry is not None and entry[0]() is message and entry[1] == (id(parts), len(parts)):
            total += entry[2]
        else:
            total += message_tokens(message)
    return total


def estimate_each(messages: Sequence[Any]) -> list[int]:
    """Per-message estimates, in order (what the policy sums over turns)."""
    return [message_tokens(m) for m in messages]


def prime_message_tokens(messages: Sequence[Any], counts: Sequence[int | None]) -> None:
    """Seed the cache with estimates computed earlier for these very messages (a resumed session's
    rows keep them), so the first pass after a resume costs what a repeat pass costs.

    `counts[i]` must be `message_tokens` of an equal message under this `ESTIMATOR_VERSION`; None
    leaves message i to be counted on first use. Parts are not seeded: a cut that rewrites a part
    counts it then.
    """
    for message, tokens in zip(messages, counts, strict=False):
        if tokens is not None and tokens > 0:
            parts = message.parts
            _MESSAGE_CACHE.put(message, (id(parts), len(parts)), int(tokens))
