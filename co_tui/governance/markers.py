"""The messages governance inserts into the context: breadcrumbs, summaries, compactions.

A marker is a `ModelRequest` holding one `UserPromptPart` (so every provider shows it to the model)
whose text says what was removed. Markers are not user turns: the next cut replaces them and adds up
their counts, so they never pile up.

Only governance's own markers are markers: a user prompt that reads exactly like one is a user
prompt (docs/context-governance.md, "Markers"). A marker is therefore recognised by what a user
cannot type — our metadata key on the request, never its text. pydantic-ai fuses a marker with the
prompt after it (at run start, and in `repair_messages`) and drops request metadata on the way; the
marker's part object survives that, so parts made or seen here are remembered by identity, and
`tag_fused_markers` writes their kind and counts onto the fused request before it is saved.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

MarkerKind = Literal["breadcrumb", "summary", "static", "compact", "compact_ack", "evicted", "salvaged"]

METADATA_KEY = "co_tui_marker"
# On a request pydantic-ai fused: what its leading (non-system) parts are — a marker's kind and
# counts, or a list of them when adjacent markers were fused together.
FUSED_KEY = "co_tui_fused_marker"

COMPACT_HEADER = "[Compacted conversation summary]"
COMPACT_ACK = "Understood. I have the conversation context."
BREADCRUMB_PREFIX = "[Earlier conversation trimmed"
SUMMARY_PREFIX = "[Summary of"
EVICTED_PREFIX = "[Removed from the context by the user"
RECOVERED_PREFIX = "[Recovered from the transcript by the user"
MARKER_PREFIXES = (BREADCRUMB_PREFIX, SUMMARY_PREFIX, COMPACT_HEADER[:-1], EVICTED_PREFIX, RECOVERED_PREFIX)
"""How the text of each marker starts (breadcrumb, summary, compaction, eviction, recovered
excerpt): the offline model skips them."""


def breadcrumb_text(messages: int, turns: int) -> str:
    """The breadcrumb's exact text (docs/context-governance.md); plural forms are fixed so the text is parseable."""
    return f"[Earlier conversation trimmed — {messages} messages ({turns} turns) removed to stay within the context budget]"


def summary_text(messages: int, summary: str, pinned: int = 0, covers: str | None = None) -> str:
    """`[Summary of N earlier messages]` + newline + the summary; `pinned`: how many pinned turns
    from among those messages follow it verbatim (said inside the brackets; docs/context-governance.md, "Pins");
    `covers` ("2-9"): the turns it summarises, said after the brackets with the `recall` call that
    returns them verbatim (short: a summary's window is priced with it)."""
    return f"[Summary of {messages} earlier messages{_pinned_note(pinned)}]{_covers_note(covers)}\n{summary}"


def _covers_note(covers: str | None) -> str:
    if not covers:
        return ""
    return f' — turns {covers}: recall(turns="{covers}")'


def compact_text(summary: str, pinned: int = 0) -> str:
    """`[Compacted conversation summary]` + newline + the summary (`pinned` as in `summary_text`)."""
    return f"{COMPACT_HEADER[:-1]}{_pinned_note(pinned)}]\n{summary}"


def _pinned_note(pinned: int) -> str:
    if pinned <= 0:
        return ""
    turns = "1 pinned turn" if pinned == 1 else f"{pinned} pinned turns"
    return f"; {turns} from among them kept verbatim after this summary"


@dataclass(frozen=True)
class MarkerInfo:
    """What a marker stands for: `messages`/`turns` removed before it (cumulative), and its kind."""

    kind: MarkerKind
    messages: int = 0
    turns: int = 0
    summary: str | None = None
    covers: str | None = None  # a summary's turns ("2-9"), as its first line names them


