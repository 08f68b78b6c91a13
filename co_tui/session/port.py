"""The session port: everything a front end (the TUI, print mode, a test fake) may use of a session.

`ChatSession` implements it; so does the TUI tests' `FakeSession`, and one conformance suite
(tests/test_session_port.py) holds both to it. A front end reads the histories as
read-only views and changes the session only through the operations; the events it renders form
the closed union `co_tui.session.events.Event`, matched by class. See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from co_tui.agent.project_instructions import InstructionFile
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.session.context_breakdown import ContextBreakdown
    from co_tui.session.events import Event, UsageUpdate


class HistoryView(Protocol):
    """The read-only views of a session's histories: what the history inspector lays out
    (tui/screens/history.py), and part of every `SessionPort`.

    `transcript` (everything), `context` (what the model is sent next), `ledger` (every cut) with
    `ledger_positions` (transcript length at each cut), as read-only sequences; the meter's figure;
    the pinned turns and the cuts `restore` can undo.
    """

    @property
    def transcript(self) -> Sequence[Any]: ...

    @property
    def context(self) -> Sequence[Any]: ...

    @property
    def ledger(self) -> Sequence[HistoryTrimmed]: ...

    @property
    def ledger_positions(self) -> Sequence[int]: ...

    def meter_reading(self) -> UsageUpdate:
        """The meter's figure for `context` (what the model is sent next)."""
        ...

    @property
    def pins(self) -> Sequence[int]:
        """Transcript indices of the pinned turns' user prompts."""
        ...

    def undoable_cuts(self) -> list[int]:
        """Ledger indices (0-based, oldest first) of the cuts still in effect that `restore` can undo."""
        ...


@runtime_checkable
class SessionPort(HistoryView, Protocol):
    """What a front end may use of a session (see module docstring).

    Views: `id`, `title`, `model_name`, `is_offline`, `busy` (a turn or compaction runs), `store`
    (where it is saved, None when it is not: the sessions picker lists that store), and the
    histories (`HistoryView`).
    """

    @property
    def id(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def model_name(self) -> str: ...

    @property
    def is_offline(self) -> bool: ...

    @property
    def busy(self) -> bool: ...

    @property
    def store(self) -> Any: ...

    def run_turn(self, prompt: str) -> AsyncIterator[Event]:
        """Run one user turn; yield its events, always ending with `Done`; never raises."""
        ...

    def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """Summarise the context (`/compact [focus]`); events end with `Done`; never raises.
        Cancelling the consuming task leaves the context as it was and the session idle."""
        ...

    def cancel(self) -> None:
        """Interrupt the running turn (the partial answer is kept); a no-op when idle."""
        ...

    def clear_preview(self) -> HistoryTrimmed:
        """The event `clear` would emit now (the confirmation shows the banner's own figures)."""
        ...

    def clear(self) -> HistoryTrimmed:
        """Start afresh under a new id (the old conversation stays saved); returns the `clear`
        event. Blocking (it saves): front ends call it off their UI loop. Raises when busy."""
        ...

    def release_claim(self) -> None:
        """Let other processes open this session (a front end switching away). Idempotent."""
        ...

    def set_model(self, name: str) -> None:
        """Use model `name` for the following turns; raises with one line when it is unknown."""
        ...

    def evict(self, index: int) -> HistoryTrimmed:
        """Remove context message `index`'s tool output, or its whole older turn, from the context
        (never the transcript), leaving a marker naming it; returns the recorded `manual_evict`
        event. Raises `ValueError` with one line when refused (the newest turn, a marker, busy).
        Blocking (it saves): front ends call it off their UI loop."""
        ...

    def next_cut(self) -> Any:
        """What the next automatic cut would remove or summarise (`co_tui.governance.next_cut.NextCut`:
        `.kind`, `.reason`, `.going` context indices), or None when the next send goes out uncut.
        The policy's own rules; no model call."""
        ...

    def compact_preview(self) -> HistoryTrimmed | None:
        """What `/compact` would summarise now and the estimated size after (None: nothing to)."""
        ...

    @property
    def instruction_files(self) -> Sequence[InstructionFile]:
        """The project instruction files (AGENTS.md …) sent with every request now; a file that
        could not be read is listed with its one-line `error`. Empty when none (or turned off)."""
        ...

    def context_breakdown(self) -> ContextBreakdown:
        """What the next request holds by category (`/context`); the rows add up to
        `meter_reading().context_tokens` whenever the context holds messages."""
        ...

    # --- steering the context (docs/context-governance.md, "Undo a cut" and "Pins"); `pins` and
    # `undoable_cuts` are read-only views, in `HistoryView` ---------------------------------------

    async def restore(self, cut: int | None = None) -> HistoryTrimmed:
        """`/undo`, `u`: undo the newest cut still in effect, or ledger entry `cut` and every cut after
        it; returns the `restore` event (in the ledger, saved). Raises `UndoRefused` (one line)."""
        ...

    def toggle_pin(self, index: int) -> Any:
        """`p`: pin (again: unpin) the turn holding transcript message `index`; returns a `PinChange`
        (its `describe()` is the line to show). Raises `PinRefused` (one line). Blocking (one row)."""
        ...

    def pin_newest(self) -> Any:
        """`/pin`: pin the newest turn; returns a `PinChange`. Raises `PinRefused` (one line)."""
        ...

    @property
    def mcp(self) -> Any:
        """The session's MCP servers (`co_tui.agent.mcp_servers.McpServers`, falsy when none are
        configured): the front end starts them after its first paint (`run`) and lists them (/mcp)."""
        ...

    def salvage(self, item: str, cut: int | None = None) -> HistoryTrimmed:
        """`r` on a summary banner: bring `item` — a path, name or number on the lost list of ledger
        entry `cut` (0-based; None: the newest summary that lost it) — back as a short verbatim
        excerpt of the summarised messages, appended at the end of the context; returns the `restore`
        event (`salvaged_item` set; in the ledger, saved; `/undo` takes it back out). Raises
        `ValueError` with one line when refused. Blocking (it saves): call it off the UI loop."""
        ...

    def conversation_counts(self) -> Any:
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


__all__ = ["HistoryView", "SessionPort"]
