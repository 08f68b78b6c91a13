"""ChatSession: one conversation — runs turns, applies the history's edits, yields domain events.

One session object serves both front ends (TUI and print mode), through the port (port.py). It is
composed of collaborators, each the one owner of its state:

- `History` (history.py): the transcript, the context, the ledger and the pins;
- `ModelSetup` (model_setup.py): the model, the policy and governed agent, the MCP servers, the
  project instructions, the meter, and the request's fixed overhead;
- `Metering` (metering.py): the meter's `usage` event and the `/context` breakdown;
- `TurnRunner` (turn_runner.py): a turn's agent run and its events;
- `SessionWriter` (writer.py): the claim on the session, the save, the rescue copy.

Every steering operation is planned by a pure planner (eviction.py, steering.py, recover.py,
compaction.py) and applied in one place, `_apply`: committed on the event loop, saved in a thread,
a failed save said in the operation's own line ("kept in memory, not saved"). Every public
coroutine that yields events ends with `Done` and never raises. pydantic-ai is imported with this
module, so the TUI builds a session only after its first paint.
"""

from __future__ import annotations

import asyncio
import copy
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.agent.mentions import AT, Attachments, attach, priced
from co_tui.config import Settings
from co_tui.governance.capability import hook_payload, post_payload
from co_tui.governance.compact_mode import CompactMode, SendChoice
from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.hook_port import Trigger
from co_tui.governance.pins import compact_around_pins
from co_tui.governance.policy import with_hook_instructions
from co_tui.governance.refused import Refused, busy_line
from co_tui.session.applying import AppliesEdits
from co_tui.session.approvals import Approvals, Ask
from co_tui.session.ask_cut import PlannedCut, plan_send
from co_tui.session.bang import BANG
from co_tui.session.compaction import plan_compact
from co_tui.session.conversation_counts import ConversationCounts
from co_tui.session.events import Done, ErrorEvent, Event, Notice, UsageUpdate
from co_tui.session.eviction import compact_preview_of, next_cut_of
from co_tui.session.export import export_saved
from co_tui.session.gauge import Gauge
from co_tui.session.history import BranchState, History, HistorySnapshot
from co_tui.session.lazy_transcript import LazyTranscript
from co_tui.session.lifecycle import SessionLifecycle
from co_tui.session.lifecycle_types import Closing
from co_tui.session.metering import Metering, anchor_meter
from co_tui.session.model_setup import ModelSetup
from co_tui.session.replay import Item, replay
from co_tui.session.session_lock import claim_session
from co_tui.session.steering import pin_keys
from co_tui.session.turn_runner import TurnRunner
from co_tui.session.user_shell import UserShell
from co_tui.session.writer import SaveInfo, SessionWriter
from co_tui.text import one_line

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

    from co_tui.agent.mcp_servers import McpServers
    from co_tui.agent.project_instructions import InstructionFile
    from co_tui.governance.meter import TokenMeter
    from co_tui.governance.next_cut import NextCut
    from co_tui.session.branching import BranchRow
    from co_tui.session.context_breakdown import ContextBreakdown
    from co_tui.session.store import SessionStore

TITLE_CHARS = 60


def make_title(prompt: str) -> str:
    """A session title from the first user prompt: one line, at most TITLE_CHARS characters."""
    return one_line(prompt, TITLE_CHARS)