class _PartRegistry:
    """id(part) -> (weakref, meta) for the marker parts this process made or recognised.

    Parts are unhashable dataclasses, so a `WeakKeyDictionary` is not an option; an entry vanishes
    with its part.
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[Any], dict[str, Any]]] = {}

    def get(self, part: Any) -> dict[str, Any] | None:
        entry = self._entries.get(id(part))
        return entry[1] if entry is not None and entry[0]() is part else None

    def put(self, part: Any, meta: dict[str, Any]) -> None:
        pid = id(part)
        entries = self._entries

        def forget(_ref: weakref.ref[Any]) -> None:
            entries.pop(pid, None)

        try:
            ref = weakref.ref(part, forget)
        except TypeError:
            return
        entries[pid] = (ref, meta)


_PARTS = _PartRegistry()


def _marker_part(message: ModelMessage) -> tuple[int, Any] | None:
    """(index, part) of a request's first non-system part when it is a str user prompt, else None."""
    for i, part in enumerate(message.parts):
        kind = getattr(part, "part_kind", "")
        if kind == "system-prompt":
            continue
        return (i, part) if isinstance(part, UserPromptPart) and isinstance(part.content, str) else None
    return None


def _valid_meta(meta: Any) -> bool:
    return isinstance(meta, dict) and meta.get("kind") in (
        "breadcrumb",
        "summary",
        "static",
        "compact",
        "compact_ack",
        "evicted",
        "salvaged",
    )


def _make(kind: MarkerKind, text: str, messages: int, turns: int, **extra: Any) -> ModelRequest:
    meta: dict[str, Any] = {"kind": kind, "messages": messages, "turns": turns, **extra}
    part = UserPromptPart(text)
    _PARTS.put(part, meta)
    return ModelRequest(parts=[part], metadata={METADATA_KEY: meta})


def _with_listing(text: str, listing: str) -> str:
    return f"{text}\n{listing}" if listing else text


def make_breadcrumb(messages: int, turns: int, listing: str = "") -> ModelRequest:
    """A breadcrumb marker for `messages` messages in `turns` turns removed (cumulative); `listing`
    (governance/cut_notes.py: which turns left and the `recall` call that brings them back) follows
    the breadcrumb's first line."""
    return _make("breadcrumb", _with_listing(breadcrumb_text(messages, turns), listing), messages, turns)


def make_static_marker(messages: int, turns: int, listing: str = "") -> ModelRequest:
    """The marker used when a summary could not be produced: the breadcrumb text (and `listing`), kind `static`."""
    return _make("static", _with_listing(breadcrumb_text(messages, turns), listing), messages, turns)


def marker_text(message: ModelMessage) -> str | None:
    """The text of a marker request made of one str user prompt (plus system parts), else None."""
    return _only_text(message) if isinstance(message, ModelRequest) else None


def make_summary_marker(messages: int, turns: int, summary: str, covers: str | None = None) -> ModelRequest:
    """The summary marker: a `ModelRequest` `[Summary of N earlier messages]\\n…`; `covers` ("2-9"):
    the transcript turns it summarises, named on its first line with their `recall` call."""
    extra = {"covers": covers} if covers else {}
    return _make("summary", summary_text(messages, summary, covers=covers), messages, turns, **extra)


def make_evicted_marker(messages: int, text: str, prompt_at: str | None = None) -> ModelRequest:
    """The marker standing where the user evicted a whole turn (`messages` messages): `text` names
    what was removed (docs/context-governance.md, "Evict"). `prompt_at`: the ISO timestamp of the
    turn's opening prompt, so the inspector can tell which transcript turn it stands for."""
    meta: dict[str, Any] = {"kind": "evicted", "messages": messages, "turns": 1}
    if prompt_at is not None:
        meta["prompt_at"] = prompt_at
    part = UserPromptPart(text)
    _PARTS.put(part, meta)
    return ModelRequest(parts=[part], metadata={METADATA_KEY: meta})


