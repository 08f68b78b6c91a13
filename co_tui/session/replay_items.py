"""Replay of a saved conversation as chat entries: messages → display items, with the trim banners
at their cuts — what every front end shows for a resumed session (the TUI's chat log, an ACP client's
`session/load` updates).

One implementation for both forms a message comes in: the store's rows parsed as JSON (a resumed
conversation is shown from them before pydantic-ai has loaded, `SessionStore.load_tail`) and
pydantic-ai's message objects (a session already in memory). `ModelMessagesTypeAdapter` JSON uses
the objects' own field names — `kind`, `parts`, `part_kind`, `content`, `tool_name`,
`tool_call_id`, `args` — so fields are read by name and nothing here imports pydantic-ai.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from co_tui.session.conversation_counts import field_of as _field

if TYPE_CHECKING:
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.session.events import ToolResult
    from co_tui.store.tail import SessionTail


class Replayable(Protocol):
    """What `replay` reads of a session (its `HistoryView`)."""

    @property
    def transcript(self) -> Sequence[Any]:
        """Every message, oldest first."""
        ...

    @property
    def ledger(self) -> Sequence[HistoryTrimmed]:
        """Every cut, oldest first."""
        ...

    @property
    def ledger_positions(self) -> Sequence[int]:
        """The transcript's length at each cut."""
        ...


FIRST_WINDOW = 64  # transcript messages `newest_window` reads first; each further read back doubles


@dataclass(frozen=True)
class Item:
    """One chat-log entry. `kind` picks the widget; unused fields stay empty."""

    kind: Literal["user", "assistant", "tool"]
    text: str = ""
    tool_name: str = ""
    tool_call_id: str = ""
    args: str = ""
    result: str | None = None
    is_error: bool = False
    at: int = 0  # index of the transcript message it starts at (places trim banners on resume)
    # The user stopped the turn here (pydantic-ai's message state): an answer cut off, or the
    # prompt or tool call that was the last thing before the interrupt. Shown as it was live.
    interrupted: bool = False
    # A `delegate` call's result: the subagent the engine recorded on it (raw metadata; None: none).
    subagent: Any = None

    def tool_result(self) -> ToolResult | None:
        """A tool item's result as the live turn's `ToolResult` gave it, with the facts its row
        shows filled in (`session/tool_facts.py`: a shell command's outcome, what a recall brought
        back); None for a call that never returned, and for a prompt or an answer."""
        if self.kind != "tool" or self.result is None:
            return None
        from co_tui.session.tool_facts import tool_result  # here: kept out of the first frame's imports

        return tool_result(
            tool_name=self.tool_name,
            tool_call_id=self.tool_call_id,
            content=self.result,
            chars=len(self.result),
            is_error=self.is_error,
        )


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        # Multimodal prompts: text as is, anything else as its kind, e.g. `[image-url]`.
        return "\n".join(
            part if isinstance(part, str) else f"[{_field(part, 'kind') or type(part).__name__}]" for part in content
        )
    return str(content)


def _typed_text(prompt: str) -> str:
    """A prompt as the user typed it, its `@path` attachments named on a line after it (not shown
    whole: the live chat showed the typed text and a line naming them too)."""
    if "\n\n<attached path=" not in prompt:
        return prompt
    from co_tui.agent.mentions import split_attachments

    typed, attached = split_attachments(prompt)
    return f"{typed}\n(attached: {', '.join(path for path, _ in attached)})" if attached else prompt


def _args_of(args: Any) -> str:
    if args is None:
        return ""
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


def _result_of(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)


def _retry_text(content: Any, tool_name: str | None) -> str:
    """What pydantic-ai's `RetryPromptPart.model_response()` says, built from the part's fields."""
    if isinstance(content, str):
        description = content if tool_name is not None else f"Validation feedback:\n{content}"
    else:
        errors = list(content or ())

        def kept(error: Any) -> dict[str, Any]:
            # As model_response: no `ctx`; without a tool, top-level errors also drop `input`.
            drop = {"ctx", "input"} if tool_name is None and len(error.get("loc", ())) <= 1 else {"ctx"}
            return {k: v for k, v in error.items() if k not in drop}

        shown = json.dumps([kept(dict(e)) for e in errors], indent=2, ensure_ascii=False, default=str)
        plural = len(errors) != 1
        description = f"{len(errors)} validation error{'s' if plural else ''}:\n```json\n{shown}\n```"
    return f"{description}\n\nFix the errors and try again."


