"""`AgentBinding`: one agent's model on the shared `Resources` — its own state, apart from what
the process shares (resources.py).

It owns the resolved model, the governance policy and capability, the governed agent, the meter,
who decides a cut (`compact_mode`) and the running send's choice, and keeps the request's fixed
overhead — co-tui's and the project's instructions, the workspace tools' schemas and, once a server
has listed its tools, each MCP server's schemas — counted: governance fits the history around it,
and the meter adds it to its figure until the first provider report shows the real one
(docs/context-governance.md, "The meter"). An MCP server's tools are known only once it runs (it
starts after the TUI's first paint): the overhead is counted again whenever the resources say a
shared part changed (`Resources.watch_overhead`).

The meter and the overhead count are injectable (`meter_factory`, `count_overhead`): the TUI
tests' fake session counts its own figures through them, the real ones otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from co_tui.agent.factory import build_agent, overhead_tokens, tool_schema_tokens
from co_tui.agent.models import context_window_of, is_offline, resolve_model
from co_tui.governance.capability import ContextGovernance
from co_tui.governance.compact_mode import CompactMode, SendChoice, cut_permission
from co_tui.governance.meter import TokenMeter
from co_tui.governance.policy import Governor
from co_tui.governance.policy_settings import GovernancePolicy
from co_tui.session.compact_hooks import compact_hooks_of
from co_tui.session.compact_mode import OffNotice
from co_tui.session.events import Notice
from co_tui.session.memory import memory_toolset
from co_tui.session.recall_source import recall_source
from co_tui.session.summary_instructions import with_summary_files

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

    from co_tui.agent.agent_defs import AgentDef
    from co_tui.agent.file_edits import FileEdits
    from co_tui.config import Settings
    from co_tui.session.history import History
    from co_tui.session.resources import Resources

__all__ = ["AgentBinding", "MeterFactory", "OverheadCounter", "count_overhead", "default_meter"]

MeterFactory = Callable[["Model", int], TokenMeter]
"""A new meter for (the model, the overhead tokens it starts counting)."""

OverheadCounter = Callable[["AgentBinding"], int]
"""The tokens every request of the binding carries besides the history."""


def default_meter(model: Model, overhead: int) -> TokenMeter:
    """A meter for `model`, counting `overhead`, anchored on nothing yet."""
    return TokenMeter(
        provider=getattr(model, "system", None) or "unknown",
        model_name=getattr(model, "model_name", None),
        overhead_tokens=overhead,
    )


def count_overhead(binding: AgentBinding) -> int:
    """Estimated tokens of the instructions and tool schemas, the running MCP servers' included
    (each priced as `/mcp` and `/context` price it: `factory.tool_schema_tokens`)."""
    resources = binding.resources
    own = overhead_tokens(
        resources.settings,
        workspace=resources.workspace,
        project_text=resources.instructions_text,
        agent=binding.agent,
        agent_def=binding.agent_def,
    )
    servers = resources.mcp.servers if resources.mcp else []
    return own + sum(tool_schema_tokens(server.tool_defs) for server in servers)


class AgentBinding:
    """One agent's model, policy, governed agent and meter on shared `resources` (module docstring).

    `history` is what the `recall` tool reads; `transcript_sink` receives the messages each
    governance pass hands on and returns them as the transcript keeps them (tool outputs stamped
    with their handles: `TurnRunner.record`); `file_edits`: what this agent has seen of the files
    (None: it edits nothing it was not shown in this run). `configure` raises `ModelConfigError`.

    A second agent on the same resources (a subagent) is a second binding: cheap (no MCP process,
    no instruction read; the agent's tools are built once more)::

        child = AgentBinding(resources, model, history=child_history, transcript_sink=child_runner.record)

    then `child.close()` when it is done, so the resources stop telling it of overhead changes.
    """

    def __init__(
        self,
        resources: Resources,
        model: Model | str,
        *,
        history: History,
        transcript_sink: Callable[[list[ModelMessage]], list[ModelMessage]],
        file_edits: FileEdits | None = None,
        session_id: Callable[[], str] = lambda: "",
        meter_factory: MeterFactory = default_meter,
        overhead_counter: OverheadCounter = count_overhead,
        agent_def: AgentDef | None = None,
        budget_tokens: int | None = None,
        delegate: Any = None,
    ) -> None:
        self.resources = resources
        # A subagent's definition and context budget (None: the main agent's, the settings'), and
        # the main agent's `delegate` toolset (docs/subagents.md).
        self.agent_def, self._budget, self._delegate = agent_def, budget_tokens, delegate
        self._session_id = session_id  # told to the compaction hooks
        self.history = history  # read by the `recall` tool (recall_source.py)
        self.file_edits = file_edits  # what the model has seen of the files; where edits are checkpointed
        self._sink = transcript_sink
        self._meter_factory, self._overhead_counter = meter_factory, overhead_counter
        # Who decides when the context is cut (governance/compact_mode.py); /compact-mode switches it.
        self.compact_mode: CompactMode = resources.settings.compact_mode
        # In `ask`: what the user chose for the running turn's send (TurnRunner sets it; None: nothing asked).
        self.send_choice: SendChoice | None = None
        self._off_notice = OffNotice()
        self.configure(model)
        self._unwatch = resources.watch_overhead(self.recount_overhead)

    def close(self) -> None:
        """Stop hearing of the resources' overhead changes (a subagent done). Idempotent."""
        self._unwatch()

    @property
    def settings(self) -> Settings:
        """The process's settings (the resources')."""
        return self.resources.settings

    def configure(self, model: Model | str) -> None:
        """Resolve `model` and build the governed agent and a new meter for it. Raises
        `ModelConfigError` on a bad model (nothing changes then)."""
        s, workspace = self.resources.settings, self.resources.workspace
        resolved = resolve_model(model, s) if isinstance(model, str) else model
        # A subagent's own budget stands for `context_budget_tokens` (everything else is the settings').
        budgeted = s if self._budget is None else s.model_copy(update={"context_budget_tokens": self._budget})
        policy = GovernancePolicy.from_settings(budgeted, context_window=context_window_of(resolved))
        # COMPACT.md beside the config (and the workspace's, when allowed); a bad one is said at the next turn.
        policy, self._summary_file_errors = with_summary_files(policy, s, workspace=workspace)
        summarizer = resolve_model(s.summarization_model, s) if s.summarization_model else None
        self.model = resolved
        self.model_name = model if isinstance(model, str) else f"{resolved.system}:{resolved.model_name}"
        self.is_offline = is_offline(resolved)
        self.policy = policy
        self.governance = ContextGovernance(
            policy=policy,
            summarizer_model=summarizer,
            transcript_sink=self._sink,
            meter_of=lambda: self.meter,  # a cut's banner gives the meter's figures: the two agree
            permission=lambda first: cut_permission(self.compact_mode, first_request=first, choice=self.send_choice),
            hooks=compact_hooks_of(s),  # [hooks] in the user's config only (None: nothing runs)
            session_id=self._session_id,
            window_tokens=None if policy.window_is_guess else context_window_of(resolved),
        )
        resources = self.resources
        self.agent = build_agent(
            s,
            workspace=workspace,
            model=resolved,
            capabilities=[self.governance],
            approver=resources.approver,
            file_edits=self.file_edits,
            toolsets=resources.mcp.toolsets(),
            project_instructions=lambda: resources.instructions_text,  # AGENTS.md … and the memory
            recall=recall_source(self.history, self),
            agent_def=self.agent_def,
            delegate=self._delegate,
            remember=None if self.agent_def is not None else memory_toolset(resources),
        )
        self.overhead: int = self._overhead_counter(self)  # after the agent: its tools are priced, not built again
        self.context_window = context_window_of(resolved) or s.fallback_context_window
        self.meter = self.new_meter()

    def turn_notices(self, context: Sequence[ModelMessage]) -> list[Notice]:
        """One line each for the turn about to run: the context past its limits with `compact_mode`
        off (once, until it is back under), and a COMPACT.md that could not be used (once)."""
        over = self.compact_mode == "off" and self.governor.over_limits(
            context, overhead_tokens=self.overhead, next_prompt=True
        )
        said = self._off_notice.check(over, lambda: self.meter.reading(context).tokens, self.policy.budget_tokens)
        notices = [said] if said is not None else []
        notices += [Notice(message=line) for line in self._summary_file_errors]
        self._summary_file_errors = []
        return notices

    def new_meter(self) -> TokenMeter:
        """A meter for the model, counting the overhead, anchored on nothing yet (`meter_factory`)."""
        return self._meter_factory(self.model, self.overhead)

    def recount_overhead(self) -> None:
        """Count the overhead again (instructions reloaded, an MCP server started or failed):
        governance and the meter count the new figure from now on."""
        self.overhead = self._overhead_counter(self)
        self.meter.set_overhead_hint(self.overhead)

    def tell_pins(self) -> None:
        """Tell governance which turns of the history are pinned now (a pin, a branch move, a reset, a resume)."""
        from co_tui.session.steering import pin_keys  # a new session has no pins until the first

        self.governance.set_pins(pin_keys(self.history.transcript, self.history.pins))

    def restore_summarizer_cooldown(self, failed_at: float | None) -> None:
        """A summary that failed in an earlier process (a print-mode turn) still cools down here, so
        each `--continue` does not retry a dead summariser; `failed_at` comes from the ledger."""
        if failed_at is None:
            return
        remaining = failed_at + self.policy.summarizer_cooldown_s - time.time()
        governor = self.governor
        if remaining > 0:
            governor.cooldown_until = governor.clock() + remaining
            governor.last_summary_error = governor.last_summary_error or "the summary failed in an earlier run"

    @property
    def governor(self) -> Governor:
        """The policy's rules as the capability runs them."""
        return self.governance.governor