def make_recovered_marker(items: Sequence[str], text: str) -> ModelRequest:
    """The marker holding verbatim excerpts the user recovered for `items` (paths, names, numbers
    a summary lost; docs/context-governance.md, "Recover a lost item"). It stands for no removed
    messages (counts 0): a later cut takes it along like any marker."""
    meta: dict[str, Any] = {"kind": "salvaged", "messages": 0, "turns": 0, "items": list(items)}
    part = UserPromptPart(text)
    _PARTS.put(part, meta)
    return ModelRequest(parts=[part], metadata={METADATA_KEY: meta})


def recovered_items(message: ModelMessage) -> list[str]:
    """The items a recovered-excerpt marker holds (see `make_recovered_marker`); [] for any other message."""
    if (info := marker_info(message)) is None or info.kind != "salvaged":
        return []
    meta = (getattr(message, "metadata", None) or {}).get(METADATA_KEY)
    if not isinstance(meta, dict):
        found = _marker_part(message) if isinstance(message, ModelRequest) else None
        meta = _PARTS.get(found[1]) if found is not None else None
    items = meta.get("items") if isinstance(meta, dict) else None
    return [i for i in items if isinstance(i, str)] if isinstance(items, list) else []


def evicted_turn_key(message: ModelMessage) -> str | None:
    """The `prompt_at` an eviction marker carries (see `make_evicted_marker`), else None."""
    meta = (getattr(message, "metadata", None) or {}).get(METADATA_KEY)
    if marker_info(message) is None or not isinstance(meta, dict):
        found = _marker_part(message) if isinstance(message, ModelRequest) else None
        meta = _PARTS.get(found[1]) if found is not None else None
    if not isinstance(meta, dict) or meta.get("kind") != "evicted":
        return None
    value = meta.get("prompt_at")
    return value if isinstance(value, str) else None


TRUNCATION_MARK = "[…truncated"  # how a shortened tool output's last line starts (the TUI badges it)


def is_truncated_output(text: str) -> bool:
    """Whether a tool output's text ends with the note `truncation.truncate_text` leaves: the model
    sees the output shortened (the TUI badges its tool call): its last line starts with `TRUNCATION_MARK`."""
    return text.rpartition("\n")[2].startswith(TRUNCATION_MARK)


def is_evicted_output(part: Any) -> bool:
    """Whether a tool-return part is an output the user evicted (its content replaced by a marker).

    Recognised by our key in the part's own metadata (which pydantic-ai keeps and never sends)."""
    meta = getattr(part, "metadata", None)
    return (
        isinstance(meta, dict)
        and isinstance(meta.get(METADATA_KEY), dict)
        and meta[METADATA_KEY].get("kind") == "evicted"
    )


def make_compact_pair(
    messages: int, turns: int, summary: str, system_parts: list[Any] | None = None
) -> list[ModelMessage]:
    """The two-message result of `/compact`: the summary request and the model's acknowledgement.

    `system_parts` (the conversation's leading system prompt, if any) ride in the same request so the
    result stays two messages.
    """
    meta = {"kind": "compact", "messages": messages, "turns": turns}
    part = UserPromptPart(compact_text(summary))
    _PARTS.put(part, meta)
    request = ModelRequest(parts=[*(system_parts or []), part], metadata={METADATA_KEY: meta})
    ack = ModelResponse(parts=[TextPart(COMPACT_ACK)], metadata={METADATA_KEY: {"kind": "compact_ack"}})
    return [request, ack]


