"""`Delegations`: the session's side of the `delegate` tool — runs each child, streams its events
into the parent's turn, enforces its limits, and returns what the parent is told.

A child (`ChildAgent`, built by the session's factory on the shared resources) has its own
`History`, governance and meter; it is sent its agent's instructions, the project instructions and
the task, never the parent's conversation. Its events reach the front end live while the parent's
turn runs: the tool emits each into the parent's pydantic-ai event stream (`ChildEvent`), and the
parent's `TurnRunner` yields it, tagged with the child's `agent` and `delegation`.

Limits, each said, never silent (docs/subagents.md, "Limits"): `subagent_max_concurrent` children
run at once (more calls wait for a slot); each child has its own context budget, a request limit
and a wall-clock timeout. A child that fails, runs out of requests or time returns a tool result
that says so, with what it had found — never an exception into the parent's turn. The parent's
Esc cancels the tool, and with it the child's run (its shell commands' process groups included:
`agent.shell` kills them on cancel); the child is recorded as `cancelled`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from co_tui.agent.agent_defs import AgentCatalog, AgentDef, agent_dirs, load_agents
from co_tui.governance.handles import render_call
from co_tui.session.cost import format_usd, session_cost
from co_tui.session.events import (
    Done,
    ErrorEvent,
    Event,
    SubagentFinished,
    SubagentOutcome,
    SubagentStarted,
    UsageUpdate,
)

if TYPE_CHECKING:
    from pathlib import Path

    from pydantic_ai.messages import ModelMessage, ToolReturnPart

    from co_tui.config import Settings
    from co_tui.session.child_record import ChildRecord
    from co_tui.session.history import History

__all__ = ["ChildAgent", "ChildFactory", "Delegations", "agents_listing", "finished_line", "session_agents"]

FOUND_CHARS = 4_000  # of a stopped child's last words, what the parent is told


class ChildAgent(Protocol):
    """One child, ready to run its task (session/child_agent.py builds it)."""

    history: History
    budget_tokens: int
    tools: tuple[str, ...]

    def run(self, task: str, *, request_limit: int, agent: str = "") -> AsyncIterator[Event]:
        """The child's one turn: its events, ending with `Done`; never raises (as `TurnRunner.run`).
        `agent`: its id."""
        ...

    def cancel(self) -> None:
        """Stop the run (its `Done` says interrupted)."""

    def close(self) -> None:
        """Release what it holds on the shared resources."""


ChildFactory = Callable[[AgentDef], ChildAgent]


@dataclass(frozen=True)
class _Figures:
    requests: int
    tool_calls: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cost_usd: float | None


def _figures(transcript: Sequence[ModelMessage], ledger: Sequence[Any]) -> _Figures:
    responses = [m for m in transcript if m.kind == "response"]
    return _Figures(
        requests=len(responses),
        tool_calls=sum(1 for r in responses for p in r.parts if p.part_kind == "tool-call"),
        input_tokens=sum(r.usage.input_tokens for r in responses),
        output_tokens=sum(r.usage.output_tokens for r in responses),
        cache_read_tokens=sum(r.usage.cache_read_tokens for r in responses),
        cost_usd=session_cost(transcript, ledger),
    )


def _ledger(child: ChildAgent, agent: str, delegation: str) -> tuple[Any, ...]:
    """The child's cuts as kept with its record: each naming the child, as its events did."""
    return tuple(replace(event, agent=agent, delegation=delegation) for event in child.history.ledger)


