"""ChatSession: one conversation — runs turns, applies the history's edits, yields domain events.

One session object serves every front end through the port (port.py). It is wiring: collaborators,
each the one owner of its state behind a typed interface (docs/architecture.md, "The session's
collaborators", has the picture) — `Resources` (what the process shares), `AgentBinding` (this
agent's model and meter), `History`, `EditApplier` (the one path by which the context changes),
`SessionSaves` (the store), `Metering`, `TurnRunner` with `SessionTurns`, `Compaction`,
`BranchMoves`, `Delegations` (the subagents), `Clearing`. Every event stream ends with
`Done` and never raises. pydantic-ai is imported with this module, so the TUI builds a session only
after its first paint.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.session.agent_binding import AgentBinding, MeterFactory, OverheadCounter, count_overhead, default_meter
from co_tui.session.approvals import Approvals, Ask
from co_tui.session.busy import Busy
from co_tui.session.file_checkpoints import session_file_edits
from co_tui.session.history import History, HistoryViews
from co_tui.session.lifecycle import SessionLifecycle
from co_tui.session.memory import Memory
from co_tui.session.metering import Metering
from co_tui.session.resources import Resources
from co_tui.session.session_saves import SessionSaves
from co_tui.session.subagents import Delegations

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from co_tui.agent.agent_defs import AgentDef
    from co_tui.agent.mcp_servers import McpServers
    from co_tui.agent.mentions import Attachments
    from co_tui.agent.project_instructions import InstructionFile
    from co_tui.config import Settings
    from co_tui.governance.compact_mode import CompactMode, SendChoice
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.governance.meter import TokenMeter
    from co_tui.governance.next_cut import NextCut
    from co_tui.session.applying import EditApplier
    from co_tui.session.ask_cut import PlannedCut
    from co_tui.session.branch_moves import BranchMoves
    from co_tui.session.branching import BranchRow, RewindPoint, Rewound
    from co_tui.session.child_agent import ChildRun
    from co_tui.session.clearing import Clearing
    from co_tui.session.compact_run import Compaction
    from co_tui.session.context_breakdown import ContextBreakdown
    from co_tui.session.events import Event, UsageUpdate
    from co_tui.session.file_rewind import FilesBack
    from co_tui.session.gauge import Gauge
    from co_tui.session.lifecycle_types import Closing
    from co_tui.session.pin_change import PinChange
    from co_tui.session.replay_items import Item
    from co_tui.session.saved_session import LoadedSession
    from co_tui.session.session_lock import SessionClaim
    from co_tui.session.session_turns import SessionTurns
    from co_tui.session.turn_runner import TurnRunner
    from co_tui.store.session_store import SessionStore


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
        ask: Ask | None = None,
        one_shot: bool = False,  # the front end exits after one turn: a failed save is not "kept in memory"
        meter_factory: MeterFactory = default_meter,
        overhead_counter: OverheadCounter = count_overhead,
    ) -> None:
        self.settings, self.one_shot = settings, one_shot
        self.workspace = Path(workspace).resolve()
        self.id: str = session_id or uuid.uuid4().hex
        self.title: str = ""
        self.gate = Busy()
        self.history = history = History()
        # Saved lazily, at the first completed turn: opening and quitting leaves no empty session.
        self.saves = SessionSaves(store, self, history, created=session_id is not None, one_shot=one_shot)
        # What the model has seen of each file, and where each edit's checkpoint goes (issue 30).
        at, branch = (lambda: len(history.transcript)), (lambda: history.branch)
        file_edits = session_file_edits(store, lambda: self.id, at, settings.checkpoint_max_bytes, branch)
        # The front end's `ask` behind the session's grants (approvals.py); None: every call is refused.
        self.approvals = Approvals(ask) if ask is not None else None
        approver = self.approvals.approve if self.approvals is not None else None
        self.resources = Resources(settings, self.workspace, approver)
        # The `delegate` tool's children (docs/subagents.md): bindings of their own on these resources.
        self.delegations = Delegations(settings, self._new_child, self.workspace, lambda: history.transcript)
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
        self.lifecycle = SessionLifecycle(self)  # start and close, for every front end (lifecycle.py)
        self.memory = Memory(self.resources)  # the user's notes: list, remember, edit, delete (memory.py)
        # The edit path, the turns, the conversation tree, /compact and /clear are built at their
        # first use (below): a new session is ready, its meter read, before any of them runs (issue 44).

    def _session_id(self) -> str:
        return self.id  # read by the collaborators at each use: /clear gives the session a new id

    def _busy(self) -> bool:
        return self.gate.running

    @cached_property
    def edits(self) -> EditApplier:
        """The one path by which the context changes (applying.py); built at the first edit or turn."""
        from co_tui.session.applying import EditApplier

        return EditApplier(
            self.history,
            self.saves,
            session_id=self._session_id,
            busy=self._busy,
            gauge=self.gauge,
            pins_changed=self.binding.tell_pins,
        )

    @cached_property
    def runner(self) -> TurnRunner:
        """Runs the turns (turn_runner.py); built at the first turn, or the first tool call's record."""
        from co_tui.session.turn_runner import TurnRunner

        return TurnRunner(self.binding, self.history, self.metering, self.edits, self.saves, children=self.delegations)

    @cached_property
    def turns(self) -> SessionTurns:
        """A prompt's turn and `!command`, with the session's gate (session_turns.py); built at the first."""
        from co_tui.session.session_turns import SessionTurns
        from co_tui.session.user_shell import UserShell

        shell = UserShell(self.workspace, self.resources.approver)  # `!command` (user_shell.py)
        return SessionTurns(self.runner, shell, self.saves, self.metering, self.gate, self.workspace)

    @cached_property
    def moves(self) -> BranchMoves:
        """Rewind, branches, forks and files put back (branch_moves.py); built at the first of them."""
        from co_tui.session.branch_moves import BranchMoves
        from co_tui.session.stored_tree import StoredTree

        tree, title = StoredTree(self.saves, self.history), (lambda: self.title)
        return BranchMoves(self.edits, tree, self.binding, busy=self._busy, title=title, workspace=self.workspace)

    @cached_property
    def compaction(self) -> Compaction:
        """`/compact` and its preview (compact_run.py); built at the first."""
        from co_tui.session.compact_run import Compaction

        errors = self.runner.error_event
        return Compaction(
            self.edits, self.binding, self.metering, self.gate, session_id=self._session_id, error_event=errors
        )

    @cached_property
    def clearing(self) -> Clearing:
        """`/clear`, its preview and the undo after it (clearing.py); built at the first."""
        from co_tui.session.clearing import Clearing

        return Clearing(self.saves, self.edits, self.binding, self.gate, self.gauge)

    def _new_child(self, agent_def: AgentDef) -> ChildRun:
        from co_tui.session.child_agent import ChildRun  # at the first `delegate` call

        return ChildRun(self.resources, self.binding.model, agent_def, parent_budget=self.binding.policy.budget_tokens)

    def agents_listing(self) -> list[str]:
        """`/agents` (the port's; `Delegations.listing`)."""
        return self.delegations.listing()

    # --- what the front end reads besides the history (each documented on the port) --------------
    @property
    def busy(self) -> bool:
        """Whether a turn, a `!command`, `/compact` or `/clear` runs now (`Busy`)."""
        return self.gate.running

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

    # --- turns (session_turns.py) ----------------------------------------------------------------
    def plan_send(self, prompt: str) -> PlannedCut | None:
        """In `compact_mode` ask: the cut sending `prompt` now would make (None: none, or not ask)."""
        return self.turns.plan_send(prompt)

    def run_turn(self, prompt: str, choice: SendChoice | None = None) -> AsyncIterator[Event]:
        """Run one user turn; its events, ending with `Done`; never raises (`SessionTurns.run_turn`)."""
        return self.turns.run_turn(prompt, choice)

    def run_user_shell(self, command: str) -> AsyncIterator[Event]:
        """`!command`: its events, ending with `Done`; never raises (`SessionTurns.run_user_shell`)."""
        return self.turns.run_user_shell(command)

    def attachments(self, prompt: str) -> Attachments:
        """What the `@path` mentions of `prompt` attach, priced. Blocking."""
        return self.turns.attachments(prompt)

    def cancel(self) -> None:
        """Interrupt the running turn or `!command`. Safe from any task; a no-op when idle."""
        self.turns.cancel()

    # --- edits: planned by a pure planner, applied by the `EditApplier` (applying.py) --------------
    # Each method imports its planner: a new session is ready before any edit is planned.
    def gauge(self) -> Gauge:
        """What the planners read of this session besides its history (`Gauge`)."""
        return self.metering.gauge()

    def next_cut(self) -> NextCut | None:
        """What the next automatic cut would do (`eviction.plan_next_cut`); None in `compact_mode` off."""
        from co_tui.session.eviction import plan_next_cut  # the history screen's (and a cut's)

        return None if self.compact_mode == "off" else plan_next_cut(self.history, self.gauge())

    async def evict(self, index: int) -> HistoryTrimmed:
        """Remove message `index`'s tool output, or its older turn, from the context (`plan_evict`)."""
        from co_tui.session.eviction import plan_evict

        return (await self.edits.steer("evicting", lambda h, g: plan_evict(h, g, index))).trim

    async def undo(self, cut: int | None = None) -> HistoryTrimmed:
        """`/undo`: undo the newest cut in effect, or ledger entry `cut` and every cut after it
        (`steering.plan_undo`). Returns the `restore` event; raises `UndoRefused` (after a /clear
        with no cut since, saying so: `Clearing.explaining_undo`)."""
        from co_tui.session.steering import plan_undo

        with self.clearing.explaining_undo(cut):
            return (await self.edits.steer("undoing a cut", lambda h, g: plan_undo(h, g, cut))).trim

    async def recover(self, item: str, cut: int | None = None) -> HistoryTrimmed:
        """Append an excerpt around `item`, which cut `cut`'s summary lost, to the context (`plan_recover`)."""
        from co_tui.session.recover import plan_recover

        return (await self.edits.steer("recovering an item", lambda h, g: plan_recover(h, g, item, cut))).trim

    async def toggle_pin(self, index: int) -> PinChange:
        """`p`: pin (again: unpin) the turn holding transcript message `index`. Raises `PinRefused`."""
        from co_tui.session.steering import plan_toggle_pin

        return await self.edits.steer_pin(lambda h, g: plan_toggle_pin(h, g, index))

    async def pin_newest(self) -> PinChange:
        """`/pin`: pin the newest turn. Raises `PinRefused` with one line."""
        from co_tui.session.steering import plan_pin_newest

        return await self.edits.steer_pin(plan_pin_newest)

    def compact_preview(self) -> HistoryTrimmed | None:
        """What `/compact` would summarise now, with the estimated size after (None: nothing to)."""
        return self.compaction.preview()

    def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """`/compact [focus]`: summarise the whole context into two messages (`Compaction.run`)."""
        return self.compaction.run(focus)

    def clear_preview(self) -> HistoryTrimmed:
        """The event `/clear` would emit now: the dialog and the banner give the same figures."""
        return self.clearing.preview()

    async def clear(self) -> HistoryTrimmed:
        """`/clear`: a new, empty session; the old one stays saved (`Clearing.clear`)."""
        return await self.clearing.clear()

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
        """After a failed save, the whole conversation as a JSON file beside the database (None: failed)."""
        return self.saves.write_rescue_copy()

    def export(self, fmt: str, where: Path | None = None) -> Path:
        """`/export`: the saved conversation as `fmt` in a new private file (`SessionSaves.export`)."""
        return self.saves.export(fmt, where)

    def release_claim(self) -> None:
        """Let other processes open this session (the TUI switching away, `/clear`). Idempotent."""
        self.saves.writer.release()

    # --- start and close, replay: every front end's jobs (lifecycle.py, replay_items.py) ---------------

    def start(self, **options: Any) -> AsyncIterator[Event]:
        """`SessionLifecycle.start` (its options): the opening lines, and the MCP servers started."""
        return self.lifecycle.start(**options)

    async def aclose(self) -> Closing:
        """`SessionLifecycle.aclose`: MCP down, the rescue copy after a failed save, the claim let go."""
        return await self.lifecycle.aclose()

    def replay(self, entries: int | None = None) -> list[Item | HistoryTrimmed]:
        """`replay.replay`: the conversation as chat entries, banners at their cuts (newest `entries`)."""
        from co_tui.session.replay_items import replay  # a resume's: a new session opens without it

        return replay(self, entries)

    def reopen(self, loaded: LoadedSession, claim: SessionClaim) -> None:
        """Take on saved session `loaded`, holding its `claim` (`opening.resume_session`): its title,
        transcript, context and ledger exactly as saved, its pins, the meter's anchor, the summariser's cooldown."""
        assert self.store is not None, "a saved session is reopened over its store"
        self.saves.writer.hold(claim)
        self.title = loaded.meta.title
        self.history.load(loaded)
        self.binding.tell_pins()
        self.metering.anchor_on_saved_usage()
        self.binding.restore_summarizer_cooldown(self.store.last_summary_failure(self.id))
