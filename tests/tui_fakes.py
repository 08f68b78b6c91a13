"""A scripted stand-in for ChatSession: a `SessionPort` (co_tui/session/port.py), for TUI tests.

tests/test_session_port.py holds it and the real session to the same conformance suite.

It *is* the real `ChatSession` (no store): its `History`, its planners and the `EditApplier` that
applies them (the fake's mid-turn cuts too), its `Resources` (instruction files, MCP servers), its
`AgentBinding` (policy, governor) and `Metering`
(the `usage` event, the look-ahead, the `/context` breakdown, ask's plan), its `/compact`,
`/clear`, rewind and branches, `!command` runner and `@path` attachments are the real session's.
What is fake:
- the turns: a script of steps (streamed text, tool calls, a mid-turn trim, a provider failure, a
  hold until interrupted, with their timing) instead of a model run;
- the meter's figures (`FakeMeter`: a fixed count a message, plus a fixed overhead) against the
  budget a test sets, given to the session as its `meter_factory` and `overhead_counter` (nothing
  of the real session is patched);
- the model: a pydantic-ai `FunctionModel` that only writes `/compact`'s summary (`compact_summary`);
  the title bar shows the name the fake is given, and `set_model` only names another.
Its events are real domain events and its messages real pydantic-ai ones.
"""

from __future__ import annotations

import asyncio
import re
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
from pydantic_ai.models.function import AgentInfo, FunctionModel

from co_tui.config import Settings
from co_tui.governance.compact_mode import SendChoice
from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.meter import MeterReading, TokenMeter
from co_tui.session.chat import ChatSession
from co_tui.session.events import (
    Done,
    ErrorEvent,
    Event,
    Notice,
    SubagentFinished,
    SubagentStarted,
    TextDelta,
    ToolCall,
    UsageUpdate,
)
from co_tui.session.history import Edit
from co_tui.session.session_saves import make_title
from co_tui.session.tool_facts import tool_result


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


@dataclass
class Until:
    """The model goes quiet until `ready()` holds (a test opens a running subagent, then lets it
    go on) or the turn is interrupted."""

    ready: Callable[[], bool]


@dataclass
class Delegate:
    """The model calls `delegate`: a child runs `steps` (Text, Tool, Trim, Fail, Hold, Until) in a
    context of its own, as the engine's child does (docs/subagents.md): the parent's `tool_call`, the
    child's `subagent_started`, its events carrying `agent` and `delegation` (each step followed by its
    own `usage`), `subagent_finished`, then the parent's `tool_result`. It ends `outcome` (`failed` after
    a Fail, `cancelled` when interrupted); the parent gets `result` (default: the child's text)."""

    task: str
    steps: Sequence[Step] = ()
    agent_name: str = "explore"
    outcome: str = "done"
    result: str | None = None
    budget_tokens: int = 40_000
    call_id: str = ""
    cost_per_request: float | None = 0.0012
    elapsed_s: float = 6.0


Step = Text | Tool | Trim | Fail | Hold | Until | Delegate
Script = Callable[[str], Sequence[Step]]


def echo_script(prompt: str) -> list[Step]:
    """Default behaviour: answer with a short Markdown echo."""
    return [Text(f"You said: **{prompt}**")]


class FakeMeter(TokenMeter):
    """The fake's meter: `tokens_per_message` a message plus `extra_tokens` (to drive the meter to a
    colour level) plus the fake's `overhead_tokens`, as exact as the fake's `exactness` says, at a
    ratio of 1."""

    def __init__(self, session: FakeSession, overhead_tokens: int) -> None:
        super().__init__(provider="offline", overhead_tokens=overhead_tokens)
        self.session = session

    def reading(self, messages: Sequence[ModelMessage]) -> MeterReading:
        """The figure for `messages`."""
        s = self.session
        tokens = self.overhead_hint + len(messages) * s.tokens_per_message + s.extra_tokens
        return MeterReading(tokens, s.exactness, len(messages), ratio=1.0)  # type: ignore[arg-type]


