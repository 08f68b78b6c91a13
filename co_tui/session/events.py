"""Domain events of one turn: the single stream both front ends render (docs/architecture.md).

`Event` is a closed union of frozen dataclasses: front ends dispatch on the class (`match event:
case TextDelta(): ...`). Print mode writes `to_dict()` as JSON lines; every event has a `type` field
with its jsonl name, and the field names are the jsonl contract.

Every event names the agent it came from (docs/subagents.md): `agent` is None for the main agent,
else a child's id; `delegation` is the `delegate` tool call a child's event belongs to. Both are
left out of `to_dict()` when None, so the main agent's lines are what they were before subagents.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any, Literal

from co_tui.agent.errors import ErrorKind
from co_tui.governance.events import HistoryTrimmed


def drop_unset_origin(data: dict[str, Any]) -> dict[str, Any]:
    """`data` without `agent` / `delegation` when they are None (the main agent's events)."""
    for key in ("agent", "delegation"):
        if key in data and data[key] is None:
            del data[key]
    return data


@dataclass(frozen=True, kw_only=True)
class _Event:
    # The agent this event came from (None: the main agent) and, for a child's event, the id of the
    # `delegate` tool call that started it.
    agent: str | None = None
    delegation: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form; `type` first; `agent` / `delegation` only when set."""
        data = drop_unset_origin(asdict(self))
        return {"type": data.pop("type"), **data}


@dataclass(frozen=True, kw_only=True)
class TextDelta(_Event):
    """A chunk of the assistant's answer."""

    text: str
    type: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True, kw_only=True)
class ToolCall(_Event):
    """The model called a tool. `args` is the raw JSON string as the model wrote it."""

    tool_name: str
    tool_call_id: str
    args: str
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True, kw_only=True)
class ToolResult(_Event):
    """A tool finished. `content` is the text result (a big output's preview: `chars` is then the
    whole output's length, more than `len(content)`).

    What its row shows besides the text, read off the output by the session
    (`session/tool_facts.py`), so a front end only displays it: `outcome`, how a shell command ended
    when not with exit 0 (`exit 2`, `killed (signal 9)`, `timed out`, `stopped`); `recalled`, what a
    `recall` brought back (`the output of read_file(…) from turn 3`); `previewed`, the output was too
    big to send whole and the model got its head and tail. In jsonl only when set.
    """

    tool_name: str
    tool_call_id: str
    content: str
    chars: int
    is_error: bool = False
    outcome: str | None = None
    recalled: str | None = None
    previewed: bool = False
    type: Literal["tool_result"] = "tool_result"

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form; `outcome`, `recalled` and `previewed` only when set (the lines of
        an ordinary result are what they were before they existed)."""
        data = super().to_dict()
        for key in ("outcome", "recalled", "previewed"):
            if not data[key]:
                del data[key]
        return data


@dataclass(frozen=True, kw_only=True)
class UsageUpdate(_Event):
    """The context meter's reading after a request, a trim or a resume.

    `exactness`: "exact" when the figure equals the newest provider report, "anchored" when it is
    that report plus an estimate of messages since, "estimated" when no report exists.
    `input_tokens`, `output_tokens` and the `cache_*` counts are the newest report's (cache reads and
    writes are part of `input_tokens`); `cost_usd` is the whole session's so far (None: unpriced);
    `turns_to_trim` roughly how many more turns fit before the next cut (None: not forecast).
    """

    input_tokens: int
    output_tokens: int
    context_tokens: int
    budget_tokens: int
    messages: int
    max_messages: int
    exactness: Literal["exact", "anchored", "estimated"] = "estimated"
    window_is_guess: bool = False
    trim_pending: bool = False  # governance will change this context before the next request
    # With `trim_pending`, in compact_mode ask: the front end asks before that cut (docs/context-governance.md).
    asks_first: bool = False
    # compact_mode off: no automatic cut will come (no forecast, nothing `next to go`).
    cuts_off: bool = False
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None
    turns_to_trim: int | None = None
    # With `turns_to_trim`: the cut the forecast is about, `summary` or `turn_trim` (the strategy's).
    forecast_kind: str | None = None
    # When `trim_pending`: the main strategy of that cut (`summary`, `turn_trim`, `tool_output_trim`…).
    trim_kind: str | None = None
    # Estimated tokens of the pinned turns (docs/context-governance.md, "Pins"), part of `context_tokens`.
    pinned_tokens: int = 0
    # The newest turn alone is over the budget (it is sent whole): why the figure is over 100%.
    oversized_turn: bool = False
    # MCP servers not running yet: their tool schemas are in no figure until they list their tools.
    mcp_starting: int = 0
    # The model's context window (the fallback's for an unknown model; 0: not known): the meter's bar
    # spans it and marks the budget in it, as /context draws it.
    window_tokens: int = 0
    # What every request carries besides the messages (instructions, tool schemas), part of
    # `context_tokens`; `overhead_excess`: how far it is over the half of the budget it may take, so
    # that requests can go over the budget by that much with no cut coming (the meter says so).
    overhead_tokens: int = 0
    overhead_excess: int = 0
    type: Literal["usage"] = "usage"


@dataclass(frozen=True, kw_only=True)
class OversizedTurn(_Event):
    """The newest turn alone is over the budget: governance never cuts the newest turn, so it is
    sent whole (`refused` False), or — a prompt alone over the model's context window — not sent at
    all (`refused` True; nothing is added to the history). `turn_tokens`: the request the turn makes
    by itself (instructions and tool schemas included, as the meter counts); `message`: the one line
    front ends show (`oversize.oversized_message`)."""

    turn_tokens: int
    budget_tokens: int
    context_window: int | None = None
    refused: bool = False
    message: str = ""
    type: Literal["oversized_turn"] = "oversized_turn"


INTERRUPTED_MESSAGE = "interrupted: the partial answer is kept"
"""What an interrupted turn's `ErrorEvent` says (and a resumed interrupted answer shows)."""


