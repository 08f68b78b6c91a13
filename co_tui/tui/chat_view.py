"""What the chat controller needs of the UI, in two parts: `ChatView`, what the chat screen shows
(`ChatScreen` implements it), and `ChatHost`, what only the app can do — run jobs and background
work, open dialogs, leave or switch sessions (`CoTuiApp` implements it).

Every method runs on the UI loop and returns once its change is made (the async ones once the
widgets are mounted); none reads the session: the controller passes what to show.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from co_tui.session import CutAnswer, Event, HistoryTrimmed, PlannedCut, SessionPort
    from co_tui.tui.transcript_view import Item

__all__ = ["ChatHost", "ChatView", "Job"]


class Job(Protocol):
    """A running job as the host started it (a Textual worker): it can be cancelled and awaited."""

    def cancel(self) -> None:
        """Stop the work (its coroutine gets `CancelledError`); returns without waiting for it."""
        ...

    async def wait(self) -> object:
        """Wait until the work has ended; returns its result, raises when it failed or was cancelled
        (Textual's `WorkerFailed`, `WorkerCancelled`)."""
        ...


class ChatView(Protocol):
    """What the controller shows on the chat screen (`ChatScreen`)."""

    def show_hint(self, text: str, *, info: bool = False) -> None:
        """Show `text` as the one-line hint under the prompt, replacing any hint (`info`: an
        informational line, not a refusal). It stays until `clear_hint` or the next hint."""
        ...

    def clear_hint(self) -> None:
        """Hide the hint line (a no-op when none is shown)."""
        ...

    async def show_event(self, event: Event) -> None:
        """Render one domain event of the closed union `co_tui.session.events.Event` in the chat:
        text deltas extend the answer being streamed (starting one if none); a tool call (a new
        tool row), a `HistoryTrimmed` (a banner), an error or oversized turn (an error line), a
        `Notice` and `Done` end that answer first; a tool result fills its call's row and a
        `UsageUpdate` moves the meter, the answer staying open. May raise on a display bug: the
        controller catches it (`_show_events`)."""
        ...

    async def end_answer(self) -> None:
        """Finish the answer being streamed, if any (its text is final); the next text delta starts
        a new answer. A no-op when no answer is open."""
        ...

    async def add_notice(self, text: str) -> None:
        """Append `text` as a dim informational line at the end of the chat log."""
        ...

    async def add_user_message(self, text: str, *, queued: bool = False) -> object:
        """Append a prompt the user sent to the chat log (`queued`: it waits to be sent and is
        shown as waiting; `unqueue_user_message` removes that copy)."""
        ...

    def mark_unsent(self, text: str) -> None:
        """The newest prompt `text` in the log was refused by the session (not sent): show it so."""
        ...

    async def unqueue_user_message(self, text: str) -> None:
        """Remove the queued copy of prompt `text`, if one is shown."""
        ...

    async def clear_log(self) -> None:
        """Empty the chat log (after /clear, or before another session is shown); an answer being
        streamed is finished first. The hint, queue, title and meter are left as they are."""
        ...

    def restore_prompt(self, text: str) -> None:
        """Put `text` back into the prompt (a prompt that was not sent: nothing typed is lost)."""
        ...

    def show_queue(self, texts: Sequence[str]) -> None:
        """Show the prompts waiting to be sent (none: hide them)."""
        ...

    async def show_items(
        self, items: list[Item], banners: Sequence[tuple[int, HistoryTrimmed]], *, entries: int | None = None
    ) -> None:
        """Show a saved conversation (a resume, a switch) in the log, in one mount.

        `items` are its entries, oldest first (`tui/transcript_view.py`); `banners` are (transcript
        position, `history_trimmed` event) pairs, each drawn before the first item that starts at
        or after its position, where the cut happened. `entries`: how many entries (items and
        banners) the whole conversation has when `items` are only its newest part; the log counts
        the rest as not shown. The screen may mount only the newest that fit and the rest later.
        """
        ...

    def show_truncated(self, tool_call_ids: frozenset[str]) -> None:
        """Mark these tool calls (by `tool_call_id`) `truncated`: the model now sees their output
        shortened. Ids with no tool row on screen are ignored; marks are never removed."""
        ...

    def show_session(self, session: SessionPort) -> None:
        """Title bar (model, title) and meter for `session` (none once the screen is being removed)."""
        ...

    def show_title(self, title: str) -> None:
        """Show `title` as the session's title in the title bar (empty: none yet)."""
        ...


class ChatHost(Protocol):
    """What the controller needs of the app (`CoTuiApp`): work apart from the caller, dialogs, and
    the session's lifetime."""

    def start_job(self, work: Coroutine[Any, Any, None]) -> Job:
        """Run `work` on the UI loop, apart from the caller (the one job at a time)."""
        ...

    def spawn(self, work: Coroutine[Any, Any, object]) -> None:
        """Run short UI-loop `work` (an export waiting for its thread) apart from the caller."""
        ...

    def run_in_background(self, work: Coroutine[Any, Any, None]) -> Job:
        """Run long-lived `work` (the MCP servers' supervisor) until it ends or the app closes."""
        ...

    def busy_changed(self, label: str | None) -> None:
        """A job started (`label` says what runs) or ended (None)."""
        ...

    def fail_to_start(self, message: str, exit_code: int) -> None:
        """No session could open at start-up: leave with `message`."""
        ...

    def open_saved(self, session_id: str) -> None:
        """Open saved session `session_id` in place of the current one (a fork just made)."""
        ...

    def mcp_changed(self, events: Sequence[Event]) -> None:
        """An MCP server's status changed (its schemas join or leave the meter's figure): show
        `events`, its lines (none for a plain start)."""
        ...

    def ask_cut(self, plan: PlannedCut, prompt: str, answered: Callable[[CutAnswer | None], None]) -> None:
        """`compact_mode` ask: show the cut sending `prompt` would make (the ask dialog) and call
        `answered` with the user's answer (None: the send is cancelled). Returns at once."""
        ...

    def inspect(self, closed: Callable[[], None]) -> None:
        """Open the history inspector (to pin or evict) and call `closed` once it is closed."""
        ...
