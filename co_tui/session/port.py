"""The session port: everything a front end (the TUI, print mode, a test fake) may use of a session,
as role-sized protocols — `Turns`, `HistoryView`, `ContextSteering`, `SessionInfo`, `Lifecycle` — whose
union is `SessionPort`.

`ChatSession` implements it; so does the TUI tests' `FakeSession`, and one conformance suite
(tests/test_session_port.py) holds both to it. A front end reads the histories as
read-only views and changes the session only through the operations; the events it renders form
the closed union `co_tui.session.events.Event`, matched by class. See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from co_tui.governance.refused import Refused

if TYPE_CHECKING:
    from pathlib import Path

    from co_tui.agent.mcp_servers import McpServers
    from co_tui.agent.mentions import Attachments
    from co_tui.agent.project_instructions import InstructionFile
    from co_tui.governance.compact_mode import CompactMode, SendChoice
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.governance.next_cut import NextCut
    from co_tui.session.approvals import Approvals
    from co_tui.session.ask_cut import PlannedCut
    from co_tui.session.branching import BranchRow, RewindPoint, Rewound
    from co_tui.session.context_breakdown import ContextBreakdown
    from co_tui.session.conversation_counts import ConversationCounts
    from co_tui.session.events import Event, UsageUpdate
    from co_tui.session.file_rewind import FilesBack
    from co_tui.session.lifecycle_types import Closing, Spawn
    from co_tui.session.memory import Memory
    from co_tui.session.pin_change import PinChange
    from co_tui.session.replay_items import Item
    from co_tui.session.saved_session import SessionHit, SessionMeta
    from co_tui.session.subagent_replay import SubagentsUsage


class HistoryView(Protocol):
    """The read-only views of a session's histories: what the history inspector lays out
    (tui/screens/history.py), and part of every `SessionPort`.

    `transcript` (everything), `context` (what the model is sent next), `ledger` (every cut) with
    `ledger_positions` (transcript length at each cut), as read-only sequences; the meter's figure;
    the pinned turns and the cuts `restore` can undo.
    """

    @property
    def transcript(self) -> Sequence[Any]:
        """Every message that happened, oldest first: append-only, originals only (governance never
        rewrites it). A resumed session's saved messages are decoded from the database when first
        read (`LazyTranscript`): blocking, and raises `StoreCorrupt` for a damaged row."""
        ...

    @property
    def context(self) -> Sequence[Any]:
        """What the model is sent next (pydantic-ai messages): the transcript as governance left it,
        with its cuts, summaries and markers. In memory: reading it never blocks."""
        ...

    @property
    def ledger(self) -> Sequence[HistoryTrimmed]:
        """This session's `history_trimmed` events, oldest first: its cuts, summaries, evictions and
        restores (`clear` starts a new session with an empty ledger). In memory."""
        ...

    @property
    def ledger_positions(self) -> Sequence[int]:
        """For each `ledger` entry, the transcript's length when it happened (where its banner goes
        in the chat log); as long as `ledger`."""
        ...

    def meter_reading(self) -> UsageUpdate:
        """The meter's figure for `context` (what the model is sent next)."""
        ...

    @property
    def pins(self) -> Sequence[int]:
        """Transcript indices of the pinned turns' user prompts."""
        ...

    def replay(self, entries: int | None = None) -> list[Item | HistoryTrimmed]:
        """The conversation (the branch in use) as a front end shows it: `co_tui.session.replay_items.Item`s
        in order, each `history_trimmed` banner before the first item at or after its cut; the newest
        `entries` only, or all (None). Blocking for a resumed session (its messages are decoded)."""
        ...

    def undoable_cuts(self) -> list[int]:
        """Ledger indices (0-based, oldest first) of the cuts still in effect that `restore` can undo."""
        ...

    def cut_pass(self, index: int) -> tuple[int, int]:
        """(first, last): the ledger indices (0-based) of the pass ledger entry `index` belongs to —
        the events one policy pass made, which share the context it started from and are undone
        together; `(index, index)` for a pass of one event."""
        ...


class SessionCatalog(Protocol):
    """The saved sessions, as the sessions picker (tui/screens/sessions.py) uses them; a
    `SessionStore` is one. Every call reads or writes the database: blocking. Failures raise
    `StoreError` with one line."""

    def list_sessions(self, workspace: Path | None = None) -> list[SessionMeta]:
        """Every session (or those of `workspace`), most recently updated first."""
        ...

    def search(self, query: str, workspace: Path | None = None) -> list[SessionHit]:
        """The sessions (of `workspace`, or all) whose title or saved text matches `query`'s words,
        most recently updated first, each with a snippet of its newest matching message. Any text
        is a valid query (its words are quoted); one without words finds nothing."""
        ...

    def preview(self, session_id: str) -> str:
        """One line for the picker: the session's newest prompt (or its one answer)."""
        ...

    def check(self, session_id: str) -> None:
        """Read the session as a resume reads it — its context, its newest messages, its ledger —
        without decoding all of it (the picker checks before switching, so a damaged one is caught
        there). Raises `StoreCorrupt` for damage it meets."""
        ...

    def delete_refusal(self, session_id: str) -> str | None:
        """The line `delete` would refuse with now (open in another process), else None."""
        ...

    def delete(self, session_id: str) -> None:
        """Remove the session, its messages and its ledger."""
        ...


