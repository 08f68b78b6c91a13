"""A scripted stand-in for ChatSession: a `SessionPort` (co_tui/session/port.py), for TUI tests.

tests/test_session_port.py holds it and the real session to the same conformance suite.

It fakes the turns (the model is scripted) and the meter's figures (tokens grow with the context);
everything else is the real session's: a real `History`, the real planners (undo, pin, evict,
recover, compact) applied by the real session's own code (`AppliesEdits`), a real governor. Its events are real
domain events and its messages real pydantic-ai ones. Tests of the whole stack use the real
ChatSession with the offline model instead.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from co_tui.config import Settings
from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.pins import pinned_tokens, split_pinned
from co_tui.governance.policy import GovernancePolicy, Governor
from co_tui.governance.refused import Refused, busy_line
from co_tui.governance.summarize import CompactResult
from co_tui.session.applying import AppliesEdits
from co_tui.session.compaction import plan_compact
from co_tui.session.events import Done, ErrorEvent, Event, Notice, TextDelta, ToolCall, ToolResult, UsageUpdate
from co_tui.session.gauge import Gauge
from co_tui.session.history import Edit, History, HistorySnapshot
from co_tui.session.steering import pin_keys


@dataclass
class Text:
    """The model writes `text` (streamed in `chunks` pieces)."""

    text: str
    chunks: int = 4
    # The scenario: a model no faster than the app takes its text in. Given, each chunk after the
    # first waits until `shown(the text sent so far)` holds: what the app did with the stream then
    # depends on the text alone, not on how fast this host runs.
    shown: Callable[[str], bool] | None = None


@dataclass
class Tool:
    """The model calls `name(args)`; the tool returns `result` (`hold` seconds later)."""

    name: str
    args: str
    result: str
    call_id: str = ""
    is_error: bool = False
    hold: float = 0.0


@dataclass
class Trim:
    """Governance trimmed the context mid-turn."""

    event: HistoryTrimmed


@dataclass
class Fail:
    """The provider failed: an error line ends the turn."""

    message: str
    kind: str = "provider"


@dataclass
class Hold:
    """The model goes quiet until the turn is interrupted (a test presses esc at a known point)."""


Step = Text | Tool | Trim | Fail | Hold
Script = Callable[[str], Sequence[Step]]


def echo_script(prompt: str) -> list[Step]:
    """Default behaviour: answer with a short Markdown echo."""
    return [Text(f"You said: **{prompt}**")]


@dataclass(frozen=True)
class _Reading:
    tokens: int


@dataclass
class FakeMeter:
    """The fake's meter: `tokens_per_message` a message, plus `extra_tokens` (to drive the meter to a
    colour level); no overhead, a ratio of 1."""

    session: FakeSession
    ratio: float = 1.0
    overhead: int = 0

    def reading(self, messages: Sequence[ModelMessage]) -> _Reading:
        """The figure for `messages`."""
        return _Reading(len(messages) * self.session.tokens_per_message + self.session.extra_tokens)


@dataclass
class FakeSession(AppliesEdits):
    """Implements the ChatSession surface the TUI uses; `script(prompt)` decides each turn."""

    settings: Settings
    script: Script = echo_script
    model_name: str = "offline"
    is_offline: bool = True
    delay: float = 0.0  # seconds between streamed events
    budget_tokens: int = 100_000
    tokens_per_message: int = 400
    exactness: str = "anchored"
    window_is_guess: bool = False
    store: Any = None
    id: str = "f00dfeed0000000000000000000000aa"
    title: str = ""
    busy: bool = False
    prompts: list[str] = field(default_factory=list)
    choices: list[str | None] = field(default_factory=list)  # each turn's `choice` (compact_mode ask)
    compact_summary: str = "The user asked about the parser; tests now pass."
    extra_tokens: int = 0  # added to the meter figure (to drive it to a colour level)
    next_cut_result: Any = None  # what `next_cut()` returns
    instruction_files: tuple[Any, ...] = ()  # co_tui.agent.project_instructions.InstructionFile
    overhead_estimate: int = 1500  # instructions + tool schemas, for the /context breakdown
    mcp: Any = None  # the session's MCP servers (an McpServers; None: none configured)
    data_dir_warning: str | None = None  # the store's "readable by other users" line
    history: History = field(default_factory=History)
    _cancelled: bool = False
    _calls: int = 0
    compact_mode: str = "auto"  # the fake never cuts automatically; the mode is only remembered
    workspace: Path | None = None  # where `!command` runs (None: the current directory)
    approver: Any = None  # asked before a `!command` (the app's approve_shell; None: each is refused)
    _user_shell: Any = None

    # --- the meter -------------------------------------------------------------------------------

    def gauge(self) -> Gauge:
        """The fake meter, the real governor (over the fake's budget) with the history's pins."""
        policy = GovernancePolicy(
            budget_tokens=self.budget_tokens, max_history_messages=self.settings.max_history_messages
        )
        governor = Governor(policy)
        governor.pins = pin_keys(self.transcript, self.pins)
        return Gauge(FakeMeter(self), governor, self.budget_tokens, policy.max_history_messages, 0)

    def meter_reading(self) -> UsageUpdate:
        """Tokens grow with the context; the budget and limits come from the fields."""
        tokens = FakeMeter(self).reading(self.context).tokens
        return UsageUpdate(
            input_tokens=tokens,
            output_tokens=0,
            context_tokens=tokens,
            budget_tokens=self.budget_tokens,
            messages=len(self.context),
            max_messages=self.settings.max_history_messages,
            exactness=self.exactness,  # type: ignore[arg-type]
            window_is_guess=self.window_is_guess,
            trim_pending=tokens > self.budget_tokens,  # a stand-in for governance's own check
            pinned_tokens=self._pinned_tokens() if self.pins else 0,
            window_tokens=self.budget_tokens * 5 // 4,  # as `context_breakdown` says
        )

    def _pinned_tokens(self) -> int:
        return pinned_tokens(self.context, pin_keys(self.transcript, self.pins))

    # --- turns: the scripted part ----------------------------------------------------------------

    def _append(self, *messages: ModelMessage) -> None:
        self.history.extend(messages)
        self.history.set_context([*self.context, *messages])

    async def _pause(self, seconds: float) -> None:
        # The scenario: a model that streams at `delay` per chunk (cut short by cancel()), not a wait.
        end = asyncio.get_running_loop().time() + seconds
        while not self._cancelled and asyncio.get_running_loop().time() < end:
            await asyncio.sleep(min(0.01, seconds))

    def attachments(self, prompt: str) -> Any:
        """The real attaching of `@path` mentions, in `workspace`, priced at the fake meter's ratio (1)."""
        from co_tui.agent.mentions import attach, priced

        return priced(attach(self.workspace or Path.cwd(), prompt), 1.0)

    def plan_send(self, prompt: str) -> Any:
        """In `compact_mode` ask, the real planner over the fake's history, meter and governor (its
        window: `budget_tokens` × 5/4, as `context_breakdown` says); else None."""
        if self.compact_mode != "ask":
            return None
        from co_tui.session.ask_cut import plan_send

        return plan_send(self.history, self.gauge(), prompt, window_tokens=self.budget_tokens * 5 // 4)

    async def run_turn(self, prompt: str, choice: str | None = None) -> AsyncIterator[Event]:
        """Play the script for `prompt` (its `@path` attachments added, as the real session adds
        them); stop early (interrupted) after `cancel()`. `choice` (the user's answer in ask) is
        only remembered, in `choices`: the fake cuts nothing by itself."""
        self.busy, self._cancelled = True, False
        self.prompts.append(prompt)
        self.choices.append(choice)
        if not self.title:
            self.title = prompt[:60]
        attachments = self.attachments(prompt)
        for line in attachments.lines():
            yield Notice(message=line)
        self.history.mark_turn(FakeMeter(self).reading(self.context).tokens, time.time())
        self._append(ModelRequest(parts=[UserPromptPart(attachments.prompt(prompt))]))
        output: list[str] = []
        failed = False
        try:
            for step in self.script(prompt):
                if self._cancelled:
                    break
                if isinstance(step, Text):
                    size = max(1, -(-len(step.text) // step.chunks))
                    written = ""
                    for i in range(0, len(step.text), size):
                        while written and step.shown is not None and not step.shown(written) and not self._cancelled:
                            await asyncio.sleep(0.01)
                        await self._pause(self.delay)
                        if self._cancelled:
                            break
                        written += step.text[i : i + size]
                        output.append(step.text[i : i + size])
                        yield TextDelta(text=step.text[i : i + size])
                    self._append(ModelResponse(parts=[TextPart(written)]))
                elif isinstance(step, Tool):
                    self._calls += 1
                    call_id = step.call_id or f"call_{self._calls}"
                    self._append(ModelResponse(parts=[ToolCallPart(step.name, step.args, call_id)]))
                    yield ToolCall(tool_name=step.name, tool_call_id=call_id, args=step.args)
                    await self._pause(step.hold or self.delay)
                    if self._cancelled:
                        break
                    self._append(ModelRequest(parts=[ToolReturnPart(step.name, step.result, call_id)]))
                    yield ToolResult(
                        tool_name=step.name,
                        tool_call_id=call_id,
                        content=step.result,
                        chars=len(step.result),
                        is_error=step.is_error,
                    )
                elif isinstance(step, Trim):  # recorded as a run's cut is (the scripted context stays)
                    self.history.commit(Edit(event=step.event, record=self.history.cut_record(self.context)))
                    yield self.ledger[-1]
                elif isinstance(step, Hold):
                    while not self._cancelled:  # the scenario: a turn that runs until interrupted
                        await asyncio.sleep(0.01)
                elif isinstance(step, Fail):
                    failed = True
                    yield ErrorEvent(message=step.message, kind=step.kind)  # type: ignore[arg-type]
                    break
        finally:
            self.busy = False
        if self._cancelled:
            yield ErrorEvent(message="interrupted: the partial answer is kept", kind="interrupted")
        yield self.meter_reading()
        yield Done(output="".join(output), interrupted=self._cancelled, failed=failed)

    async def run_shell_command(self, command: str) -> AsyncIterator[Event]:
        """The real `!command` runner (session/user_shell.py): a real process in `workspace`, the
        real approver; its exchange appended as the real session appends it (handles stamped)."""
        from co_tui.governance.handles import stamp_handles
        from co_tui.session.user_shell import UserShell

        def record(messages: Sequence[ModelMessage]) -> None:
            self._append(*stamp_handles(messages, len(self.transcript)))

        self._user_shell = UserShell(self.workspace or Path.cwd(), self.approver)
        self.busy, self._cancelled = True, False
        try:
            async for event in self._user_shell.run(command, record):
                if isinstance(event, Done) and not event.failed:
                    yield self.meter_reading()
                yield event
        finally:
            self.busy, self._user_shell = False, None

    def cancel(self) -> None:
        """Interrupt the running turn or `!command`."""
        self._cancelled = True
        if self._user_shell is not None:
            self._user_shell.stop()

    async def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """A scripted summary (`compact_summary`), applied with the real planner."""
        from co_tui.governance.summary_check import check_summary

        if not self.context:
            yield Done(output="nothing to compact")
            return
        before = self.meter_reading().context_tokens
        summary = self.compact_summary + (f" (focus: {focus})" if focus else "")
        check = check_summary(tuple(self.context), summary)
        messages: list[ModelMessage] = [
            ModelRequest(parts=[UserPromptPart(f"[Compacted conversation summary]\n{summary}")]),
            ModelResponse(parts=[TextPart("Understood. I have the conversation context.")]),
        ]
        event = HistoryTrimmed(
            reason="manual_compact",
            strategy="compact",
            dropped_messages=len(self.transcript),
            dropped_turns=len(self.prompts),
            kept_turns=0,
            tokens_before=before,
            tokens_after=0,
            budget_tokens=self.budget_tokens,
            summary=summary,
            summary_kept=check.kept,
            summary_lost=check.lost,
        )
        self.extra_tokens = 0
        applied = await self._apply(plan_compact(self.history, self.gauge(), CompactResult(messages, event), before))
        yield applied.trim
        yield self.meter_reading()
        yield Done(output=summary)

    async def clear(self) -> HistoryTrimmed:
        """Empty the conversation under a new id; return the `clear` event."""
        if self.busy:
            raise Refused(busy_line("clearing"))
        event = replace(self.clear_preview(), session_id=self.id)
        self.id = "f00dfeed0000000000000000000000bb"
        self.title = ""
        self.history.reset()
        self.prompts, self.extra_tokens = [], 0
        return event

    def release_claim(self) -> None:
        """No other process shares a fake session."""

    def set_compact_mode(self, mode: str) -> None:
        """Switch the mode (`/compact-mode`); the fake only remembers it."""
        self.compact_mode = mode

    def set_model(self, name: str) -> None:
        """Switch models; names starting with `bad` are refused like an unknown provider."""
        if name.startswith("bad"):
            raise ValueError(f"unknown model '{name}': expected provider:model, e.g. openai:gpt-4o")
        self.model_name, self.is_offline = name, name == "offline"

    def next_cut(self) -> Any:
        """No policy runs in the fake: `next_cut_result` is what it returns."""
        return self.next_cut_result

    def compact_preview(self) -> HistoryTrimmed | None:
        """The real estimate over the fake's context, in the fake meter's figures as the real session
        gives it: before, the meter's figure; after, the figure for the two-message summary pair."""
        from co_tui.governance.next_cut import compact_estimate

        keys = pin_keys(self.transcript, self.pins)
        estimate = compact_estimate(self.context, self.budget_tokens, pins=keys)
        if estimate is None:
            return None
        before = self.meter_reading().context_tokens
        kept = sum(len(turn.messages) for turn in split_pinned(self.context, keys).pinned)  # they stay
        after = min(before, (2 + kept) * self.tokens_per_message)  # `compact` leaves the pair and no extra
        return replace(estimate, tokens_before=before, tokens_after=after)

    def context_breakdown(self) -> Any:
        """The real computation over the fake's figures: co-tui's instructions, the instruction
        files and the workspace tools share `overhead_estimate`, fitted to the fake meter."""
        from co_tui.agent.project_instructions import instructions_block
        from co_tui.governance import estimate_text_tokens
        from co_tui.session.context_breakdown import OverheadPart, compute_breakdown

        files = [f for f in self.instruction_files if f.error is None]
        parts = [OverheadPart("instructions", "co-tui", self.overhead_estimate * 2 // 5)]
        parts += [
            OverheadPart("project_instructions", f.label, estimate_text_tokens(instructions_block(f))) for f in files
        ]
        parts.append(OverheadPart("tool_schemas", "workspace", self.overhead_estimate * 3 // 5, 3))
        reading = self.meter_reading()
        return compute_breakdown(
            self.context,
            parts,
            meter_tokens=reading.context_tokens,
            overhead_tokens=sum(part.tokens for part in parts),
            ratio=1.0,
            budget_tokens=self.budget_tokens,
            window_tokens=self.budget_tokens * 5 // 4,
            exactness=self.exactness,
            window_is_guess=self.window_is_guess,
        )

    # --- steering: `AppliesEdits`, the real session's own, over the real History -----------------

    def _write(self, snapshot: HistorySnapshot) -> str | None:
        """The fake saves nothing (see `unsaved`)."""
        return None

    # --- the rest of the port --------------------------------------------------------------------

    def conversation_counts(self) -> Any:
        """Counted over the (in-memory) transcript, as a session that was never saved counts."""
        from co_tui.session.conversation_counts import ConversationCounts

        return ConversationCounts().add(self.transcript)

    @property
    def saved(self) -> bool:
        """Saved when a test gives the fake a store (a real `SessionStore`)."""
        return self.store is not None

    @property
    def catalog(self) -> Any:
        """The store a test gave the fake: what /sessions lists."""
        return self.store

    def export(self, fmt: str, where: Path | None = None) -> Path:
        """As the real session: refused when nothing is saved, else the store's copy is written."""
        from co_tui.session.export import export_saved

        if self.store is None:
            raise ValueError("nothing saved to export yet")
        return export_saved(self.store, self.id, fmt, where)

    def unsaved(self) -> bool:
        """The fake never saves, and never says it lost anything."""
        return False

    def write_rescue_copy(self) -> Path | None:
        """Nothing to rescue: see `unsaved`."""
        return None


def fake_factory(**session_kwargs: Any) -> Callable[..., FakeSession]:
    """A `session_factory` for CoTuiApp that builds a FakeSession (ignores resume/approver)."""
    made: list[FakeSession] = []

    def factory(settings: Settings, workspace: Path, *, approver: Any = None, **_: Any) -> FakeSession:
        session = FakeSession(settings, **{"workspace": workspace, "approver": approver, **session_kwargs})
        made.append(session)
        return session

    factory.made = made  # type: ignore[attr-defined]
    return factory