def with_pinned_note(marker: ModelMessage, pinned: int) -> ModelMessage:
    """A new summary or compact marker like `marker` whose first line says that `pinned` pinned
    turns from among the messages it stands for follow it verbatim (`marker` itself when `pinned`
    is 0 or it is another kind). Never mutates `marker`."""
    info = marker_info(marker)
    found = _marker_part(marker) if isinstance(marker, ModelRequest) else None
    if pinned <= 0 or info is None or info.kind not in ("summary", "compact") or found is None:
        return marker
    assert isinstance(marker, ModelRequest)  # `found` is only set for a request
    summary = info.summary or ""
    text = (
        summary_text(info.messages, summary, pinned, info.covers)
        if info.kind == "summary"
        else compact_text(summary, pinned)
    )
    index, part = found
    new_part = replace(part, content=text)
    meta: dict[str, Any] = {"kind": info.kind, "messages": info.messages, "turns": info.turns}
    if info.covers:
        meta["covers"] = info.covers
    _PARTS.put(new_part, meta)
    return replace(marker, parts=[*marker.parts[:index], new_part, *marker.parts[index + 1 :]])


def _only_text(message: ModelMessage) -> str | None:
    """The text of a request made of exactly one str `UserPromptPart` (plus system parts), else None."""
    texts = [p for p in message.parts if getattr(p, "part_kind", "") != "system-prompt"]
    if len(texts) != 1:
        return None
    part = texts[0]
    if not isinstance(part, UserPromptPart) or not isinstance(part.content, str):
        return None
    return part.content


def marker_info(message: ModelMessage) -> MarkerInfo | None:
    """The marker `message` is, or None for an ordinary message.

    Recognised by our metadata on the request, or (a request whose metadata a copy lost) by its one
    part being a marker part this process made or saw — never by its text: a user prompt that reads
    like a marker is a user prompt. A compact acknowledgement is recognised only by metadata (see
    `is_compact_ack`).
    """
    meta: dict[str, Any] | None = (getattr(message, "metadata", None) or {}).get(METADATA_KEY)
    if meta is None or not _valid_meta(meta):
        if not isinstance(message, ModelRequest) or _only_text(message) is None:
            return None
        found = _marker_part(message)
        meta = _PARTS.get(found[1]) if found is not None else None
        if meta is None:
            return None
    kind = meta["kind"]
    summary = None
    if kind != "compact_ack" and isinstance(message, ModelRequest) and (found := _marker_part(message)) is not None:
        _PARTS.put(found[1], meta)  # so a later fusion of this request is still recognised
    if kind in ("summary", "compact"):
        text = _only_text(message) or ""
        summary = text.split("\n", 1)[1] if "\n" in text else ""
    covers = meta.get("covers")
    return MarkerInfo(
        kind,
        int(meta.get("messages", 0) or 0),
        int(meta.get("turns", 0) or 0),
        summary,
        covers if isinstance(covers, str) else None,
    )


def _fused_markers(message: ModelMessage) -> list[tuple[int, dict[str, Any]]]:
    """(index, meta) of every marker part of a request pydantic-ai fused — the leading run of marker
    parts, in order (several when adjacent markers were fused: two evictions in a row) — or [] when
    `message` is no fused marker request (an ordinary request, or one marker alone)."""
    if not isinstance(message, ModelRequest) or len(message.parts) < 2:
        return []
    tagged = (message.metadata or {}).get(FUSED_KEY)  # one marker's meta, or a list of them (saved)
    tags = [tagged] if isinstance(tagged, dict) else tagged if isinstance(tagged, list) else []
    found: list[tuple[int, dict[str, Any]]] = []
    for i, part in enumerate(message.parts):
        if not found and getattr(part, "part_kind", "") == "system-prompt":
            continue
        if not isinstance(part, UserPromptPart) or not isinstance(part.content, str):
            break
        meta = _PARTS.get(part)
        if meta is None:
            tag = tags[len(found)] if len(found) < len(tags) else None
            meta = tag if _valid_meta(tag) else None
        if meta is None or meta.get("kind") == "compact":  # a compact request legitimately holds system parts only
            break
        found.append((i, meta))
    if len(found) == 1 and found[0][0] == len(message.parts) - 1:
        return []  # one marker alone (after system parts): not fused
    return found