class Turns(Protocol):
    """The turns: run one, compact, interrupt; `busy` while one runs (the chat screen's job). In
    `compact_mode` ask a front end first asks `plan_send` and passes the user's choice to `run_turn`."""

    @property
    def busy(self) -> bool:
        """Whether a turn or a compaction is running (operations that change the history refuse then)."""
        ...

    def plan_send(self, prompt: str) -> PlannedCut | None:
        """In `compact_mode` ask: the cut sending `prompt` now would make (`co_tui.session.ask_cut.
        PlannedCut`: what goes, what stays, the figures, the prompt-cache cost), for the user to
        decide before anything is sent. None in the other modes, or when the send goes out uncut.
        The policy's own rules; no model call; changes nothing."""
        ...

    def run_turn(self, prompt: str, choice: SendChoice | None = None) -> AsyncIterator[Event]:
        """Run one user turn; yield its events, always ending with `Done`; never raises. The `@path`
        mentions in `prompt` attach their files (`attachments`), said first in `Notice`s. `choice`:
        the user's answer to `plan_send` in `compact_mode` ask — `cut` as planned, or `over_budget`
        once (no cut before this send; a request past the model's known window is cut all the same,
        said in one line). None: nothing was asked (in ask, then, no cut below the window)."""
        ...

    def run_user_shell(self, command: str) -> AsyncIterator[Event]:
        """`!command` typed in the prompt: asked about as the agent's `run_shell` is (the session's
        approver), run in the workspace, its output added to the context as a `user_shell` call and
        result (session/user_shell.py). Yields a `ToolCall`, a `ToolResult`, the meter and `Done`
        (`interrupted` after `cancel`: the process group is killed, the output so far kept); not
        approved: a `Notice` and `Done(failed=True)`, nothing added. Never raises."""
        ...

    def attachments(self, prompt: str) -> Attachments:
        """What the `@path` mentions of `prompt` would attach if it were sent now
        (`co_tui.agent.mentions.Attachments`: the files and folders, the problems, `tokens` in the
        meter's figures): the meter shows it before sending; `run_turn` attaches the same and says
        so in `Notice`s. Reads the files: blocking, so front ends call it off their UI loop."""
        ...

    def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """Summarise the context (`/compact [focus]`); events end with `Done`; never raises.
        Cancelling the consuming task leaves the context as it was and the session idle."""
        ...

    def cancel(self) -> None:
        """Interrupt the running turn (the partial answer is kept) or `!command`; a no-op when idle."""
        ...