def transcript_items(messages: Sequence[Any], *, start: int = 0) -> list[Item]:
    """User prompts, assistant text runs and tool calls (paired with their results), in order.
    An answer whose last response was cut off by an interrupt is `interrupted`; a message left
    `interrupted` with no text (the interrupt came before the first token, or during a tool call)
    marks the item before it. A tool result whose outcome is not `success` is an error (a declined
    shell command), one whose outcome is `interrupted` is no result, as the live turn showed them.

    `messages` are stored JSON dicts or pydantic-ai messages; `start` is the transcript index of
    `messages[0]` (for `Item.at`). Shapes it does not know are skipped, never raised on.
    """
    from co_tui.session.child_record import SUBAGENT_KEY  # here: kept out of the first frame's imports

    items: list[Item] = []
    tool_index: dict[str, int] = {}
    for at, message in enumerate(messages, start):
        kind, parts = _field(message, "kind"), _field(message, "parts") or ()
        if kind == "request":
            for part in parts:
                part_kind, call_id = _field(part, "part_kind"), _field(part, "tool_call_id")
                if part_kind == "user-prompt":
                    items.append(Item("user", text=_typed_text(_text_of(_field(part, "content"))), at=at))
                elif part_kind in ("tool-return", "retry-prompt") and call_id in tool_index:
                    i = tool_index[call_id]
                    outcome = _field(part, "outcome")
                    metadata = _field(part, "metadata")
                    subagent = metadata.get(SUBAGENT_KEY) if isinstance(metadata, dict) else None
                    if outcome == "interrupted":  # pydantic-ai's stand-in for a call that never returned
                        if subagent is not None:  # a stopped subagent, recorded as it ended
                            items[i] = replace(items[i], subagent=subagent)
                        continue
                    # As session/stream_map.py: a return whose outcome is not success is an error.
                    is_error = part_kind == "retry-prompt" or outcome not in (None, "success")
                    content = _field(part, "content")
                    text = (
                        _retry_text(content, _field(part, "tool_name"))
                        if part_kind == "retry-prompt"
                        else _result_of(content)
                    )
                    items[i] = Item(
                        "tool",
                        tool_name=items[i].tool_name,
                        tool_call_id=call_id,
                        args=items[i].args,
                        result=text,
                        is_error=is_error,
                        at=items[i].at,
                        subagent=subagent,
                    )
        elif kind == "response":
            cut = _field(message, "state") == "interrupted"
            for part in parts:
                part_kind, content = _field(part, "part_kind"), _field(part, "content")
                if part_kind == "text" and isinstance(content, str) and content.strip():
                    if items and items[-1].kind == "assistant":
                        items[-1] = Item("assistant", text=items[-1].text + content, at=items[-1].at, interrupted=cut)
                    else:
                        items.append(Item("assistant", text=content, at=at, interrupted=cut))
                elif part_kind == "tool-call":
                    call_id = _field(part, "tool_call_id")
                    tool_index[call_id] = len(items)
                    items.append(
                        Item(
                            "tool",
                            tool_name=_field(part, "tool_name") or "",
                            tool_call_id=call_id,
                            args=_args_of(_field(part, "args")),
                            at=at,
                        )
                    )
        if _field(message, "state") == "interrupted" and items and not items[-1].interrupted:
            items[-1] = replace(items[-1], interrupted=True)
    return items


