"""`ModelSetup`: the model a session talks to and what every request carries besides the history.

It owns the resolved model, the governance policy and capability, the governed agent, the MCP
servers, the project instructions (AGENTS.md …) and the meter, and keeps the request's fixed
overhead — co-tui's and the project's instructions, the workspace tools' schemas and, once a server
has listed its tools, each MCP server's schemas — counted: governance fits the history around it,
and the meter adds it to its figure until the first provider report shows the real one
(docs/context-governance.md, "The meter"). An MCP server's tools are known only once it runs (it
starts after the TUI's first paint): the overhead is counted again on every change of a server's
status, and when the instruction files change (checked before every turn, read again on `/clear`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.agent.factory import build_agent, overhead_tokens, tool_schema_tokens
from co_tui.agent.mcp_servers import load_mcp_servers
from co_tui.agent.models import context_window_of, is_offline, resolve_model
from co_tui.agent.project_instructions import ProjectInstructions, describe_files
from co_tui.agent.tools import Approver
from co_tui.config import Settings
from co_tui.governance.capability import ContextGovernance
from co_tui.governance.compact_mode import CompactMode, SendChoice, cut_permission
from co_tui.governance.meter import TokenMeter
from co_tui.governance.policy import GovernancePolicy
from co_tui.session.compact_hooks import compact_hooks_of
from co_tui.session.compact_mode import OffNotice
from co_tui.session.events import Notice
from co_tui.session.recall_source import recall_source
from co_tui.session.summary_instructions import with_summary_files

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

    from co_tui.agent.agent_defs import AgentDef
    from co_tui.agent.file_edits import FileEdits
    from co_tui.agent.project_instructions import InstructionFile
    from co_tui.session.history import History

__all__ = ["ModelSetup", "reload_notice"]


def reload_notice(files: Sequence[InstructionFile]) -> str:
    """The line saying the instructions were reloaded, and what is loaded now."""
    loaded = describe_files(files)
    now = loaded.removeprefix("instructions: ") if loaded else "no instructions file now"
    return f"Project instructions changed — the model is sent the new ones from this turn on: {now}"


class ModelSetup:
    """See module docstring. `transcript_sink` receives the messages each governance pass hands on
    and returns them as the transcript keeps them (tool outputs stamped with their handles);
    `history` is what the `recall` tool reads. `configure` raises `ModelConfigError` on a bad model."""

    meter: TokenMeter
    overhead: int
    policy: GovernancePolicy

    def __init__(
        self,
        settings: Settings,
        workspace: Path,
        approver: Approver | None,
        model: Model | str,
        *,
        history: History,
        transcript_sink: Callable[[list[ModelMessage]], list[ModelMessage]],
        file_edits: FileEdits | None = None,
        session_id: Callable[[], str] = lambda: "",
        agent_def: AgentDef | None = None,
        delegate: Any = None,
    ) -> None:
        self.settings = settings
        # A subagent's definition (None: the main agent), and the main agent's `delegate` toolset.
        self.agent_def, self._delegate = agent_def, delegate
        self._session_id = session_id  # told to the compaction hooks
        self.history = history  # read by the `recall` tool (recall_source.py)
        self.workspace = workspace
        self.approver = approver
        self.file_edits = file_edits  # what the model has seen of the files; where edits are checkpointed
        self._sink = transcript_sink
        self.mcp = load_mcp_servers(settings, workspace)  # none configured: empty, nothing imported
        self.mcp.approver = approver
        # AGENTS.md / CLAUDE.md, sent with every request (docs/configuration.md, "Project instructions").
        self.project = ProjectInstructions(workspace, enabled=settings.project_instructions)
        # Who decides when the context is cut (governance/compact_mode.py); /compact-mode switches it.
        self.compact_mode: CompactMode = settings.compact_mode
        # In `ask`: what the user chose for the running turn's send (TurnRunner sets it; None: nothing asked).
        self.send_choice: SendChoice | None = None
        self._off_notice = OffNotice()
        self.configure(model)
        if self.mcp:  # an MCP server's schemas count once it has listed its tools
            self.mcp.watch_tools(self.recount_overhead)

    def configure(self, model: Model | str) -> None:
        """Resolve `model` and build the governed agent and a new meter for it. Raises
        `ModelConfigError` on a bad model (nothing changes then)."""
        s = self.settings
        resolved = resolve_model(model, s) if isinstance(model, str) else model
        policy = GovernancePolicy.from_settings(s, context_window=context_window_of(resolved))
        # COMPACT.md beside the config (and the workspace's, when allowed); a bad one is said at the next turn.
        policy, self._summary_file_errors = with_summary_files(policy, s, workspace=self.workspace)
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
        self.agent = build_agent(
            s,
            workspace=self.workspace,
            model=resolved,
            capabilities=[self.governance],
            approver=self.approver,
            file_edits=self.file_edits,
            toolsets=self.mcp.toolsets(),
            project_instructions=lambda: self.project.text,
            recall=recall_source(self.history, self),
            agent_def=self.agent_def,
            delegate=self._delegate,
        )
        self.overhead = self._count_overhead()  # after the agent: its tools are priced, not built again
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
        """A meter for the model, counting the overhead, anchored on nothing yet."""
        return TokenMeter(
            provider=getattr(self.model, "system", None) or "unknown",
            model_name=getattr(self.model, "model_name", None),
            overhead_tokens=self.overhead,
        )

    # --- the overhead ----------------------------------------------------------------------------

    def _count_overhead(self) -> int:
        """Estimated tokens of the instructions and tool schemas, the running MCP servers' included
        (each priced as `/mcp` and `/context` price it: `factory.tool_schema_tokens`)."""
        own = overhead_tokens(
            self.settings,
            workspace=self.workspace,
            project_text=self.project.text,
            agent=self.agent,
            agent_def=self.agent_def,
        )
        servers = self.mcp.servers if self.mcp else []
        return own + sum(tool_schema_tokens(server.tool_defs) for server in servers)

    def recount_overhead(self) -> None:
        """Count the overhead again (instructions reloaded, an MCP server started or failed):
        governance and the meter count the new figure from now on."""
        self.overhead = self._count_overhead()
        self.meter.set_overhead_hint(self.overhead)

    # --- the project instructions ----------------------------------------------------------------

    @property
    def instruction_files(self) -> Sequence[InstructionFile]:
        """The project instruction files loaded now (AGENTS.md …), failed ones with their `error`."""
        return self.project.files

    def refresh_instructions(self) -> list[Notice]:
        """Before a turn: re-read the instruction files when one appeared, changed or went away.
        Returns the lines to show (none when nothing changed): the reload, and one per file that
        could not be read. Never raises: a failure to look leaves the loaded instructions as they
        were. Blocking (stat and read): run it in a thread."""
        project = self.project
        errors_before = set(project.errors)
        try:
            changed = project.refresh()
        except OSError as exc:
            return [Notice(message=f"project instructions not re-read: {exc.strerror or exc}")]
        notices = [Notice(message=error) for error in project.errors if error not in errors_before]
        if changed:
            self.recount_overhead()
            notices.insert(0, Notice(message=reload_notice(project.files)))
        return notices

    def reload_instructions(self) -> None:
        """`/clear`: read the instruction files again, whether or not they changed. Never raises."""
        try:
            self.project.reload()
        except OSError:
            return
        self.recount_overhead()

    def restore_summarizer_cooldown(self, failed_at: float | None) -> None:
        """A summary that failed in an earlier process (a print-mode turn) still cools down here, so
        each `--continue` does not retry a dead summariser; `failed_at` comes from the ledger."""
        if failed_at is None:
            return
        remaining = failed_at + self.policy.summarizer_cooldown_s - time.time()
        governor = self.governance.governor
        if remaining > 0:
            governor.cooldown_until = governor.clock() + remaining
            governor.last_summary_error = governor.last_summary_error or "the summary failed in an earlier run"

    @property
    def governor(self) -> Any:
        """The policy's rules as the capability runs them."""
        return self.governance.governor