@dataclass(frozen=True, kw_only=True)
class ErrorEvent(_Event):
    """Something failed; `message` is the one line shown to the user. History stays valid."""

    message: str
    kind: ErrorKind = "provider"
    type: Literal["error"] = "error"


@dataclass(frozen=True, kw_only=True)
class Notice(_Event):
    """A one-line fact about what the model is sent that changed outside a turn's answer (the
    project instructions reloaded, or a file of them unreadable). Shown as a dim line; print mode
    writes it to stderr, never to jsonl's stdout."""

    message: str
    type: Literal["notice"] = "notice"


class DoneReason(StrEnum):
    """Why a `Done` ended its stream: `RAN`, the turn or operation ran (`interrupted` and `failed`
    say how it went); `NOTHING_TO_COMPACT`, `/compact` found nothing to summarise (nothing changed)."""

    RAN = "ran"
    NOTHING_TO_COMPACT = "nothing_to_compact"


@dataclass(frozen=True, kw_only=True)
class Done(_Event):
    """The turn ended (always the last event). `interrupted`: the user stopped it. `reason`: why
    it ended (`DoneReason`); not written to jsonl, whose `done` line stays as it was."""

    output: str
    interrupted: bool = False
    failed: bool = False
    reason: DoneReason = DoneReason.RAN
    type: Literal["done"] = "done"

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form, without `reason` (a front end's, not the jsonl contract's)."""
        data = super().to_dict()
        data.pop("reason")
        return data


SubagentOutcome = Literal["done", "failed", "timed_out", "cancelled", "limit"]
"""How a child ended: answered; an error; its wall-clock timeout; the user's stop; a request or token limit."""


@dataclass(frozen=True, kw_only=True)
class SubagentStarted(_Event):
    """A `delegate` call started a child (docs/subagents.md). `delegation` is the call's
    `tool_call_id`, `agent` the child's id (unique in the session, e.g. `explore-1`), `agent_name`
    the defined agent it runs (`explore`). Its own events follow, carrying both ids; the parent's
    `tool_result` for the call comes after `SubagentFinished`."""

    delegation: str
    agent: str
    agent_name: str
    task: str
    budget_tokens: int
    max_requests: int = 0
    timeout_s: float = 0.0
    tools: tuple[str, ...] = ()
    type: Literal["subagent_started"] = "subagent_started"


@dataclass(frozen=True, kw_only=True)
class SubagentFinished(_Event):
    """A child ended. `result_chars`: the size of what the parent got back; `handle`: what
    `recall` takes to read the child's transcript; tokens, requests and `cost_usd` (None: unpriced)
    are the child's own, all its requests; `summary`: the one line front ends show; `budget_tokens`
    its context budget, so a resumed child's meter has its bar."""

    delegation: str
    agent: str
    agent_name: str
    outcome: SubagentOutcome
    result_chars: int = 0
    handle: str = ""
    requests: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float | None = None
    context_tokens: int = 0
    cuts: int = 0
    elapsed_s: float = 0.0
    summary: str = ""
    budget_tokens: int = 0  # its context budget (0: a record saved before it was kept)
    type: Literal["subagent_finished"] = "subagent_finished"


Event = (
    TextDelta
    | ToolCall
    | ToolResult
    | HistoryTrimmed
    | UsageUpdate
    | ErrorEvent
    | Notice
    | Done
    | OversizedTurn
    | SubagentStarted
    | SubagentFinished
)
"""Every event a session yields: a closed union (a front end matches each class, `assert_never` after)."""

__all__ = [
    "INTERRUPTED_MESSAGE",
    "Done",
    "DoneReason",
    "ErrorEvent",
    "ErrorKind",
    "Event",
    "HistoryTrimmed",
    "Notice",
    "OversizedTurn",
    "SubagentFinished",
    "SubagentOutcome",
    "SubagentStarted",
    "TextDelta",
    "ToolCall",
    "ToolResult",
    "UsageUpdate",
]
