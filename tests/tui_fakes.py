"""A scripted stand-in for ChatSession: a `SessionPort` (co_tui/session/port.py), for TUI tests.

tests/test_session_port.py holds it and the real session to the same conformance suite.

It *is* the real `ChatSession` (offline model, no store): its `History`, its
planners and the way it applies them, its `/clear`, `!command` runner, `@path` attachments, model
setup, instruction files, MCP servers and saving are the real session's. Only two things are
fake: the turns (a script of steps: streamed text, tool calls, a mid-turn trim, a provider
failure, a hold until interrupted, with their timing) and the meter's figures (tokens grow with
the context, against a budget a test sets), which the real planners read through `gauge()`. Its
events are real domain events and its messages real pydantic-ai ones.
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
from co_tui.governance.compact_mode import SendChoice
from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.markers import make_compact_pair
from co_tui.governance.pins import pinned_tokens, split_pinned
from co_tui.governance.policy import GovernancePolicy, Governor
from co_tui.governance.summarize import CompactResult
from co_tui.governance.summary_check import check_summary
from co_tui.session.applying import AppliesEdits
from co_tui.session.ask_cut import PlannedCut, plan_send
from co_tui.session.chat import ChatSession, make_title
from co_tui.session.compaction import plan_compact
from co_tui.session.context_breakdown import ContextBreakdown, compute_breakdown, overhead_parts
from co_tui.session.events import Done, ErrorEvent, Event, Notice, TextDelta, ToolCall, ToolResult, UsageUpdate
from co_tui.session.gauge import Gauge
from co_tui.session.history import Edit
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


@dataclass(eq=False)
class FakeSession(ChatSession):
    """The real `ChatSession` (offline model, no store) whose turns are scripted: `script(prompt)`
    decides each turn, and the meter shows the fake's figures. See the module docstring."""

    settings: Settings
    script: Script = echo_script
    id: str = ""  # "" : a fresh one, as a new session's
    workspace: Path = field(default_factory=Path.cwd)  # where `@path` is read and `!command` runs
    approver: Any = None  # asked before a `!command` (the app's approve_shell; None: each is refused)
    model_name: str = "offline"  # shadows the real setup's: `set_model` only names a model
    is_offline: bool = True
    delay: float = 0.0  # seconds between streamed events
    budget_tokens: int = 100_000
    tokens_per_message: int = 400
    extra_tokens: int = 0  # added to the meter figure (to drive it to a colour level)
    exactness: str = "anchored"
    window_is_guess: bool = False
    overhead_estimate: int = 1500  # instructions + tool schemas, for the /context breakdown
    compact_summary: str = "The user asked about the parser; tests now pass."
    prompts: list[str] = field(default_factory=list)
    choices: list[str | None] = field(default_factory=list)  # each turn's `choice` (compact_mode ask)
    _cancelled: bool = False
    _calls: int = 0

    def __post_init__(self) -> None:
        given = self.id
        ChatSession.__init__(self, self.settings, workspace=self.workspace, approver=self.approver)
        self.id = given or self.id

    # --- the meter: the fake's figures (the real planners read them through `gauge`) ------------

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
        pins = pin_keys(self.transcript, self.pins)
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
            pinned_tokens=pinned_tokens(self.context, pins) if pins else 0,
            window_tokens=self.budget_tokens * 5 // 4,  # as `context_breakdown` says
        )

    def context_breakdown(self) -> ContextBreakdown:
        """The real computation over the fake's figures: co-tui's instructions and the workspace
        tools share `overhead_estimate`; the instruction files are priced as the real session's."""
        parts = overhead_parts("", self.instruction_files, [("workspace", self.overhead_estimate * 3 // 5, 3)])
        parts[0] = replace(parts[0], tokens=self.overhead_estimate * 2 // 5)
        return compute_breakdown(
            self.context,
            parts,
            meter_tokens=self.meter_reading().context_tokens,
            overhead_tokens=sum(part.tokens for part in parts),
            ratio=1.0,
            budget_tokens=self.budget_tokens,
            window_tokens=self.budget_tokens * 5 // 4,
            exactness=self.exactness,
            window_is_guess=self.window_is_guess,
        )

    def compact_preview(self) -> HistoryTrimmed | None:
        """The real estimate; after it, the fake meter's figure for what `compact` leaves (the
        summary pair and the pinned turns), as the dialog beside the meter says."""
        estimate = super().compact_preview()
        if estimate is None:
            return None
        kept = sum(len(turn.messages) for turn in split_pinned(self.context, self.gauge().governor.pins).pinned)
        return replace(estimate, tokens_after=min(estimate.tokens_before, (2 + kept) * self.tokens_per_message))

    def plan_send(self, prompt: str) -> PlannedCut | None:
        """In `compact_mode` ask, the real planner over the fake's gauge and window; else None."""
        if self.compact_mode != "ask":
            return None
        return plan_send(self.history, self.gauge(), prompt, window_tokens=self.budget_tokens * 5 // 4)

    _tokens_after = AppliesEdits._tokens_after  # a rewind's figure: the fake meter's, not the real one's

    # --- turns: the scripted part ----------------------------------------------------------------

    def _append(self, *messages: ModelMessage) -> None:
        self.history.extend(messages)
        self.history.set_context([*self.context, *messages])

    async def _pause(self, seconds: float) -> None:
        # The scenario: a model that streams at `delay` per chunk (cut short by cancel()), not a wait.
        end = asyncio.get_running_loop().time() + seconds
        while not self._cancelled and asyncio.get_running_loop().time() < end:
            await asyncio.sleep(min(0.01, seconds))

    async def _play(self, step: Step, output: list[str]) -> AsyncIterator[Event]:
        if isinstance(step, Text):
            size, written = max(1, -(-len(step.text) // step.chunks)), ""
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
            if not self._cancelled:
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
            yield ErrorEvent(message=step.message, kind=step.kind)  # type: ignore[arg-type]

    async def run_turn(self, prompt: str, choice: SendChoice | None = None) -> AsyncIterator[Event]:
        """Play the script for `prompt` (its `@path` attachments added, as the real session adds
        them); stop early (interrupted) after `cancel()`, or at a `Fail`. `choice` (the user's
        answer in ask) is only remembered, in `choices`: the fake cuts nothing by itself."""
        self.busy, self._cancelled = True, False
        self.prompts.append(prompt)
        self.choices.append(choice)
        self.title = self.title or make_title(prompt)
        attachments = self.attachments(prompt)
        for line in attachments.lines():
            yield Notice(message=line)
        self.history.mark_turn(FakeMeter(self).reading(self.context).tokens, time.time())
        self._append(ModelRequest(parts=[UserPromptPart(attachments.prompt(prompt))]))
        output: list[str] = []
        failed = False
        try:
            for step in self.script(prompt):
                if self._cancelled or failed:
                    break
                async for event in self._play(step, output):
                    failed = failed or isinstance(event, ErrorEvent)
                    yield event
        finally:
            self.busy = False
        if self._cancelled:
            yield ErrorEvent(message="interrupted: the partial answer is kept", kind="interrupted")
        yield self.meter_reading()
        yield Done(output="".join(output), interrupted=self._cancelled, failed=failed)

    def cancel(self) -> None:
        """Interrupt the scripted turn, or the real `!command`."""
        self._cancelled = True
        super().cancel()

    async def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """A scripted summary (`compact_summary`: what it leaves out is lost, and recoverable), its
        pair and check as the real compaction makes them, applied by the real planner."""
        if not self.context:
            yield Done(output="nothing to compact")
            return
        before = self.meter_reading().context_tokens
        summary = self.compact_summary + (f" (focus: {focus})" if focus else "")
        check = check_summary(tuple(self.context), summary)
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
        pair = make_compact_pair(len(self.transcript), len(self.prompts), summary)
        applied = await self._apply(plan_compact(self.history, self.gauge(), CompactResult(pair, event), before))
        yield applied.trim
        yield self.meter_reading()
        yield Done(output=summary)

    async def clear(self) -> HistoryTrimmed:
        """The real `/clear`; the fake's own counts start afresh too."""
        event = await super().clear()
        self.prompts, self.extra_tokens = [], 0
        return event

    def set_model(self, name: str) -> None:
        """Switch models; names starting with `bad` are refused like an unknown provider."""
        if name.startswith("bad"):
            raise ValueError(f"unknown model '{name}': expected provider:model, e.g. openai:gpt-4o")
        self.model_name, self.is_offline = name, name == "offline"


def fake_factory(**session_kwargs: Any) -> Callable[..., FakeSession]:
    """A `session_factory` for CoTuiApp that builds a FakeSession (ignores resume)."""
    made: list[FakeSession] = []

    def factory(settings: Settings, workspace: Path, *, approver: Any = None, **_: Any) -> FakeSession:
        session = FakeSession(settings, **{"workspace": workspace, "approver": approver, **session_kwargs})
        made.append(session)
        return session

    factory.made = made  # type: ignore[attr-defined]
    return factory