def _kilo(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


def finished_line(agent: str, outcome: SubagentOutcome, figures: Any, elapsed_s: float) -> str:
    """The one line a front end shows for a finished child."""
    words = {"done": "done", "failed": "failed", "timed_out": "timed out", "cancelled": "stopped", "limit": "stopped"}
    cost = "" if figures.cost_usd is None else f" · {format_usd(figures.cost_usd, digits=4)}"
    return (
        f"{agent} {words[outcome]} · {figures.requests} request{'' if figures.requests == 1 else 's'}"
        f" · {_kilo(figures.input_tokens)} tokens in"
        f"{cost} · {elapsed_s:.1f} s"
    )


def _last_words(transcript: Sequence[ModelMessage]) -> str:
    """The text of the child's newest response that has any (its answer, when it finished)."""
    for message in reversed(transcript):
        if message.kind == "response":
            text = "".join(p.content for p in message.parts if p.part_kind == "text").strip()
            if text:
                return text
    return ""


def _found(transcript: Sequence[ModelMessage]) -> str:
    """What a stopped child had found: its last words, else the calls it made."""
    text = _last_words(transcript)
    if text:
        return text[-FOUND_CHARS:] if len(text) > FOUND_CHARS else text
    calls = [
        render_call(p.tool_name, p.args)
        for m in transcript
        if m.kind == "response"
        for p in m.parts
        if p.part_kind == "tool-call"
    ]
    if not calls:
        return "nothing yet."
    shown = calls[-20:]
    more = f" (and {len(calls) - len(shown)} earlier)" if len(calls) > len(shown) else ""
    return "no answer yet; it had called " + ", ".join(shown) + more + "."


def _result_text(agent: str, outcome: SubagentOutcome, why: str, transcript: Sequence[Any]) -> str:
    handle = f'recall("{agent}") reads its whole transcript'
    if outcome == "done":
        return f"[subagent {agent} answered; {handle}]\n{_last_words(transcript) or '(an empty answer)'}"
    return f"[subagent {agent} {why}; {handle}]\nWhat it had found: {_found(transcript)}"


def session_agents(settings: Settings, workspace: Path) -> AgentCatalog:
    """The agents a session offers: `explore`, the user's definitions and, with
    `agents_project_config`, the workspace's (agent_defs.py). Reads a few directories."""
    from co_tui.paths import default_config_file

    dirs = agent_dirs(workspace, default_config_file().parent, project=settings.agents_project_config)
    return load_agents(dirs)


def agents_listing(catalog: AgentCatalog, workspace: Path, *, project: bool) -> list[str]:
    """`/agents`: one line per agent the `delegate` tool offers — name, tools, where it came
    from, what it is for — then one per definition file refused and why, and, with the workspace's
    definitions off, the workspace folders not read."""
    from co_tui.text import escape_controls

    lines = []
    for agent in catalog.agents.values():
        tools = "every tool but delegate" if agent.tools is None else ", ".join(agent.tools) or "no tools"
        model = f" · model {agent.model}" if agent.model else ""
        budget = f" · budget {agent.budget_tokens:,}" if agent.budget_tokens else ""
        lines.append(f"{agent.name} ({agent.source}{model}{budget}) — {tools}: {agent.description}")
    lines += [f"refused {refusal.path}: {refusal.reason}" for refusal in catalog.refused]
    if not project:
        for folder in (workspace / ".co-tui" / "agents", workspace / ".claude" / "agents"):
            if folder.is_dir():
                lines.append(f"not read: {folder} (the workspace's definitions need agents_project_config = true)")
    return [escape_controls(line) for line in lines]


class Delegations:
    """Runs the `delegate` tool's children for one session (see module docstring).

    `factory(agent_def)` builds a child; `catalog`: the agents on offer in `workspace`
    (`session_agents`); `transcript()` the parent's (children recorded there number the next id).
    `toolset()` is the `delegate` tool for the main agent, which calls
    `await delegations(ctx, task, agent_name)`."""

    def __init__(
        self,
        settings: Settings,
        factory: ChildFactory,
        workspace: Path,
        transcript: Callable[[], Sequence[ModelMessage]],
    ) -> None:
        self.settings, self.workspace = settings, workspace
        self.catalog = session_agents(settings, workspace)
        self._factory, self._transcript = factory, transcript
        self._slots = asyncio.Semaphore(settings.subagent_max_concurrent)
        self._numbered: int | None = None
        # The children finished in this process, by id (a cancelled one is in no transcript).
        self.records: dict[str, ChildRecord] = {}
        self._late: list[Event] = []
        self._stopped: list[tuple[ChildRecord, str]] = []  # cancelled children, with their result text

    def _next_id(self, name: str) -> str:
        if self._numbered is None:
            from co_tui.session.child_record import count_children  # the first child: its records

            self._numbered = count_children(self._transcript())
        self._numbered += 1
        return f"{name}-{self._numbered}"

    def listing(self) -> list[str]:
        """`/agents`: the agents on offer, the definitions refused (`agents_listing`)."""
        return agents_listing(self.catalog, self.workspace, project=self.settings.agents_project_config)

    def toolset(self) -> Any:
        """The `delegate` tool over this session's agents (agent/delegate_tool.py)."""
        from co_tui.agent.delegate_tool import delegate_toolset

        return delegate_toolset(self, list(self.catalog.agents.values()))

    def take_late_events(self) -> list[Event]:
        """Events of children stopped with the parent's run (their stream was closed): the parent's
        turn yields them before its `Done`."""
        late, self._late = self._late, []
        return late

    def take_stopped_results(self) -> list[ToolReturnPart]:
        """The `delegate` results of children stopped with the parent's run: what each had found,
        its record in the metadata as a finished child's. The run's interrupted step had no result
        for those calls; with these in the transcript, a stopped child is saved, recallable and
        exported like any other (issue 41), and the model reads what it had found."""
        from pydantic_ai.messages import ToolReturnPart

        from co_tui.session.child_record import SUBAGENT_KEY

        stopped, self._stopped = self._stopped, []
        return [
            ToolReturnPart(
                tool_name="delegate",
                content=text,
                tool_call_id=record.finished.delegation,
                metadata={SUBAGENT_KEY: record.to_metadata()},
            )
            for record, text in stopped
            if record.finished.delegation
        ]

    def find(self, agent: str) -> ChildRecord | None:
        """A child finished in this process, by id."""
        return self.records.get(agent)

    async def __call__(self, ctx: Any, task: str, agent_name: str) -> Any:
        """Run a child on `task` as the `delegate` tool call `ctx.tool_call_id`; the tool's result."""
        from pydantic_ai import ToolFailed, ToolReturn

        from co_tui.session.child_event import ChildEvent
        from co_tui.session.child_record import SUBAGENT_KEY

        agent_def = self.catalog.get(agent_name)
        if agent_def is None:
            raise ToolFailed(f"no agent {agent_name!r}")
        delegation = ctx.tool_call_id or ""
        agent = self._next_id(agent_def.name)
        async with self._slots:
            try:
                child = self._factory(agent_def)
            except Exception as exc:  # a defined agent's bad model, say: the parent is told, and goes on
                raise ToolFailed(f"subagent {agent} could not start: {exc}") from None
            try:
                record, text = await self._run_child(ctx, child, agent_def, agent, delegation, task)
            finally:
                child.close()
        self.records[agent] = record
        await ctx.emit(ChildEvent(event=record.finished))
        return ToolReturn(return_value=text, metadata={SUBAGENT_KEY: record.to_metadata()})

    async def _run_child(
        self, ctx: Any, child: ChildAgent, agent_def: AgentDef, agent: str, delegation: str, task: str
    ) -> tuple[ChildRecord, str]:
        from co_tui.session.child_event import ChildEvent
        from co_tui.session.child_record import ChildRecord

        settings = self.settings
        started = time.monotonic()

        async def emit(event: Event) -> None:
            await ctx.emit(ChildEvent(event=replace(event, agent=agent, delegation=delegation)))

        await emit(
            SubagentStarted(
                delegation=delegation,
                agent=agent,
                agent_name=agent_def.name,
                task=task,
                budget_tokens=child.budget_tokens,
                max_requests=settings.subagent_max_requests,
                timeout_s=settings.subagent_timeout_s,
                tools=child.tools,
            )
        )
        timed_out: list[bool] = []

        def time_up() -> None:
            timed_out.append(True)
            child.cancel()

        timer = asyncio.get_running_loop().call_later(settings.subagent_timeout_s, time_up)
        interrupted, failed, error, context_tokens = False, False, "", 0
        try:
            async for event in child.run(task, request_limit=settings.subagent_max_requests, agent=agent):
                if isinstance(event, Done):
                    interrupted, failed = event.interrupted, event.failed
                    continue
                if isinstance(event, ErrorEvent) and event.kind != "interrupted":
                    error = event.message
                if isinstance(event, UsageUpdate):
                    context_tokens = event.context_tokens
                await emit(event)
        except asyncio.CancelledError:
            # The parent's turn was stopped: its stream is closing, so the end is said after it.
            text = _result_text(agent, "cancelled", "was stopped", child.history.transcript)
            finished = self._finish(
                child, agent_def, agent, delegation, "cancelled", started, context_tokens, len(text)
            )
            record = ChildRecord(finished, task, tuple(child.history.transcript), _ledger(child, agent, delegation))
            self.records[agent] = record
            self._late.append(finished)
            self._stopped.append((record, text))
            raise
        finally:
            timer.cancel()
        figures = _figures(child.history.transcript, child.history.ledger)
        outcome: SubagentOutcome
        if timed_out:
            outcome, why = "timed_out", f"stopped after {settings.subagent_timeout_s:g} s (its time limit)"
        elif interrupted:
            outcome, why = "cancelled", "was stopped"
        elif failed and figures.requests >= settings.subagent_max_requests:
            outcome, why = "limit", f"stopped after {figures.requests} requests (its request limit)"
        elif failed:
            outcome, why = "failed", f"failed: {error or 'an error'}"
        else:
            outcome, why = "done", ""
        text = _result_text(agent, outcome, why, child.history.transcript)
        finished = self._finish(child, agent_def, agent, delegation, outcome, started, context_tokens, len(text))
        return ChildRecord(finished, task, tuple(child.history.transcript), _ledger(child, agent, delegation)), text

    def _finish(
        self,
        child: ChildAgent,
        agent_def: AgentDef,
        agent: str,
        delegation: str,
        outcome: SubagentOutcome,
        started: float,
        context_tokens: int,
        result_chars: int = 0,
    ) -> SubagentFinished:
        figures = _figures(child.history.transcript, child.history.ledger)
        elapsed = time.monotonic() - started
        return SubagentFinished(
            delegation=delegation,
            agent=agent,
            agent_name=agent_def.name,
            outcome=outcome,
            result_chars=result_chars,
            handle=agent,
            requests=figures.requests,
            tool_calls=figures.tool_calls,
            input_tokens=figures.input_tokens,
            output_tokens=figures.output_tokens,
            cache_read_tokens=figures.cache_read_tokens,
            cost_usd=figures.cost_usd,
            context_tokens=context_tokens,
            cuts=len(child.history.ledger),
            elapsed_s=round(elapsed, 3),
            summary=finished_line(agent, outcome, figures, elapsed),
            budget_tokens=child.budget_tokens,
        )
