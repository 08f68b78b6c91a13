"""The `/history` inspector's data: where each transcript message stands relative to the context.

For every message of the append-only transcript: is the model still seeing it verbatim
(`in_context`), in a shortened form (`truncated` — a tool output cut or a step shrunk), covered by a
summary or compaction (`summarised`), or gone behind a breadcrumb (`dropped`)?

Context parts are matched to transcript parts by identity first, then by a stable key (part kind,
tool-call id and timestamp for request parts; response timestamp and position for response parts),
because governance rebuilds changed parts with `dataclasses.replace`, which keeps those fields.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.handles import RECALL_TOOL
from co_tui.governance.markers import evicted_turn_key, is_evicted_output, marker_info, separate_markers
from co_tui.governance.tokens import message_tokens, part_text, prime_message_tokens
from co_tui.governance.turn_states import Status
from co_tui.governance.turns import answers_calls, segment

__all__ = ["MessageInfo", "annotate_history", "context_view", "lighten_for_inspection", "mark_next_to_go"]

LIGHT_HEAD_CHARS = 2000
"""What `lighten_for_inspection` keeps of a tool output: far more than the 80-character preview needs."""


@dataclass(frozen=True)
class MessageInfo:
    """One transcript message as the inspector shows it."""

    index: int  # position in the transcript
    turn: int  # 1-based user turn; 0 for the system prefix
    role: Literal["system", "user", "assistant", "tool", "marker"]  # marker: a breadcrumb/summary governance inserted
    tokens: int  # estimated
    status: Status
    preview: str  # one line, ≤ 80 chars
    context_index: int | None = None  # where the model sees it (None when dropped/summarised)

    @property
    def kind(self) -> str:
        """Alias of `role` (the inspector's column name)."""
        return self.role


def _part_keys(message: ModelMessage) -> list[tuple[Any, ...]]:
    keys: list[tuple[Any, ...]] = []
    for k, part in enumerate(message.parts):
        kind = getattr(part, "part_kind", "")
        if isinstance(message, ModelResponse):
            keys.append(("response", message.timestamp, k, kind))
        else:
            keys.append(("request", kind, getattr(part, "tool_call_id", None), getattr(part, "timestamp", None)))
    return keys


def _role(message: ModelMessage) -> Literal["system", "user", "assistant", "tool", "marker"]:
    if marker_info(message) is not None:
        return "marker"
    if isinstance(message, ModelResponse):
        return "assistant"
    kinds = {getattr(p, "part_kind", "") for p in message.parts}
    if "user-prompt" in kinds:
        return "user"
    if any(answers_calls(p) for p in message.parts):
        return "tool"
    return "system" if kinds <= {"system-prompt"} else "user"


def _preview(message: ModelMessage, limit: int = 80) -> str:
    pieces: list[str] = []
    for part in message.parts:
        kind = getattr(part, "part_kind", "")
        if isinstance(part, ToolCallPart) and kind == "tool-call":
            pieces.append(f"→ {part.tool_name}()")
        elif answers_calls(part) and getattr(part, "tool_name", "") == RECALL_TOOL and (what := _recalled(part)):
            pieces.append(f"recall ↺ recalled {what}")  # which message came back, from which turn
        elif answers_calls(part):
            pieces.append(
                f"{getattr(part, 'tool_name', '?')}: {part_text(part)[len(getattr(part, 'tool_name', '') or '') :]}"
            )
        elif kind in ("user-prompt", "text", "system-prompt"):
            pieces.append(part_text(part))
    flat = " ".join(" ".join(pieces).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _recalled(part: Any) -> str | None:
    from co_tui.governance.recall import recalled_what

    content = getattr(part, "content", None)
    return recalled_what(content) if isinstance(content, str) else None


def lighten_for_inspection(messages: Sequence[ModelMessage], context: Sequence[ModelMessage]) -> list[ModelMessage]:
    """`messages` (a stretch of a transcript) as `annotate_history` needs them, for a fraction of
    the memory: a request made of tool outputs only, none of which `context` holds (by identity or
    by key: a context part is compared whole), becomes a copy whose outputs keep their first
    `LIGHT_HEAD_CHARS` characters — its preview is the same — with the whole message's token
    estimate primed on it. Anything else is returned as it is. Never mutates its inputs.

    A 5,000-turn session's outputs are most of its 150 MB decoded: the inspector reads it a chunk
    at a time through this, and keeps only the light copies (issue 33)."""
    held_ids = {id(part) for message in context for part in message.parts}
    held_keys = {key for message in context for key in _part_keys(message)}
    out: list[ModelMessage] = []
    for message in messages:
        outputs: list[Any] = list(message.parts)
        if (
            isinstance(message, ModelResponse)
            or not outputs
            or not all(answers_calls(p) and isinstance(p.content, str) and id(p) not in held_ids for p in outputs)
            or any(key in held_keys for key in _part_keys(message))
            or all(len(p.content) <= LIGHT_HEAD_CHARS for p in outputs)
        ):
            out.append(message)
            continue
        heads = [replace(p, content=p.content[:LIGHT_HEAD_CHARS]) for p in outputs]
        light = replace(message, parts=heads)
        prime_message_tokens([light], [message_tokens(message)])
        out.append(light)
    return out


def annotate_history(
    transcript: Sequence[ModelMessage],
    context: Sequence[ModelMessage],
    *,
    ledger: Sequence[HistoryTrimmed] | None = None,
    positions: Sequence[int] | None = None,
) -> list[MessageInfo]:
    """Per transcript message: turn, role, estimated tokens, status against `context`, preview.

    A message found in `context` is `in_context` (verbatim) or `truncated`. With the session's
    `ledger` (and `positions`: the transcript length at each cut), a message missing from the
    context takes its status from the cut that removed it (`_removals_from_ledger`): `summarised`
    only when a summary or compaction covered it, `dropped` otherwise; a missing message no cut can
    have removed is the request being sent right now (`in_context`). Without a ledger, the marker
    standing where the message was decides (a fallback for histories without their ledger).
    Pure; O(len(transcript) + len(context) + len(ledger)).
    """
    # Markers fused with the next prompt (pydantic-ai merges adjacent requests) are shown apart.
    transcript, context = separate_markers(transcript), separate_markers(context)
    identity: dict[int, int] = {}
    by_key: dict[tuple[Any, ...], tuple[int, Any]] = {}
    markers: list[tuple[int, str]] = []
    # Messages without parts (an answer interrupted before its first token) have no part to match:
    # they are found by identity, else by their timestamp.
    empty: dict[Any, int] = {}
    for ci, message in enumerate(context):
        if not message.parts:
            empty[id(message)] = empty[("empty", type(message).__name__, getattr(message, "timestamp", None))] = ci
        info = marker_info(message)
        if info is not None and info.kind != "salvaged":  # a recovered excerpt stands for nothing removed
            markers.append((ci, info.kind))
        for part, key in zip(message.parts, _part_keys(message), strict=False):
            identity[id(part)] = ci
            by_key[key] = (ci, part)

    turn_of: dict[int, int] = {}
    for n, turn in enumerate(segment(transcript).turns, 1):
        for i in turn.indices:
            turn_of[i] = n

    # First pass: where (if anywhere) each transcript message is in the context.
    located: list[tuple[int | None, bool]] = []  # (context index, verbatim)
    for message in transcript:
        where: int | None = None
        verbatim = True
        found_any = False
        only_system = all(getattr(p, "part_kind", "") == "system-prompt" for p in message.parts)
        if not message.parts:
            where = empty.get(
                id(message), empty.get(("empty", type(message).__name__, getattr(message, "timestamp", None)))
            )
            located.append((where, True))
            continue
        for part, key in zip(message.parts, _part_keys(message), strict=False):
            if getattr(part, "part_kind", "") == "system-prompt" and not only_system:
                continue  # the system prompt may be lifted into its own message
            if id(part) in identity:
                where = identity[id(part)] if where is None else where
                found_any = True
            elif key in by_key and key[-1] is not None:
                where = by_key[key][0] if where is None else where
                found_any = True
                # A copy (a resumed context holds its own copy of a prompt pydantic-ai fused with a
                # marker) is verbatim when equal; only a changed part (a shortened output) is not.
                verbatim = verbatim and by_key[key][1] == part
            else:
                verbatim = False
        located.append((where if found_any else None, verbatim))

    evicted = _evicted(transcript, context, located, turn_of)
    if ledger is not None:
        removed_by = _removals_from_ledger(located, turn_of, ledger, positions or (), evicted)
        statuses = _statuses_from_ledger(located, removed_by)
    else:
        statuses = _statuses_from_markers(located, markers, len(context))
    statuses = ["evicted" if i in evicted else status for i, status in enumerate(statuses)]
    infos: list[MessageInfo] = []
    for i, message in enumerate(transcript):
        where = located[i][0]
        status = statuses[i]
        infos.append(
            MessageInfo(
                index=i,
                turn=turn_of.get(i, 0),
                role=_role(message),
                tokens=message_tokens(message),
                status=status,
                preview=_preview(message),
                context_index=where,
            )
        )
    return infos


def _statuses_from_markers(
    located: Sequence[tuple[int | None, bool]], markers: Sequence[tuple[int, str]], context_len: int
) -> list[Status]:
    """Without a ledger: a missing run takes the kind of the marker sitting where it used to be."""
    next_present: list[int] = [context_len] * len(located)
    upcoming = context_len
    for i in range(len(located) - 1, -1, -1):
        next_present[i] = upcoming
        where = located[i][0]
        if where is not None:
            upcoming = where
    last_located = max((i for i, (where, _) in enumerate(located) if where is not None), default=-1)
    previous = -1
    out: list[Status] = []
    for i, (where, verbatim) in enumerate(located):
        if where is not None:
            out.append("in_context" if verbatim else "truncated")
            previous = where
        elif i > last_located and not any(ci > previous for ci, _ in markers):
            # Newer than everything the context holds and no cut after it: the request being sent
            # right now (the session's context catches up when the turn ends), not a dropped message.
            out.append("in_context")
        else:
            between = [kind for ci, kind in markers if previous < ci < next_present[i]] or [k for _, k in markers[-1:]]
            out.append("summarised" if between and between[-1] in ("summary", "compact", "compact_ack") else "dropped")
    return out


def _evicted(
    transcript: Sequence[ModelMessage],
    context: Sequence[ModelMessage],
    located: Sequence[tuple[int | None, bool]],
    turn_of: dict[int, int],
) -> set[int]:
    """Transcript messages the user evicted (docs/context-governance.md, "Evict"), known by metadata:
    a tool output whose context part carries the eviction key, and every missing message of a turn
    whose opening prompt's timestamp an eviction marker in the context names."""
    out: set[int] = set()
    evicted_ids = {
        (ci, getattr(part, "tool_call_id", None))
        for ci, message in enumerate(context)
        for part in message.parts
        if is_evicted_output(part)
    }
    keys = {key for message in context if (key := evicted_turn_key(message)) is not None}
    evicted_turns: set[int] = set()
    for i, message in enumerate(transcript):
        where = located[i][0]
        if where is not None and any((where, getattr(p, "tool_call_id", None)) in evicted_ids for p in message.parts):
            out.add(i)
        if keys and where is None:
            for part in message.parts:
                stamp = getattr(part, "timestamp", None)
                if getattr(part, "part_kind", "") == "user-prompt" and stamp is not None and stamp.isoformat() in keys:
                    evicted_turns.add(turn_of.get(i, -1))
    out.update(i for i, (where, _) in enumerate(located) if where is None and turn_of.get(i, -1) in evicted_turns)
    return out


def _removals_from_ledger(
    located: Sequence[tuple[int | None, bool]],
    turn_of: dict[int, int],
    ledger: Sequence[HistoryTrimmed],
    positions: Sequence[int],
    evicted: set[int] = frozenset(),  # type: ignore[assignment]
) -> dict[int, Status]:
    """Which cut of the ledger removed each message missing from the context, as a status.

    Replays the ledger in order over the missing messages (a removed message never comes back): a
    cut at transcript length `p` can only have removed messages older than `p`, never from the
    newest turn of its time (docs/context-governance.md); a turn cut or summary removes the oldest
    messages still unaccounted for, `dropped_messages` of them (the first `unsummarised_messages`
    of a summary without one); a compaction or /clear removes every turn the context held, the
    newest `dropped_messages`. A message dropped by a trim and later "covered" by a compaction stays
    `dropped`: the compaction only read the trim's breadcrumb.
    """
    # `alive` (the missing messages, in order) is never rebuilt: `gone` marks what a cut took and
    # `front` skips the taken prefix, so the replay reads each message about once, not once per
    # cut (a 5,000-turn session's 3,700 cuts over 20,000 messages took seconds).
    alive = [i for i, (where, _) in enumerate(located) if where is None]
    evicted_alive = [i for i in alive if i in evicted]
    gone: set[int] = set()
    front = 0  # every message of alive[:front] is gone
    removed: dict[int, Status] = {}
    for event, position in zip(ledger, positions, strict=False):
        count = event.dropped_messages
        if count <= 0 or len(gone) == len(alive):
            continue
        everything = event.strategy == "compact" or event.reason == "clear"
        newest_turn = turn_of.get(position - 1, -1)
        taken: list[int] = []
        if event.reason == "manual_evict":  # the user's pick, known by its marker (`_evicted`)
            for i in evicted_alive:
                if i >= position or len(taken) == count:
                    break
                if i not in gone:
                    taken.append(i)
        elif everything:  # the newest `count` the context held before the cut
            at = bisect_left(alive, position) - 1
            while at >= front and len(taken) < count:
                i = alive[at]
                if i not in gone and i not in evicted:
                    taken.append(i)
                at -= 1
            taken.reverse()
        else:  # the oldest `count`, never from the newest turn of its time
            at = front
            while at < len(alive) and len(taken) < count:
                i = alive[at]
                if i >= position:
                    break
                if i not in gone and i not in evicted and turn_of.get(i, 0) != newest_turn:
                    taken.append(i)
                at += 1
        summarised = event.strategy in ("summary", "compact")
        without = event.unsummarised_messages if summarised else 0
        for k, i in enumerate(taken):
            removed[i] = "summarised" if summarised and k >= without else "dropped"
        gone.update(taken)
        while front < len(alive) and alive[front] in gone:
            front += 1
    return removed


def _statuses_from_ledger(located: Sequence[tuple[int | None, bool]], removed: dict[int, Status]) -> list[Status]:
    """Statuses when the ledger is known: found → in context / truncated; removed by a cut → its
    kind; missing but removed by no cut → the request being sent now when it is newer than all the
    context holds (the session's context catches up when the turn ends), else `dropped`."""
    last_located = max((i for i, (where, _) in enumerate(located) if where is not None), default=-1)
    out: list[Status] = []
    for i, (where, verbatim) in enumerate(located):
        if where is not None:
            out.append("in_context" if verbatim else "truncated")
        elif i in removed:
            out.append(removed[i])
        else:
            out.append("in_context" if i > last_located else "dropped")
    return out


def mark_next_to_go(rows: Sequence[MessageInfo], going: Collection[int], *, context_rows: bool) -> list[MessageInfo]:
    """`rows` with status `next_to_go` on those the next automatic cut would remove or summarise.

    `going`: context indices (`NextCut.going`, from `co_tui.governance.next_cut.preview_next_cut`);
    a context row is matched by its own index, a transcript row by its `context_index`. Pure.
    """
    out: list[MessageInfo] = []
    for row in rows:
        where = row.index if context_rows else row.context_index
        out.append(replace(row, status="next_to_go") if where is not None and where in going else row)
    return out


def context_view(transcript_rows: Sequence[MessageInfo], context_rows: Sequence[MessageInfo]) -> list[MessageInfo]:
    """The context's rows with the turn number and status of the transcript message each one shows.

    Annotated on its own, the context would count its turns from 1 and call a truncated tool output
    plain "in context"; markers (which have no transcript message) keep their own annotation. A
    request pydantic-ai fused from several transcript messages (a `!command`'s output and the prompt
    after it, an interrupted call's result and the next prompt) is shown as those messages, one row
    each with its own turn, all at the one context index they share: the In context tab then counts
    and numbers messages as the Transcript tab does (issue 43). Pure.
    """
    seen_as: dict[int, list[MessageInfo]] = {}
    for row in transcript_rows:
        if row.context_index is not None:
            seen_as.setdefault(row.context_index, []).append(row)
    out: list[MessageInfo] = []
    for row in context_rows:
        sources = seen_as.get(row.index, [])
        if len(sources) > 1:
            out += [replace(source, index=row.index, context_index=row.index) for source in sources]
        elif sources:
            out.append(replace(row, turn=sources[0].turn, status=sources[0].status))
        else:
            out.append(row)
    return out