def newest_entries(items: Sequence[Item], banners: Sequence[tuple[int, Any]], limit: int) -> tuple[list[Any], int]:
    """The newest `limit` chat-log entries of a saved conversation, and how many come before them.

    Entries are the items with the trim banners among them: `banners` are (transcript position,
    `history_trimmed` event) pairs, and each goes before the first item that starts at or after its
    position — where the cut happened.
    """
    entries: list[Any] = []
    pending = sorted(banners, key=lambda pair: pair[0])
    b = 0
    for item in items:
        while b < len(pending) and pending[b][0] <= item.at:
            entries.append(pending[b][1])
            b += 1
        entries.append(item)
    entries.extend(event for _, event in pending[b:])
    skipped = max(0, len(entries) - limit)
    return entries[skipped:], skipped


def window_items(messages: Sequence[Any], start: int) -> list[Item]:
    """The items of transcript messages `start`… — a window onto the newest part — exactly as the
    whole transcript gives them. When the window does not begin at the first message, its first
    item is dropped: it may be the end of an answer, or of a tool call, that began before it."""
    items = transcript_items(messages, start=start)
    return items[1:] if start > 0 else items


def window_shows(items: Sequence[Item], ledger_positions: Sequence[int], entries: int) -> bool:
    """Whether the items of a window (`window_items`) give the newest `entries` chat-log entries
    (items and trim banners) in the places the whole transcript would put them — every item of the
    window and every banner after its first item."""
    if not items:
        return False
    return len(items) + sum(1 for at in ledger_positions if at > items[0].at) >= entries


def tail_shows(entries: int) -> Callable[[SessionTail], bool]:
    """`enough` for `SessionStore.load_tail`: the rows read so far show the newest `entries`
    chat-log entries (`window_shows`)."""

    def enough(tail: SessionTail) -> bool:
        return window_shows(window_items(tail.rows, tail.start), tail.ledger_positions, entries)

    return enough


def newest_window(
    transcript: Sequence[Any], ledger_positions: Sequence[int], entries: int, *, first: int = FIRST_WINDOW
) -> tuple[int, list[Item]]:
    """(start, items): the newest transcript messages that show the newest `entries` chat-log
    entries (`window_shows`) and their items, read backwards in growing slices — a resumed
    session's lazy transcript decodes only those."""
    start, size = len(transcript), first
    while True:
        start, size = max(0, start - size), size * 2
        items = window_items(transcript[start:], start)
        if start == 0 or window_shows(items, ledger_positions, entries):
            return start, items


def truncated_tool_call_ids(context: Sequence[Any]) -> frozenset[str]:
    """Ids of tool calls whose output the model now sees shortened (governance says which:
    `co_tui.governance.trim.is_truncated_output`, or previewed because it was too big whole:
    `co_tui.governance.preview.PREVIEW_MARK`)."""
    from co_tui.governance.preview import PREVIEW_MARK
    from co_tui.governance.trim import is_truncated_output

    ids = set()
    for message in context:
        if _field(message, "kind") == "request":
            for part in _field(message, "parts") or ():
                if _field(part, "part_kind") != "tool-return":
                    continue
                text = _result_of(_field(part, "content"))
                if is_truncated_output(text) or PREVIEW_MARK in text[:3000]:
                    ids.add(_field(part, "tool_call_id"))
    return frozenset(ids)


def replay(session: Replayable, entries: int | None = None) -> list[Item | HistoryTrimmed]:
    """The session's conversation (its branch in use) as a front end shows it: the items in order,
    each `history_trimmed` banner before the first item at or after its cut. `entries`: only the
    newest that many (a resumed session's lazy transcript then decodes only those); None: all.
    Blocking for a resumed session (its saved messages are decoded)."""
    positions, ledger = list(session.ledger_positions), list(session.ledger)
    if entries is None:
        items = transcript_items(session.transcript)
        shown, _ = newest_entries(items, list(zip(positions, ledger, strict=False)), len(items) + len(ledger))
    else:
        start, items = newest_window(session.transcript, positions, entries)
        pairs = [(at, event) for at, event in zip(positions, ledger, strict=False) if at >= start]
        shown, _ = newest_entries(items, pairs, entries)
    return shown
