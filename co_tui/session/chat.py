"""ChatSession: one conversation — runs turns, applies the history's edits, yields domain events.

One session object serves every front end (the TUI, print mode), through the port (port.py). It
holds no logic of its own beyond wiring and the busy rule: it is assembled from collaborators, each
the one owner of its state, each behind a typed interface (docs/architecture.md has the picture):

- `Resources` (resources.py): what the process shares — settings, workspace, MCP servers, project
  instructions, the approver;
- `AgentBinding` (agent_binding.py): this agent's model, policy, governed agent and meter;
- `History` (history.py): the transcript, the context, the ledger, the pins, the marks;
- `EditApplier` (applying.py): the one path by which the context changes — the steering operations'
  planned edits, the cuts made inside a turn, `/clear`'s reset;
- `SessionSaves` (session_saves.py): the store (or memory), as the `TurnSaves` and `EditSaves`;
- `Metering` (metering.py), `TurnRunner` (turn_runner.py), `Compaction` (compact_run.py),
  `BranchMoves` (branch_moves.py), `UserShell` (user_shell.py).

Every public coroutine that yields events ends with `Done` and never raises. pydantic-ai is
imported with this module, so the TUI builds a session only after its first paint.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.governance.undo import UndoRefused
from co_tui.session.agent_binding import AgentBinding, MeterFactory, OverheadCounter, count_overhead, default_meter
from co_tui.session.applying import Applied, EditApplier
from co_tui.session.branch_moves import BranchMoves
from co_tui.session.busy import Busy
from co_tui.session.child_agent import ChildRun
from co_tui.session.clearing import clear_conversation, cleared_line
from co_tui.session.compact_run import Compaction
from co_tui.session.compaction import clear_preview_of
from co_tui.session.conversation_counts import ConversationCounts
from co_tui.session.eviction import next_cut_of, plan_evict
from co_tui.session.export import export_saved
from co_tui.session.file_checkpoints import session_file_edits
from co_tui.session.history import History, HistoryViews
from co_tui.session.lazy_transcript import LazyTranscript
from co_tui.session.metering import Metering
from co_tui.session.recover import plan_recover
from co_tui.session.resources import Resources
from co_tui.session.session_lock import claim_session
from co_tui.session.session_saves import SessionSaves
from co_tui.session.session_turns import SessionTurns
from co_tui.session.steering import pin_keys, plan_pin_newest, plan_toggle_pin, plan_undo
from co_tui.session.stored_tree import StoredTree
from co_tui.session.subagents import Delegations, session_agents
from co_tui.session.turn_runner import TurnRunner
from co_tui.session.user_shell import UserShell

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from co_tui.agent.agent_defs import AgentDef
    from co_tui.agent.mcp_servers import McpServers
    from co_tui.agent.mentions import Attachments
    from co_tui.agent.project_instructions import InstructionFile
    from co_tui.agent.tools import Approver
    from co_tui.config import Settings
    from co_tui.governance.compact_mode import CompactMode, SendChoice
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.governance.meter import TokenMeter
    from co_tui.governance.next_cut import NextCut
    from co_tui.session.ask_cut import PlannedCut
    from co_tui.session.branching import BranchRow, RewindPoint, Rewound
    from co_tui.session.context_breakdown import ContextBreakdown
    from co_tui.session.events import Event, UsageUpdate
    from co_tui.session.file_rewind import FilesBack
    from co_tui.session.gauge import Gauge
    from co_tui.session.pin_change import PinChange
    from co_tui.session.store import SessionStore


class ChatSession(HistoryViews):
    """A conversation with one model, governed, optionally persisted. See module docstring.
    `meter_factory` and `overhead_counter`: how the binding meters (the tests' fake counts its own)."""

    def __init__(
        self,
        settings: Settings,
        *,
        workspace: Path,
        store: SessionStore | None = None,
        session_id: str | None = None,
        model: Model | str | None = None,
        approver: Approver | None = None,
        one_shot: bool = False,  # the front end exits after one turn: a failed save is not "kept in memory"
        meter_factory: MeterFactory = default_meter,
        overhead_counter: OverheadCounter = count_overhead,
    ) -> None:
        self.settings, self.one_shot = settings, one_shot
        self.workspace = Path(workspace).resolve()
        self.id: str = session_id or uuid.uuid4().hex
        self.title: str = ""
        self.cleared_from: tuple[str, str] | None = None  # (id, title) of the conversation a /clear left
        self.gate = Busy()
        self.history = history = History()
        # Saved lazily, at the first completed turn: opening and quitting leaves no empty session.
        self.saves = SessionSaves(store, self, history, created=session_id is not None, one_shot=one_shot)
        # What the model has seen of each file, and where each edit's checkpoint goes (issue 30).
        transcript_len, branch = (lambda: len(history.transcript)), (lambda: history.branch)
        file_edits = session_file_edits(store, lambda: self.id, transcript_len, settings.checkpoint_max_bytes, branch)
        self.resources = Resources(settings, self.workspace, approver)
        # The `delegate` tool's children (docs/subagents.md): bindings of their own on these resources.
        self.delegations = Delegations(
            settings, self._new_child, session_agents(settings, self.workspace), lambda: history.transcript
        )
        self.binding = AgentBinding(
            self.resources,
            model if model is not None else settings.model,
            history=history,
            transcript_sink=lambda messages: self.runner.record(messages),
            file_edits=file_edits,
            session_id=lambda: self.id,
            meter_factory=meter_factory,
            overhead_counter=overhead_counter,
            delegate=self.delegations.toolset(),
        )
        self.metering = Metering(self.binding, history)
        busy = lambda: self.gate.running  # noqa: E731 - read by every collaborator that refuses work meanwhile
        self.edits = EditApplier(
            history, self.saves, session_id=lambda: self.id, busy=busy, gauge=self.gauge, pins_changed=self._tell_pins
        )
        self.runner = TurnRunner(self.binding, history, self.metering, self.edits, self.saves)
        self.runner.late_events = self.delegations.take_late_events  # children stopped with the turn
        tree = StoredTree(self.saves, history)
        self.moves = BranchMoves(
            self.edits, tree, self.binding, busy=busy, title=lambda: self.title, workspace=self.workspace
        )
        self.compaction = Compaction(
            self.edits,
            self.binding,
            self.metering,
            self.gate,
            session_id=lambda: self.id,
            error_event=self.runner.error_event,
        )
        shell = UserShell(self.workspace, approver)  # `!command` (user_shell.py)
        self.turns = SessionTurns(self.runner, shell, self.saves, self.metering, self.gate, self.workspace)

    def _new_child(self, agent_def: AgentDef) -> ChildRun:
        binding = self.binding
        return ChildRun(self.resources, binding.model, agent_def, parent_budget=binding.policy.budget_tokens)

    def _tell_pins(self) -> None:
        self.binding.governance.set_pins(pin_keys(self.history.transcript, self.history.pins))

    # --- what the front end reads besides the history (each documented on the port) --------------

    @property
    def busy(self) -> bool:
        """Whether a turn, a `!command`, `/compact` or `/clear` runs now (`Busy`)."""
        return self.gate.running

    @busy.setter
    def busy(self, running: bool) -> None:
        self.gate.running = running

    @property
    def model_name(self) -> str:
        """`provider:model`, or `offline` (the binding's)."""
        return self.binding.model_name

    @property
    def is_offline(self) -> bool:
        """Whether the model is the built-in offline one."""
        return self.binding.is_offline

    @property
    def mcp(self) -> McpServers:
        """The MCP servers (the resources')."""
        return self.resources.mcp

    @property
    def instruction_files(self) -> Sequence[InstructionFile]:
        """The project instruction files loaded now (the resources')."""
        return self.resources.instruction_files

    @property
    def meter(self) -> TokenMeter:
        """The meter (the binding's: a new model, a branch move get another)."""
        return self.binding.meter

    @property
    def overhead_tokens(self) -> int:
        """Tokens every request carries besides the history (the binding's count)."""
        return self.binding.overhead

    @property
    def compact_mode(self) -> CompactMode:
        """Who decides when the context is cut (the binding's)."""
        return self.binding.compact_mode

    def set_compact_mode(self, mode: CompactMode) -> None:
        """`/compact-mode`, for this session only (the setting is unchanged)."""
        self.binding.compact_mode = mode

    def set_model(self, name: str) -> None:
        """Switch models for the following turns (`/model`). Raises `ModelConfigError`; the old model stays."""
        if self.busy:
            raise RuntimeError("cannot switch models while a turn is running")
        self.binding.configure(name)

    def meter_reading(self) -> UsageUpdate:
        """The meter's current figure for `context` (what the model will be sent next)."""
        return self.metering.reading()

    def context_breakdown(self) -> ContextBreakdown:
        """What the next request holds, by category, adding up to `meter_reading()` (/context)."""
        return self.metering.breakdown()

    def conversation_counts(self) -> ConversationCounts:
        """The transcript's turns and chat-log items: the store's figures for a resumed session's
        saved messages (never decoded for this) plus this process's own."""
        saved, transcript = self.history.saved_counts, self.transcript
        if isinstance(transcript, LazyTranscript) and saved is not None and saved.messages == transcript.saved:
            return saved.add(transcript.added())
        return ConversationCounts().add(transcript)

    # --- turns (session_turns.py) ----------------------------------------------------------------

    def plan_send(self, prompt: str) -> PlannedCut | None:
        """In `compact_mode` ask: the cut sending `prompt` now would make (None: none, or not ask)."""
        return self.turns.plan_send(prompt, self.gauge())

    def run_turn(self, prompt: str, choice: SendChoice | None = None) -> AsyncIterator[Event]:
        """Run one user turn; its events, ending with `Done`; never raises (`SessionTurns.run_turn`).
        `over_budget` chosen: a line in the chat says so, with the figures of the plan it overrode."""
        plan = self.plan_send(prompt) if choice == "over_budget" else None
        return self.turns.run_turn(prompt, choice, trace=plan.over_budget_line if plan is not None else None)

    def run_shell_command(self, command: str) -> AsyncIterator[Event]:
        """`!command`: its events, ending with `Done`; never raises (`SessionTurns.run_shell_command`)."""
        return self.turns.run_shell_command(command)

    def attachments(self, prompt: str) -> Attachments:
        """What the `@path` mentions of `prompt` attach, priced. Blocking."""
        return self.turns.attachments(prompt)

    def cancel(self) -> None:
        """Interrupt the running turn or `!command`. Safe from any task; a no-op when idle."""
        self.turns.cancel()

    # --- edits: planned by a pure planner, applied by the `EditApplier` (applying.py) --------------

    def gauge(self) -> Gauge:
        """What the planners read of this session besides its history (`Gauge`)."""
        return self.metering.gauge()

    def next_cut(self) -> NextCut | None:
        """What the next automatic cut would remove or summarise (`eviction.next_cut_of`; no model
        call); always None in `compact_mode` off."""
        return None if self.compact_mode == "off" else next_cut_of(self.history, self.gauge())

    async def evict(self, index: int) -> HistoryTrimmed:
        """Remove context message `index`'s tool output, or its whole older turn, from the context
        (`eviction.plan_evict`). Raises `EvictRefused` (a `Refused`)."""
        return (await self.edits.steer("evicting", lambda h, g: plan_evict(h, g, index))).trim

    async def undo(self, cut: int | None = None) -> HistoryTrimmed:
        """`/undo`: undo the newest cut in effect, or ledger entry `cut` and every cut after it
        (`steering.plan_undo`). Returns the `restore` event; raises `UndoRefused`: after a /clear
        with no cut since, one saying a clear is not undone and where the old conversation is."""
        try:
            return (await self.edits.steer("undoing a cut", lambda h, g: plan_undo(h, g, cut))).trim
        except UndoRefused:
            if cut is None and not self.history.ledger and self.cleared_from is not None:
                raise UndoRefused(cleared_line(*self.cleared_from)) from None
            raise

    async def recover(self, item: str, cut: int | None = None) -> HistoryTrimmed:
        """Append a verbatim excerpt around `item`, which ledger entry `cut`'s summary lost, to the
        context (`recover.plan_recover`). Raises `RecoverRefused`."""
        return (await self.edits.steer("recovering an item", lambda h, g: plan_recover(h, g, item, cut))).trim

    async def toggle_pin(self, index: int) -> PinChange:
        """`p`: pin (again: unpin) the turn holding transcript message `index`. Raises `PinRefused`."""
        return self._pin_change(await self.edits.steer("pinning", lambda h, g: plan_toggle_pin(h, g, index)))

    async def pin_newest(self) -> PinChange:
        """`/pin`: pin the newest turn. Raises `PinRefused` with one line."""
        return self._pin_change(await self.edits.steer("pinning", plan_pin_newest))

    @staticmethod
    def _pin_change(applied: Applied) -> PinChange:
        change: PinChange = applied.result
        return replace(change, note=applied.note) if applied.note else change

    def compact_preview(self) -> HistoryTrimmed | None:
        """What `/compact` would summarise now, with the estimated size after (None: nothing to)."""
        return self.compaction.preview()

    def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """`/compact [focus]`: summarise the whole context into two messages (`Compaction.run`)."""
        return self.compaction.run(focus)

    def clear_preview(self) -> HistoryTrimmed:
        """The event `/clear` would emit now: the dialog and the banner give the same figures."""
        return clear_preview_of(self.history, self.gauge())

    async def clear(self) -> HistoryTrimmed:
        """`/clear`: a new, empty session; the old one stays saved (`clearing.clear_conversation`)."""
        old = (self.id, self.title) if self.history.transcript else None
        trim = await clear_conversation(self.saves, self.edits, self.binding, self.gate, self.clear_preview())
        self.cleared_from = old or self.cleared_from
        return trim

    # --- the conversation tree (branch_moves.py) -------------------------------------------------

    def rewind_points(self) -> list[RewindPoint]:
        """The earlier prompts of the branch in use, newest first. Blocking."""
        return self.moves.rewind_points()

    def branches(self) -> list[BranchRow]:
        """The conversation tree, one row per branch. Blocking."""
        return self.moves.branches()

    async def rewind(self, position: int) -> Rewound:
        """Esc Esc, `/rewind`: go back to just before the prompt at `position` (`BranchMoves.rewind`)."""
        return await self.moves.rewind(position)

    async def switch_branch(self, branch: int) -> HistoryTrimmed:
        """`/branches` Enter: make branch `branch` the one in use (`BranchMoves.switch_branch`)."""
        return await self.moves.switch_branch(branch)

    async def fork(self, position: int | None = None, title: str | None = None) -> str:
        """`/fork [title]`, `--fork-session`: a new saved session of this branch (`BranchMoves.fork`)."""
        return await self.moves.fork(position, title)

    def files_back(self, position: int) -> FilesBack:
        """What a rewind to `position` could put back of the files edited after it. Blocking."""
        return self.moves.files_back(position)

    async def put_files_back(self, position: int, *, overwrite: bool = False) -> str:
        """Put the files edited after the prompt at `position` back (`BranchMoves.put_files_back`)."""
        return await self.moves.put_files_back(position, overwrite=overwrite)

    # --- saving (session_saves.py) ---------------------------------------------------------------

    @property
    def store(self) -> SessionStore | None:
        """The session database this session is saved in (None: not saved)."""
        return self.saves.store

    @property
    def saved(self) -> bool:
        """Whether the conversation is kept in a session database (it has a store)."""
        return self.store is not None

    @property
    def catalog(self) -> SessionStore | None:
        """The store this session is saved in: the sessions picker lists it (None: not saved)."""
        return self.store

    @property
    def data_dir_warning(self) -> str | None:
        """The store's warning that other users can read the data dir (None: private, or not saved)."""
        return self.store.warning if self.store is not None else None

    def unsaved(self) -> bool:
        """Whether the store lacks part of this conversation (its last save failed). Asks the store."""
        return self.saves.unsaved()

    def write_rescue_copy(self) -> Path | None:
        """After a failed save, write the whole conversation as a JSON export beside the database
        (mode 600). Returns the file, or None when it could not be written either."""
        return self.saves.write_rescue_copy()

    def export(self, fmt: str, where: Path | None = None) -> Path:
        """`/export`: the saved conversation as `fmt` in a new private file (`export.export_saved`).
        Raises `ValueError` when nothing is saved, `StoreError`, `OSError`. Blocking."""
        if self.store is None or not self.saves.created:
            raise ValueError("nothing saved to export yet")
        return export_saved(self.store, self.id, fmt, where)

    def release_claim(self) -> None:
        """Let other processes open this session (the TUI switching away, `/clear`). Idempotent."""
        self.saves.writer.release()

    @classmethod
    def resume(
        cls, settings: Settings, *, workspace: Path, store: SessionStore, session_id: str, **kwargs: Any
    ) -> ChatSession:
        """Reopen a saved session: transcript, context and ledger exactly as saved. Raises
        `StoreError` (one line) when it cannot be read, `SessionBusy` when another process has it
        open (claimed before loading, so no stale copy is ever saved over it)."""
        claim = claim_session(store.path.parent, session_id)
        try:
            loaded = store.load(session_id, lazy=True)
            session = cls(settings, workspace=workspace, store=store, session_id=loaded.meta.id, **kwargs)
        except BaseException:
            claim.release()
            raise
        session.saves.writer.hold(claim)
        session.title = loaded.meta.title
        session.history.load(loaded)
        session._tell_pins()
        session.metering.anchor_on_saved_usage()
        session.binding.restore_summarizer_cooldown(store.last_summary_failure(session.id))
        return session