@dataclass(eq=False)
class FakeSession(ChatSession):
    """The real `ChatSession` (no store) whose turns are scripted: `script(prompt)` decides each
    turn, and its meter counts the fake's figures. See the module docstring."""

    settings: Settings
    script: Script = echo_script
    id: str = ""  # "" : a fresh one, as a new session's
    workspace: Path = field(default_factory=Path.cwd)  # where `@path` is read and `!command` runs
    ask: Any = None  # asked before a `!command` (the app's ask_user; None: each is refused)
    model_name: str = "offline"  # shadows the real setup's (the summariser): `set_model` only names a model
    is_offline: bool = True
    delay: float = 0.0  # seconds between streamed events
    budget_tokens: int = 100_000  # the policy's budget; the window is 5/4 of it
    window_is_guess: bool = False  # True: that window is the settings' fallback, as for a model not known
    tokens_per_message: int = 400
    extra_tokens: int = 0  # added to the meter figure (to drive it to a colour level)
    overhead_tokens: int = 1_500  # instructions and tool schemas, in every request (and the meter's figure)
    exactness: str = "anchored"
    compact_summary: str = "The user asked about the parser; tests now pass."  # what `/compact`'s summariser writes
    prompts: list[str] = field(default_factory=list)
    choices: list[str | None] = field(default_factory=list)  # each turn's `choice` (compact_mode ask)
    _cancelled: bool = False
    _calls: int = 0

    def __post_init__(self) -> None:
        # The real policy over the fake's budget: explicit, or (window guessed) 80% of the fallback window.
        window = -(-self.budget_tokens * 5 // 4)
        budget = 0 if self.window_is_guess else self.budget_tokens
        fitted = {"context_budget_tokens": budget, "compact_threshold": 0.8, "fallback_context_window": window}
        given = self.id
        # The model writes only `/compact`'s summaries (the turns are scripted); its window is unknown.
        summariser = FunctionModel(self._summarise, model_name="fake-summariser")
        # Every meter the session makes (a new model, /clear, a rewind) is the fake's, over a fixed
        # overhead counted as the real meter counts it (in its figure, and by every estimate built on
        # it: the /compact preview, ask's cache line), not moving when co-tui's own instructions or
        # tool schemas change.
        ChatSession.__init__(
            self,
            self.settings.model_copy(update=fitted),
            workspace=self.workspace,
            ask=self.ask,
            model=summariser,
            meter_factory=lambda _model, overhead: FakeMeter(self, overhead),
            overhead_counter=lambda _binding: self.overhead_tokens,
        )
        self.id = given or self.id

    def _summarise(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """`compact_summary`, and the focus `/compact` asked for (on the summariser prompt's first line)."""
        focus = re.search(r"Give particular attention to: (.*)", str(messages[-1].parts[-1].content))
        return ModelResponse(parts=[TextPart(self.compact_summary + (f" (focus: {focus[1]})" if focus else ""))])

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
                yield tool_result(
                    tool_name=step.name,
                    tool_call_id=call_id,
                    content=step.result,
                    chars=len(step.result),
                    is_error=step.is_error,
                )
        elif isinstance(
            step, Trim
        ):  # committed as a run's cut is, by the session's applier (the scripted context stays)
            trim = self.edits.commit(Edit(event=step.event, record=self.history.cut_record(self.context)))
            assert trim is not None
            yield trim
        elif isinstance(step, Hold):
            while not self._cancelled:  # the scenario: a turn that runs until interrupted
                await asyncio.sleep(0.01)
        elif isinstance(step, Until):
            while not self._cancelled and not step.ready():
                await asyncio.sleep(0.01)
        elif isinstance(step, Delegate):
            async for event in self._delegate(step, output):
                yield event
        elif isinstance(step, Fail):
            yield ErrorEvent(message=step.message, kind=step.kind)  # type: ignore[arg-type]

    async def _delegate(self, step: Delegate, output: list[str]) -> AsyncIterator[Event]:
        """A scripted child (see `Delegate`): its events, tagged with its ids, between the parent's call and result."""
        import json

        self._calls += 1
        call_id = step.call_id or f"call_{self._calls}"
        agent = f"{step.agent_name}-{self._calls}"
        args = json.dumps({"task": step.task, "agent": step.agent_name})
        self._append(ModelResponse(parts=[ToolCallPart("delegate", args, call_id)]))
        yield ToolCall(tool_name="delegate", tool_call_id=call_id, args=args)
        ids: dict[str, Any] = {"agent": agent, "delegation": call_id}
        yield SubagentStarted(
            delegation=call_id,
            agent=agent,
            agent_name=step.agent_name,
            task=step.task,
            budget_tokens=step.budget_tokens,
        )
        messages, requests, failed = 1, 0, False
        said: list[str] = []
        for child in step.steps:
            if self._cancelled or failed:
                break
            if isinstance(child, Trim):
                yield replace(child.event, **ids)
                messages = max(1, messages - child.event.dropped_messages)
            else:
                async for event in self._play_child(child, said):
                    failed = failed or isinstance(event, ErrorEvent)
                    yield replace(event, **ids)
                messages += 2 if isinstance(child, Tool) else 1 if isinstance(child, Text) else 0
                requests += isinstance(child, (Text, Tool))
            cost = None if step.cost_per_request is None else requests * step.cost_per_request
            yield UsageUpdate(
                input_tokens=messages * self.tokens_per_message,
                output_tokens=80,
                context_tokens=messages * self.tokens_per_message,
                budget_tokens=step.budget_tokens,
                messages=messages,
                max_messages=0,
                exactness="exact",
                cost_usd=cost,
                **ids,
            )
        outcome = "cancelled" if self._cancelled else "failed" if failed else step.outcome
        result = step.result if step.result is not None else "".join(said) or f"(the subagent {outcome})"
        yield SubagentFinished(
            delegation=call_id,
            agent=agent,
            agent_name=step.agent_name,
            outcome=outcome,  # type: ignore[arg-type]
            result_chars=len(result),
            handle=f"{agent}",
            requests=requests,
            input_tokens=requests * messages * self.tokens_per_message,
            output_tokens=requests * 80,
            cost_usd=None if step.cost_per_request is None else requests * step.cost_per_request,
            context_tokens=messages * self.tokens_per_message,
            elapsed_s=step.elapsed_s,
        )
        self._append(ModelRequest(parts=[ToolReturnPart("delegate", result, call_id)]))
        yield tool_result(
            tool_name="delegate", tool_call_id=call_id, content=result, chars=len(result), is_error=outcome != "done"
        )

    async def _play_child(self, step: Step, said: list[str]) -> AsyncIterator[Event]:
        """One step of a child: as `_play`, but nothing joins the parent's history."""
        if isinstance(step, Text):
            size = max(1, -(-len(step.text) // step.chunks))
            for i in range(0, len(step.text), size):
                await self._pause(self.delay)
                if self._cancelled:
                    return
                said.append(step.text[i : i + size])
                yield TextDelta(text=step.text[i : i + size])
        elif isinstance(step, Tool):
            self._calls += 1
            call_id = step.call_id or f"call_{self._calls}"
            yield ToolCall(tool_name=step.name, tool_call_id=call_id, args=step.args)
            await self._pause(step.hold or self.delay)
            if not self._cancelled:
                yield tool_result(
                    tool_name=step.name,
                    tool_call_id=call_id,
                    content=step.result,
                    chars=len(step.result),
                    is_error=step.is_error,
                )
        elif isinstance(step, Hold | Until):
            async for event in self._play(step, []):
                yield event
        elif isinstance(step, Fail):
            yield ErrorEvent(message=step.message, kind=step.kind)  # type: ignore[arg-type]

    async def run_turn(self, prompt: str, choice: SendChoice | None = None) -> AsyncIterator[Event]:
        """Play the script for `prompt` (its `@path` attachments added, as the real session adds
        them); stop early (interrupted) after `cancel()`, or at a `Fail`. `choice` (the user's
        answer in ask) is only remembered, in `choices`: the fake cuts nothing by itself."""
        self.gate.running, self._cancelled = True, False  # the session's busy flag
        self.prompts.append(prompt)
        self.choices.append(choice)
        if not self.title:
            self.title = make_title(prompt)
        attachments = self.attachments(prompt)
        for line in attachments.lines():
            yield Notice(message=line)
        self.saves.mark_prompt(self.history, self.meter)  # what a rewind to this prompt restores
        self._append(ModelRequest(parts=[UserPromptPart(attachments.prompt(prompt))]))
        output: list[str] = []
        failed = False
        try:
            for step in self.script(prompt):
                if self._cancelled or failed:
                    break
                async for event in self._play(step, output):
                    failed = failed or (isinstance(event, ErrorEvent) and event.agent is None)
                    yield event
        finally:
            self.gate.running = False
        if self._cancelled:
            yield ErrorEvent(message="interrupted: the partial answer is kept", kind="interrupted")
        yield self.meter_reading()
        yield Done(output="".join(output), interrupted=self._cancelled, failed=failed)

    def cancel(self) -> None:
        """Interrupt the scripted turn, or the real `!command`."""
        self._cancelled = True
        super().cancel()

    def set_model(self, name: str) -> None:
        """Switch models; names starting with `bad` are refused like an unknown provider."""
        if name.startswith("bad"):
            raise ValueError(f"unknown model '{name}': expected provider:model, e.g. openai:gpt-4o")
        self.model_name, self.is_offline = name, name == "offline"


def fake_factory(**session_kwargs: Any) -> Callable[..., FakeSession]:
    """A `session_factory` for CoTuiApp that builds a FakeSession (ignores resume)."""
    made: list[FakeSession] = []

    def factory(settings: Settings, workspace: Path, *, ask: Any = None, **_: Any) -> FakeSession:
        session = FakeSession(settings, **{"workspace": workspace, "ask": ask, **session_kwargs})
        made.append(session)
        return session

    factory.made = made  # type: ignore[attr-defined]
    return factory