class ChatSession(AppliesEdits):
    """A conversation with one model, governed, optionally persisted. See module docstring."""

    def __init__(
        self,
        settings: Settings,
        *,
        workspace: Path,
        store: SessionStore | None = None,
        session_id: str | None = None,
        model: Model | str | None = None,
        ask: Ask | None = None,
        one_shot: bool = False,
    ) -> None:
        self.settings = settings
        # The front end exits after one turn (print mode): errors do not promise what only a running
        # process keeps (`KEPT_IN_MEMORY`).
        self.one_shot = one_shot
        self.workspace = Path(workspace).resolve()
        self.id: str = session_id or uuid.uuid4().hex
        self.title: str = ""
        self.busy = False
        self.history = History()
        self._next_meter: TokenMeter | None = None  # a rewind's or switch's meter, set once it is applied
        self._branch_meters: dict[int, TokenMeter] = {}  # the meters of the branches left in this process
        # Saved to the store lazily, at the first completed turn: opening and quitting leaves no empty session.
        self.writer = SessionWriter(store, created=session_id is not None)
        from co_tui.session.file_checkpoints import session_file_edits

        # What the model has seen of each file, and where each edit's checkpoint goes (issue 30).
        self.file_edits = session_file_edits(
            store,
            lambda: self.id,
            lambda: len(self.history.transcript),
            settings.checkpoint_max_bytes,
            lambda: self.history.branch,
        )
        # The front end's `ask` behind the session's grants (approvals.py); None: every call is refused.
        self.approvals = Approvals(ask) if ask is not None else None
        approver = self.approvals.approve if self.approvals is not None else None
        self.setup = ModelSetup(
            settings,
            self.workspace,
            approver,
            model if model is not None else settings.model,
            history=self.history,
            transcript_sink=lambda messages: self.runner.record(messages),
            file_edits=self.file_edits,
            session_id=lambda: self.id,
        )
        self.metering = Metering(self.setup, self.history)
        self.runner = TurnRunner(
            self.setup, self.history, self.metering, session_id=lambda: self.id, save=self._save_turn
        )
        self.user_shell = UserShell(self.workspace, approver)  # `!command` (user_shell.py)
        self.lifecycle = SessionLifecycle(self)  # start and close, for every front end (lifecycle.py)

    # --- what the front end reads besides the history --------------------------------------------

    @property
    def model_name(self) -> str:
        """The model the next turn uses, as configured (`provider:model`, or `offline`)."""
        return self.setup.model_name

    @property
    def is_offline(self) -> bool:
        """Whether that model is the built-in offline one."""
        return self.setup.is_offline

    @property
    def mcp(self) -> McpServers:
        """The session's MCP servers (falsy when none are configured)."""
        return self.setup.mcp

    @property
    def instruction_files(self) -> Sequence[InstructionFile]:
        """The project instruction files loaded now (AGENTS.md …), failed ones with their `error`."""
        return self.setup.instruction_files

    @property
    def meter(self) -> TokenMeter:
        """The meter (`ModelSetup` owns it: a new model gets a new one)."""
        return self.setup.meter

    @property
    def overhead_tokens(self) -> int:
        """Tokens every request carries besides the history (instructions, tool schemas)."""
        return self.setup.overhead

    @property
    def compact_mode(self) -> CompactMode:
        """Who decides when the context is cut (`ModelSetup` owns it; governance/compact_mode.py)."""
        return self.setup.compact_mode

    def set_compact_mode(self, mode: CompactMode) -> None:
        """Who decides when the context is cut, from the next request on (`/compact-mode`): `auto`,
        `ask` or `off`. For this session only; the setting is unchanged."""
        self.setup.compact_mode = mode

    def set_model(self, name: str) -> None:
        """Switch models for the following turns (`/model`). Raises `ModelConfigError`; the old model stays."""
        if self.busy:
            raise RuntimeError("cannot switch models while a turn is running")
        self.setup.configure(name)

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

    # --- turns (turn_runner.py) ------------------------------------------------------------------

    def plan_send(self, prompt: str) -> PlannedCut | None:
        """In `compact_mode` ask: the cut sending `prompt` now would make, for the user to decide
        (`ask_cut.plan_send`; no model call). None in the other modes, or when it goes out uncut."""
        if self.compact_mode != "ask":
            return None
        setup = self.setup
        return plan_send(
            self.history,
            self.gauge(),
            prompt,
            window_tokens=setup.context_window,
            window_is_guess=setup.policy.window_is_guess,
        )

    async def run_turn(self, prompt: str, choice: SendChoice | None = None) -> AsyncIterator[Event]:
        """Run one user turn; yield its events; always end with `Done`. Never raises (see
        `TurnRunner`); `busy` until its `Done`. `choice`: what the user chose for this send in
        `compact_mode` ask (`plan_send`): `cut` as planned, or `over_budget` once (never past the
        model's known window: such a request is cut, said in one line)."""
        if self.busy:
            yield ErrorEvent(message="a turn is already running", kind="internal")
            yield Done(output="", failed=True)
            return
        attachments = await asyncio.to_thread(self.attachments, prompt) if AT in prompt else None
        for line in attachments.lines() if attachments else ():
            yield Notice(message=line)
        sent = attachments.prompt(prompt) if attachments else prompt
        refused = self.runner.refusal(sent)
        if refused is not None:  # nothing sent, nothing added to the history
            yield refused
            yield Done(output="", failed=True)
            return
        self.busy = True
        try:
            async for event in self.runner.run(sent, choice, typed=prompt):
                if isinstance(event, Done):
                    self.busy = False
                yield event
        finally:
            self.busy = False

    async def run_shell_command(self, command: str) -> AsyncIterator[Event]:
        """`!command`: ask as `run_shell` asks, run `command` in the workspace, add the exchange to
        the history (`user_shell.shell_exchange`: governed like any tool output) and save it; yield
        its events, ending with the meter and `Done`. Never raises; `busy` until its `Done`."""
        if self.busy:
            yield ErrorEvent(message="a turn is already running", kind="internal")
            yield Done(output="", failed=True)
            return
        self.busy = True
        try:
            async for event in self.user_shell.run(command, self.runner.append_to_context):
                if isinstance(event, Done) and not event.failed:
                    save_error = await asyncio.to_thread(self._save_turn, f"{BANG}{command}", None)
                    if save_error is not None:
                        yield save_error
                    yield self.meter_reading()
                    self.busy = False
                yield event
        finally:
            self.busy = False

    def attachments(self, prompt: str) -> Attachments:
        """What the `@path` mentions of `prompt` attach when it is sent (`agent.mentions.attach`),
        with their cost in the meter's tokens. Reads the files: blocking."""
        return priced(attach(self.workspace, prompt), self.setup.meter.ratio)

    def cancel(self) -> None:
        """Interrupt the running turn or `!command` (Esc / Ctrl+C). Safe from any task; a no-op when idle."""
        self.runner.cancel()
        self.user_shell.stop()

    # --- edits: planned by a pure planner, applied by `AppliesEdits` (applying.py) ------------------

    def gauge(self) -> Gauge:
        """What the planners read of this session besides its history (`Gauge`)."""
        return self.metering.gauge()

    def next_cut(self) -> NextCut | None:
        """What the next automatic cut would remove or summarise (`NextCut`), or None: the policy's
        own rules on the context, no model call (`eviction.next_cut_of`); always None in
        `compact_mode` off (no automatic cut will come)."""
        return None if self.compact_mode == "off" else next_cut_of(self.history, self.gauge())

    def compact_preview(self) -> HistoryTrimmed | None:
        """What `/compact` would summarise now, with the estimated size after (None: nothing to)."""
        return compact_preview_of(self.history, self.gauge())

    async def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """`/compact [focus]`: summarise the whole context into two messages. Never raises.

        The event's `tokens_before`/`tokens_after` are the meter's readings of the context before and
        after, so the banner and the meter agree to the token (docs/context-governance.md, "The
        `history_trimmed` event"). Nothing happens on an empty context; on failure or cancellation
        the context is unchanged (and the error shown). Applied as every edit is (`_apply`).
        """
        if self.busy:
            yield ErrorEvent(message=busy_line("compacting"), kind="internal")
            yield Done(output="", failed=True)
            return
        if not self.context:
            yield Done(output="nothing to compact")
            return
        self.busy = True
        setup = self.setup
        figure_before = setup.meter.reading(self.context).tokens  # the figure the meter shows now
        from co_tui.governance.summarize import COMPACT_INSTRUCTIONS

        instructions, instructions_from = setup.policy.instructions_for(COMPACT_INSTRUCTIONS)
        hooks = setup.governance.hooks
        if hooks is not None:  # the user's pre_compact: its output joins the instructions; no veto here
            said = await hooks.pre(self._hook_payload("manual", figure_before))
            if said.notice:
                yield Notice(message=said.notice)
            instructions, instructions_from = with_hook_instructions(instructions, instructions_from, said.instructions)
        try:
            result = await compact_around_pins(
                list(self.context),
                setup.governor.pins,
                setup.governance.summarizer_model or setup.model,
                focus,
                budget_tokens=setup.policy.budget_tokens,
                overhead_tokens=setup.overhead,
                instructions=instructions,
                instructions_from=instructions_from,
            )
        except Exception as exc:  # the history stays as it was
            yield self.runner.error_event(exc)
            yield Done(output="", failed=True)
            return
        finally:  # also when the front end cancels the compaction: the context is untouched then
            self.busy = False
        if result.event is None:  # no turn to summarise, e.g. the context is already one compact pair
            yield Done(output="nothing to compact")
            return
        applied = await self._apply(plan_compact(self.history, self.gauge(), result, figure_before))
        yield applied.trim
        yield self.meter_reading()
        if hooks is not None and (
            line := await hooks.post({**self._hook_payload("manual", figure_before), **post_payload([result.event])})
        ):
            yield Notice(message=line)
        yield Done(output=result.event.summary or "")

    def _hook_payload(self, trigger: Trigger, tokens_before: int) -> dict[str, Any]:
        """What a compaction hook reads for `/compact` (docs/configuration.md, "Hooks")."""
        preview = self.compact_preview()
        payload = hook_payload(
            trigger,
            self.id,
            "compact",
            tokens_before,
            self.setup.policy.budget_tokens,
            len(self.context),
        )
        payload["preview"] = asdict(preview) if preview is not None else None
        return payload

    async def clear(self) -> HistoryTrimmed:
        """`/clear`: an empty context and transcript under a fresh session id; the old one stays saved.

        Returns the `clear` event for the front end's banner, with the old session's id. No ledger
        records it: the old session's context is not changed (it resumes whole) and the new one never
        held what went, so either record would be false (docs/context-governance.md, "/compact and
        /clear"). The old session is saved first (in a thread); when that fails, it is written to a
        rescue copy the banner names, and when that fails too, nothing is cleared (`Refused`).
        """
        if self.busy:
            raise Refused(busy_line("clearing"))
        self.busy = True
        try:
            trim = replace(self.clear_preview(), session_id=self.id)
            snapshot = self.history.snapshot()
            error = await asyncio.to_thread(self._write, snapshot)
            if error is not None:
                rescued = await asyncio.to_thread(self.writer.write_rescue_copy, snapshot, self._save_info())
                if rescued is None:
                    raise Refused(
                        f"nothing was cleared: the conversation could not be saved ({error}), "
                        "nor written to a rescue copy"
                    )
                trim = replace(trim, note=f"{trim.note}; not saved ({error}): the old conversation is in {rescued}")
            self.writer.release()
            self.writer = SessionWriter(self.writer.store, created=False)
            self.id = uuid.uuid4().hex
            self.title = ""
            self.history.reset()
            self.setup.governance.set_pins(frozenset())
            # A fresh start reads the instruction files again, and meters from nothing.
            await asyncio.to_thread(self.setup.reload_instructions)
            self.setup.meter = self.setup.new_meter()
        finally:
            self.busy = False
        return trim

    # --- saving (writer.py) ----------------------------------------------------------------------

    @property
    def store(self) -> SessionStore | None:
        """The session database this session is saved in (None: not saved)."""
        return self.writer.store

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

    def _save_info(self, context: Sequence[ModelMessage] | None = None) -> SaveInfo:
        return SaveInfo(
            session_id=self.id,
            title=self.title,
            model_name=self.model_name,
            workspace=self.workspace,
            tokens=self.meter.reading(self.context if context is None else context).tokens,
            cost_usd=self.history.cost(),
        )

    def _write(self, snapshot: HistorySnapshot, context: Sequence[ModelMessage] | None = None) -> str | None:
        """Save `snapshot` (and `context` instead of its own); the store's line when it failed. Blocking."""
        return self.writer.save(snapshot, self._save_info(context), context=context)

    def _pins_changed(self) -> None:
        self.setup.governance.set_pins(pin_keys(self.history.transcript, self.history.pins))

    # --- the conversation tree: what `AppliesEdits.rewind` / `switch_branch` ask of the store ----

    def _unsaved_line(self) -> str | None:
        if self.store is None or not self.writer.created:
            return None
        return "the last save failed" if self.unsaved() else None

    def _mark_context(self, position: int) -> tuple[Any, ...] | None:
        if self.store is None or not self.writer.created:
            return None
        return self.store.mark_context(self.id, position, self.history.transcript)

    def _load_branch(self, branch: int) -> BranchState | None:
        if self.store is None or not self.writer.created:
            return None
        loaded = self.store.load_branch(self.id, branch)
        from co_tui.governance.markers import register_markers
        from co_tui.governance.undo import CutRecord
        from co_tui.session.history import LedgerEntry

        register_markers(loaded.context)
        records = list(loaded.ledger_records) or [CutRecord() for _ in loaded.ledger]
        entries = tuple(
            LedgerEntry(event, position, record)
            for event, position, record in zip(loaded.ledger, loaded.ledger_positions, records, strict=False)
        )
        return BranchState(loaded.transcript, tuple(loaded.context), entries, tuple(loaded.pins), tuple(loaded.marks))

    def _tokens_after(self, state: BranchState, meter: Any = None) -> int:
        # The meter as it was then (a copy this process kept, for the same model), else one anchored
        # as a resume of that branch would be.
        if meter is not None and meter.model_name == self.setup.meter.model_name:
            meter = copy.copy(meter)
        else:
            meter = self.setup.new_meter()
            anchor_meter(meter, state.context, [e.position for e in state.entries], state.transcript)
        self._next_meter = meter
        return int(meter.reading(state.context).tokens)

    def _meter_of(self, branch: int) -> Any:
        return self._branch_meters.get(branch)

    def _branch_moved(self, left: int) -> None:
        if any(b.id == left for b in self.history.tree):  # not a dropped one (its id may be reused)
            self._branch_meters[left] = self.setup.meter
        else:
            self._branch_meters.pop(left, None)
        if self._next_meter is not None:
            self.setup.meter, self._next_meter = self._next_meter, None
        self._pins_changed()

    def _write_fork(self, state: BranchState | None, turns: int, title: str) -> str:
        store = self.store
        if store is None or not self.writer.created:
            from co_tui.session.branching import RewindRefused

            raise RewindRefused("nothing saved to fork yet: send a message first")
        if state is None:  # the branch as it is: saved (a rewind or fork waits for a failed save), copied row for row
            return store.fork_whole(self.id, title)
        new_id = uuid.uuid4().hex
        store.fork_session(
            self.id,
            new_id,
            transcript_len=len(state.transcript),
            ledger_len=len(state.entries),
            turns=turns,
            title=make_title(title),
        )
        snapshot = HistorySnapshot(
            state.transcript, len(state.transcript), state.context, state.entries, state.pins, state.marks
        )
        store.save_history(new_id, snapshot, model=self.model_name, tokens=self.meter.reading(state.context).tokens)
        return new_id

    def _checkpoint_rows(self) -> list[tuple[int, int, Any]]:
        if self.store is None:
            return []
        return self.store.branch_file_checkpoints(self.id)

    def _workspace_root(self) -> Path:
        return self.workspace

    def _stored_branches(self) -> dict[int, BranchRow] | None:
        if self.store is None or not self.writer.created:
            return None
        figures = self.store.branch_figures(self.id)
        from co_tui.session.branching import BranchRow

        tree = {b.id: b for b in self.history.tree}
        return {
            branch: BranchRow(tree[branch], False, turns, preview, updated)
            for branch, (turns, updated, preview) in figures.items()
            if branch in tree
        }

    def _save_turn(self, prompt: str | None, context: list[ModelMessage] | None = None) -> ErrorEvent | None:
        """Save a turn (`TurnRunner`'s `save`): what is new since the last save, and `context` instead
        of the history's (a step's checkpoint); a storage failure is reported, the session lives on."""
        if prompt and not self.title:
            self.title = make_title(prompt)
        error = self._write(self.history.snapshot(), context)
        return None if error is None else ErrorEvent(message=self._not_saved(error), kind="storage")

    def unsaved(self) -> bool:
        """Whether the store lacks part of this conversation: its last save failed (a damaged or
        unwritable database). The TUI then writes a rescue copy when it quits. Asks the store."""
        return self.writer.unsaved(self.history.snapshot(), self.id)

    def write_rescue_copy(self) -> Path | None:
        """After a failed save (a damaged or unwritable database), write the whole conversation as a
        JSON export (`--format json`, mode 600) beside the database, so a process about to exit
        (print mode) loses nothing. Returns the file, or None when it could not be written either."""
        return self.writer.write_rescue_copy(self.history.snapshot(), self._save_info())

    def export(self, fmt: str, where: Path | None = None) -> Path:
        """`/export`: the saved conversation as `fmt` in a new private file (`export.export_saved`;
        `where` None: the data dir's exports folder). Raises `ValueError` when nothing is saved,
        `StoreError`, `OSError`. Blocking."""
        if self.store is None or not self.writer.created:
            raise ValueError("nothing saved to export yet")
        return export_saved(self.store, self.id, fmt, where)

    def release_claim(self) -> None:
        """Let other processes open this session (the TUI switching away, `/clear`). Idempotent."""
        self.writer.release()

    # --- opening a saved one ---------------------------------------------------------------------

    @classmethod
    def resume(
        cls, settings: Settings, *, workspace: Path, store: SessionStore, session_id: str, **kwargs: Any
    ) -> ChatSession:
        """Reopen a saved session: transcript, context and ledger exactly as saved.

        Raises `StoreError` (one line) when the session cannot be read, and `SessionBusy` when
        another process has it open (claimed before loading, so no stale copy is ever saved over it).
        """
        claim = claim_session(store.path.parent, session_id)
        try:
            loaded = store.load(session_id, lazy=True)
            session = cls(settings, workspace=workspace, store=store, session_id=loaded.meta.id, **kwargs)
        except BaseException:
            claim.release()
            raise
        session.writer.hold(claim)
        session.title = loaded.meta.title
        session.history.load(loaded)
        session.setup.governance.set_pins(pin_keys(session.transcript, session.pins))
        session.metering.anchor_on_saved_usage()
        session.setup.restore_summarizer_cooldown(store.last_summary_failure(session.id))
        return session

    # --- start and close, replay, the commands: every front end's jobs (lifecycle.py, replay.py) ---

    def start(self, **options: Any) -> AsyncIterator[Event]:
        """`SessionLifecycle.start` (its options): the opening lines, and the MCP servers started."""
        return self.lifecycle.start(**options)

    async def aclose(self) -> Closing:
        """`SessionLifecycle.aclose`: MCP down, the rescue copy after a failed save, the claim let go."""
        return await self.lifecycle.aclose()

    def replay(self, entries: int | None = None) -> list[Item | HistoryTrimmed]:
        """`replay.replay`: the conversation as chat entries, banners at their cuts (newest `entries`)."""
        return replay(self, entries)