class ContextSteering(Protocol):
    """ContextSteering the context (docs/context-governance.md, "Undo a cut", "Pins", "Evict"): the
    inspector's and the banner's keys, /undo, /pin, /clear. Every operation is applied the same way:
    in memory at once, saved in a thread; a failed save is said in its line (its event's note, a
    `PinChange`'s `note`), never raised; a refusal raises `Refused` with one line."""

    async def evict(self, index: int) -> HistoryTrimmed:
        """Remove context message `index`'s tool output, or its whole older turn, from the context
        (never the transcript), leaving a marker naming it; returns the recorded `manual_evict`
        event (in the ledger; saved in a thread, a failed save said in its note). Raises `Refused`
        with one line (the newest turn, a marker, busy)."""
        ...

    async def undo(self, cut: int | None = None) -> HistoryTrimmed:
        """`/undo`, `u`: undo the newest cut still in effect, or ledger entry `cut` and every cut after
        it; returns the `restore` event (in the ledger, saved). Raises `UndoRefused` (a `Refused`)."""
        ...

    async def toggle_pin(self, index: int) -> PinChange:
        """`p`: pin (again: unpin) the turn holding transcript message `index`; returns a `PinChange`
        (its `describe()` is the line to show). Raises `PinRefused` (a `Refused`)."""
        ...

    async def pin_newest(self) -> PinChange:
        """`/pin`: pin the newest turn; returns a `PinChange`. Raises `PinRefused` (a `Refused`)."""
        ...

    async def recover(self, item: str, cut: int | None = None) -> HistoryTrimmed:
        """`r` on a summary banner: bring `item` — a path, name or number on the lost list of ledger
        entry `cut` (0-based; None: the newest summary that lost it) — back as a short verbatim
        excerpt of the summarised messages, appended at the end of the context; returns the `restore`
        event (`salvaged_item` set; in the ledger, saved; `/undo` takes it back out). Raises
        `RecoverRefused` (a `Refused`) with one line."""
        ...

    def rewind_points(self) -> list[RewindPoint]:
        """The earlier prompts of the branch in use, newest first (`co_tui.session.branching.RewindPoint`:
        `.turn`, `.position`, `.text`, `.created`, `.tokens` — the meter's figure then —, `.restorable`).
        Blocking (a resumed session's saved prompts are decoded): call it off the UI loop."""
        ...

    async def rewind(self, position: int) -> Rewound:
        """Esc Esc, `/rewind`: go back to just before the prompt at transcript index `position` — the
        context, the ledger (later cuts no longer in effect), the pins and the meter exactly as the
        model had them then — on a new branch; the turns after it stay saved as the branch left.
        Returns `Rewound` (`.event`, reason `rewind`, in the ledger; `.prompt`, the text to edit).
        Raises `Refused` (one line): busy, unsaved, a prompt saved before marks were kept."""
        ...

    async def fork(self, position: int | None = None, title: str | None = None) -> str:
        """`/fork [title]`, `f` in the rewind picker: a new saved session holding this branch as it is
        now (`position` None) or as it was just before the prompt at transcript index `position`
        (its context exactly as the model had it then), marked as forked from this one (`SessionMeta.
        forked_from`); this session is not changed. Returns the new id. Raises `Refused` (one line)."""
        ...

    def files_back(self, position: int) -> FilesBack:
        """What a rewind to the prompt at `position` could put back of the files the agent edited
        (`write_file`, `edit_file`) after it: `co_tui.session.file_rewind.FilesBack` (`.describe()` is
        the picker's line). Changes made by `run_shell` or MCP tools are never among them. Blocking."""
        ...

    async def put_files_back(self, position: int, *, overwrite: bool = False) -> str:
        """Put those files back as they were before the prompt at `position`; a file changed on disk
        since the agent's edit stays as it is unless `overwrite`. Returns one line. Raises `Refused`."""
        ...

    def branches(self) -> list[BranchRow]:
        """The conversation tree, one `co_tui.session.branching.BranchRow` per branch (its parent and
        fork point, turns, last prompt, age; `.active` for the one in use). Blocking."""
        ...

    async def switch_branch(self, branch: int) -> HistoryTrimmed:
        """Make branch `branch` the one in use, its history exactly as it was left; returns the
        `branch_switch` event (in the ledger, saved). Raises `Refused` (one line)."""
        ...

    def clear_preview(self) -> HistoryTrimmed:
        """The event `clear` would emit now (the confirmation shows the banner's own figures)."""
        ...

    async def clear(self) -> HistoryTrimmed:
        """Start afresh under a new id (the old conversation stays saved; when that save fails, in
        a rescue copy the event's note names); returns the `clear` event. Saves in a thread. Raises
        `Refused` (one line) when busy, or when the old conversation could be neither saved nor
        rescued (then nothing is cleared)."""
        ...

    def next_cut(self) -> NextCut | None:
        """What the next automatic cut would remove or summarise (`co_tui.governance.next_cut.NextCut`:
        `.kind`, `.reason`, `.going` context indices), or None when the next send goes out uncut
        (always in `compact_mode` off).
        The policy's own rules; no model call."""
        ...

    def compact_preview(self) -> HistoryTrimmed | None:
        """What `/compact` would summarise now and the estimated size after (None: nothing to)."""
        ...