def _split_fused(message: ModelMessage) -> list[ModelMessage] | None:
    """[marker, …, rest] when `message` is a request pydantic-ai fused from markers and the request
    after them (the rest left out when there is none), else None."""
    found = _fused_markers(message)
    if not found or not isinstance(message, ModelRequest):  # only a request is ever found fused
        return None
    out: list[ModelMessage] = []
    start = 0
    for index, meta in found:
        _PARTS.put(message.parts[index], meta)
        out.append(ModelRequest(parts=[*message.parts[start : index + 1]], metadata={METADATA_KEY: dict(meta)}))
        start = index + 1
    if start < len(message.parts):
        rest_meta = {k: v for k, v in (message.metadata or {}).items() if k != FUSED_KEY} or None
        out.append(replace(message, parts=list(message.parts[start:]), metadata=rest_meta))
    return out


def _fused_tag(found: list[tuple[int, dict[str, Any]]]) -> dict[str, Any] | list[dict[str, Any]]:
    """What `FUSED_KEY` holds for `found`: the marker's meta, or the list of them when several."""
    metas = [dict(meta) for _, meta in found]
    return metas[0] if len(metas) == 1 else metas


def tag_fused_markers(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """A new list in which every request that fuses markers with the prompt after them carries the
    markers' kinds and counts in its metadata (`FUSED_KEY`: one meta, or a list of them in order), so
    they survive a save and a resume.

    pydantic-ai's fusion keeps the markers' parts but drops our request metadata; call this on what a
    run returns before storing it. Never mutates its input; untouched messages are returned as they are.
    """
    out = list(messages)
    for i, message in enumerate(out):
        found = _fused_markers(message)
        if found and (message.metadata or {}).get(FUSED_KEY) != (tag := _fused_tag(found)):
            out[i] = replace(message, metadata={**(message.metadata or {}), FUSED_KEY: tag})
    return out


def register_markers(messages: Sequence[ModelMessage]) -> None:
    """Remember the marker parts of `messages` (e.g. read back from storage) by identity, so the
    fusion pydantic-ai applies when a run starts does not hide them from governance."""
    for message in messages:
        if marker_info(message) is None and isinstance(message, ModelRequest):
            for index, meta in _fused_markers(message):
                _PARTS.put(message.parts[index], meta)


def separate_markers(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """A new list in which every marker stands alone again. Never mutates its input.

    pydantic-ai merges adjacent requests when a run starts (and `repair_messages` does too), so a
    breadcrumb or summary arrives fused with the user prompt after it and would lose its identity:
    its counts would no longer add up and the prompt would ride along with it. Splitting the fused
    request back into [marker, prompt] restores both. Unfused messages are returned as they are.
    """
    out: list[ModelMessage] | None = None
    for i, message in enumerate(messages):
        # Only a request of two parts or more can be fused (decided inline: this runs every pass).
        split = _split_fused(message) if isinstance(message, ModelRequest) and len(message.parts) > 1 else None
        if split is not None and out is None:
            out = list(messages[:i])
        if out is not None:
            out.extend(split or [message])
    return list(messages) if out is None else out


def is_compact_ack(message: ModelMessage, previous: ModelMessage | None) -> bool:
    """Whether `message` is the acknowledgement that follows a compact marker."""
    if not isinstance(message, ModelResponse):
        return False
    meta = (message.metadata or {}).get(METADATA_KEY)
    if isinstance(meta, dict) and meta.get("kind") == "compact_ack":
        return True
    if previous is None or (info := marker_info(previous)) is None or info.kind != "compact":
        return False
    return (
        len(message.parts) == 1 and isinstance(message.parts[0], TextPart) and message.parts[0].content == COMPACT_ACK
    )


def is_marker(message: ModelMessage) -> bool:
    """Whether `message` is a breadcrumb, summary, static or compact marker governance inserted.

    (A compact acknowledgement response is part of its marker; `split_turns` treats both as markers.)
    """
    return marker_info(message) is not None