class SessionInfo(Protocol):
    """What the title bar, /context, /mcp and the sessions picker show of a session."""

    @property
    def id(self) -> str:
        """The session id (its key in the database); `clear` gives the session a new one."""
        ...

    @property
    def title(self) -> str:
        """The first user prompt on one line (`make_title`); "" until there is one."""
        ...

    @property
    def model_name(self) -> str:
        """The model the next turn uses, as configured (`provider:model`, or `offline`)."""
        ...

    @property
    def is_offline(self) -> bool:
        """Whether that model is the built-in offline one (no API key, no network)."""
        ...

    @property
    def saved(self) -> bool:
        """Whether the conversation is kept in a session database (False: nothing is saved — then
        there is nothing to resume or export)."""
        ...

    @property
    def instruction_files(self) -> Sequence[InstructionFile]:
        """The project instruction files (AGENTS.md …) sent with every request now; a file that
        could not be read is listed with its one-line `error`. Empty when none (or turned off)."""
        ...

    @property
    def memory(self) -> Memory:
        """The user's memory (`co_tui.session.memory.Memory`): the notes with their file and line,
        `remember` (asks the approvals first), `edit`, `delete`; sent with the instructions."""
        ...

    @property
    def mcp(self) -> McpServers:
        """The session's MCP servers (`co_tui.agent.mcp_servers.McpServers`, falsy when none are
        configured): the front end starts them after its first paint (`run`) and lists them (/mcp)."""
        ...

    def agents_listing(self) -> list[str]:
        """`/agents`: one line per agent the `delegate` tool offers (name, where it came from,
        tools, description) and one per definition file refused, with why (docs/subagents.md)."""
        ...

    def context_breakdown(self) -> ContextBreakdown:
        """What the next request holds by category (`/context`); the rows add up to
        `meter_reading().context_tokens` whenever the context holds messages."""
        ...

    def subagents_usage(self) -> SubagentsUsage:
        """What the subagents of this conversation used in their own contexts (`/context` counts it
        apart from the main context). Reads the whole transcript: blocking, call it in a thread."""
        ...

    def conversation_counts(self) -> ConversationCounts:
        """The whole transcript's turns and chat-log items
        (`co_tui.session.conversation_counts.ConversationCounts`: `.messages`, `.turns`, `.items`),
        without decoding the saved messages of a resumed session (the store keeps their counts)."""
        ...

    @property
    def data_dir_warning(self) -> str | None:
        """One line when the data dir the session is saved in is readable by other users
        (docs/configuration.md), else None: the front end shows it once (print mode on stderr, the
        TUI in the chat once the session is ready)."""
        ...

    @property
    def catalog(self) -> SessionCatalog | None:
        """The session database this session is saved in, as the sessions picker lists it (None:
        not saved). Opening a session picked from it reuses it (`open_session(store=…)`)."""
        ...


class Lifecycle(Protocol):
    """Switching models (and who cuts the context), letting go of the session, exporting it, and
    what a front end about to exit does after a failed save."""

    def set_model(self, name: str) -> None:
        """Use model `name` for the following turns; raises with one line when it is unknown."""
        ...

    @property
    def compact_mode(self) -> CompactMode:
        """Who decides when the context is cut: `auto` (the policy, at the budget), `ask` (the user,
        before a send that would cut: `plan_send`) or `off` (only /compact, /clear and overflow
        recovery); governance/compact_mode.py."""
        ...

    def set_compact_mode(self, mode: CompactMode) -> None:
        """Switch `compact_mode` for this session, from the next request on."""
        ...

    def release_claim(self) -> None:
        """Let other processes open this session (a front end switching away). Idempotent."""
        ...

    def export(self, fmt: str, where: Path | None = None) -> Path:
        """`/export`: write the saved conversation as `fmt` (one of `session.export.FORMATS`) to a
        new file, mode 600, never over an existing one (`session.export.write_export`): `where` None
        is the data dir's exports folder, an existing directory gets the default name. Returns the
        file. Raises `ValueError` (one line) when nothing is saved, `StoreError` or `OSError`.
        Blocking (it reads the database and writes the file): front ends call it off their UI loop."""
        ...

    def unsaved(self) -> bool:
        """Whether the database lacks part of this conversation (its last save failed): a front end
        about to exit writes a rescue copy (`write_rescue_copy`) instead of offering to resume it."""
        ...

    def write_rescue_copy(self) -> Path | None:
        """Write the whole conversation as a `--format json` export (mode 600) beside the database;
        returns the file, or None when it could not be written either (or there is nothing to keep)."""
        ...

    def start(
        self,
        *,
        data_dir: bool = True,
        announce: bool = True,
        wait_for_mcp: bool = False,
        on_mcp: Callable[[Sequence[Event]], None] | None = None,
        spawn: Spawn | None = None,
    ) -> AsyncIterator[Event]:
        """What a front end says as the session opens, and its MCP servers started
        (`co_tui.session.lifecycle.SessionLifecycle.start`: the data dir's warning, the instructions,
        a malformed `.mcp.json`; each server's news until all are up with `wait_for_mcp`, to `on_mcp`
        after; `spawn` runs the servers' supervisor). Never raises."""
        ...

    async def aclose(self) -> Closing:
        """Close the session for a front end about to exit or switch away: the MCP servers stopped,
        a rescue copy after a failed save, the claim let go; returns the lines to say (`Closing`)."""
        ...

    @property
    def approvals(self) -> Approvals | None:
        """The session's approvals (`co_tui.session.approvals.Approvals`: the front end's `ask` and
        the "always allow" grants, which `/permissions` lists); None when nobody can be asked."""
        ...


@runtime_checkable
class SessionPort(Turns, HistoryView, ContextSteering, SessionInfo, Lifecycle, Protocol):
    """What a front end may use of a session: the union of its roles (see module docstring). A
    screen that needs one role takes that protocol (the history inspector takes `HistoryView`)."""


__all__ = [
    "HistoryView",
    "Lifecycle",
    "Refused",
    "SessionCatalog",
    "SessionInfo",
    "SessionPort",
    "ContextSteering",
    "Turns",
]
