"""The chat screen: renders the session's domain events as widgets; posts the user's intents.

It holds no session logic: the controller (co_tui/tui/controller.py) runs turns and hands their
events here in order; this screen maps each one to a widget (`show_event`). It is the controller's
`ChatView` (tui/chat_view.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from time import perf_counter
from typing import TYPE_CHECKING, Any, assert_never

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

import co_tui.session as domain  # its event classes resolve at first use: importing it loads nothing
from co_tui.text import screen_text
from co_tui.tui.commands import KEYS, binding_action
from co_tui.tui.frame_budget import FrameBudget
from co_tui.tui.input_clock import KeyClock
from co_tui.tui.key_echo import KeyEcho
from co_tui.tui.messages import SessionEvent
from co_tui.tui.widgets.activity_indicator import ActivityIndicator
from co_tui.tui.widgets.chat_log import ChatLog
from co_tui.tui.widgets.context_meter import ContextMeter
from co_tui.tui.widgets.key_footer import KeyFooter
from co_tui.tui.widgets.notice_line import NoticeLine
from co_tui.tui.widgets.path_popup import PathPopup
from co_tui.tui.widgets.prompt_input import PromptInput
from co_tui.tui.widgets.queued_prompts import QueuedPrompts
from co_tui.tui.widgets.slash_popup import SlashPopup
from co_tui.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from pathlib import Path

    from co_tui.session import Event, SessionPort
    from co_tui.tui.transcript_view import Item
    from co_tui.tui.widgets.assistant_message import AssistantMessage
    from co_tui.tui.widgets.subagent_block import SubagentBlock
    from co_tui.tui.widgets.tool_call_block import ToolCallBlock
    from co_tui.tui.widgets.user_message import UserMessage

# AssistantMessage and TrimBanner bring Textual's Markdown and markdown-it (~60 ms): imported when a
# first answer, banner or resumed conversation needs them, not before the first frame. So are the
# other entries of the log (prompts, tool rows, subagents, errors), the session's event classes
# (dataclasses, with the agent's error kinds) and the replay of a resumed conversation: the first
# frame shows none of them (tests/test_start_up_imports.py; docs/performance.md, "Start-up in tmux").


class ChatScreen(Screen[None]):
    """Title bar, chat log, activity line, prompt with slash popup and hint, context meter, footer."""

    CSS_PATH = "chat.tcss"
    AUTO_FOCUS = "PromptInput"
    BINDINGS = [
        Binding(k.key, binding_action(k.action), k.description, show=k.show, priority=k.priority, id=k.action)
        for k in KEYS
        if k.action != "command_palette"  # Textual binds the palette itself (App.COMMAND_PALETTE_BINDING)
    ]

    def __init__(self, key_clock: KeyClock, workspace: Path | None = None) -> None:
        """`key_clock`: the app's key timings (the prompt notes its keys there, this screen's
        frames read them); the screen owns its layout budget and key echo (tui/key_echo.py).
        `workspace`: where `@path` completes (None: no completion)."""
        super().__init__()
        self.key_clock = key_clock
        self.workspace = workspace
        self._path_index: list[str] | None = None  # the workspace's paths for the mention being typed
        self.frame_budget = FrameBudget()
        self.key_echo = KeyEcho(key_clock)
        self._assistant: AssistantMessage | None = None  # the answer being streamed (its first segment)
        self._tools: dict[str, ToolCallBlock] = {}  # tool_call_id -> block, for results and badges
        self._subagents: dict[str, SubagentBlock] = {}  # delegation (its `delegate` call's id) -> block
        # A resumed conversation's entries above the first screen, built but mounted once the
        # session is ready (`mount_earlier`): one widget group per entry, oldest first.
        self._earlier: list[list[Widget]] = []
        # Made in `compose`, mounted when one first opens or once the session is ready (`mount_popups`).
        self._popups: tuple[SlashPopup, PathPopup] | None = None
        self._start_up_finished = False  # `finish_start_up` has run

    def compose(self) -> ComposeResult:
        """Top to bottom: title bar, chat log, activity line, queued prompts, prompt (with its slash
        and path popups, mounted later: `mount_popups`), hint line, meter, keys."""
        popup = SlashPopup(id="slash-popup")
        paths = PathPopup(self._complete_path if self.workspace is not None else None, id="path-popup")
        self._popups = (popup, paths)
        yield TitleBar(id="title-bar")
        yield ChatLog(id="chat-log")
        yield Static(id="below-hint")
        yield ActivityIndicator(self.frame_budget, id="activity")
        yield QueuedPrompts(id="queued")
        yield PromptInput(popup, self.key_clock, paths=paths, echo=self._echo_typed_key, id="prompt")
        yield Static(id="hint")
        yield ContextMeter(id="meter")
        yield KeyFooter(held=True)  # its keys show with the session (`finish_start_up`)

    async def finish_start_up(self) -> None:
        """Once the session is ready and on screen (`SessionOpening.ready`): what the screen held back
        until then so as not to compete with the session's worker (it imports pydantic-ai) for the
        interpreter lock — the footer's keys (their first rebuild and layout, ~20 ms of the UI
        thread) and the prompt's popups (`mount_popups`). Later calls do nothing."""
        self.query_one(KeyFooter).show_keys()
        await self.mount_popups()
        self._start_up_finished = True

    @property
    def start_up_finished(self) -> bool:
        """`finish_start_up` has run: the footer's keys are coming and the popups are mounted."""
        return self._start_up_finished

    async def mount_popups(self) -> None:
        """Mount the prompt's slash and path popups under it, once (later calls do nothing).

        They are hidden until a `/` or an `@` is typed, and the prompt drives them whether they are
        mounted or not (what was typed before fills them; they show as they mount). So they are
        mounted when one first opens (`_popup_opened`) or once the session is ready
        (`finish_start_up`), whichever comes first: mounted in `compose`, their lists and
        styles were ~2% of the CPU time to the first frame, and mounted right after it, ~8 ms of the
        UI thread while the session's worker imports pydantic-ai under the same interpreter lock."""
        popups, self._popups = self._popups, None
        if popups is not None and self.is_attached and not self._pruning:
            await self.mount(*popups, after=self.prompt)

    @on(PromptInput.Changed)
    @on(PromptInput.SelectionChanged)
    async def _popup_opened(self) -> None:
        # A `/` or `@` typed (or the cursor moved after an `@…`) before the popups were mounted.
        if self._popups is not None and any(popup.is_open for popup in self._popups):
            await self.mount_popups()

    def _complete_path(self, fragment: str) -> list[str]:
        """The workspace paths for `@fragment` (agent/mentions.py: confined as read_file is). The
        walk below the root is made once per mention, when its `@` is typed (a fragment still empty),
        and filtered at each key after it: a key costs milliseconds, not a walk."""
        from co_tui.session import complete_paths, walk_index

        assert self.workspace is not None
        if self._path_index is None or not fragment:
            self._path_index = walk_index(self.workspace)
        return complete_paths(self.workspace, fragment, index=self._path_index)

    # --- parts -----------------------------------------------------------------------------------

    @property
    def log_view(self) -> ChatLog:
        """The chat log."""
        return self.query_one(ChatLog)

    @property
    def prompt(self) -> PromptInput:
        """The prompt input."""
        return self.query_one(PromptInput)

    @property
    def queue_strip(self) -> QueuedPrompts:
        """The prompts waiting to be sent, above the input."""
        return self.query_one(QueuedPrompts)

    @property
    def meter(self) -> ContextMeter:
        """The context meter."""
        return self.query_one(ContextMeter)

    @property
    def title_bar(self) -> TitleBar:
        """The title bar."""
        return self.query_one(TitleBar)

    @property
    def activity(self) -> ActivityIndicator:
        """The progress line shown while a turn or compaction runs."""
        return self.query_one(ActivityIndicator)

    def show_hint(self, text: str, *, info: bool = False) -> None:
        """An inline line under the prompt (unknown command, busy…); cleared by `clear_hint`."""
        hint = self.query_one("#hint", Static)
        hint.update(Content(screen_text(text)))  # may name a tool or a file the model chose
        hint.set_class(bool(text), "-shown")
        hint.set_class(info, "-info")

    def clear_hint(self) -> None:
        """Hide the hint line."""
        self.show_hint("")

    @property
    def gone(self) -> bool:
        """Not on screen (not mounted yet, or removed) or being removed: the app is shutting down, and
        a worker's news came too late. Shutting down prunes each screen over several awaits,
        flagging it first: its widgets (the title bar, the meter) may already be removed. The app
        stops running before any of that, so a handler that resumes once shutting down has begun
        (a session that finished opening as the app quit) sees it gone too."""
        return not self.is_attached or self._pruning or not self.app.is_running

    def restore_prompt(self, text: str) -> None:
        """`ChatView.restore_prompt`: `text` goes first, anything typed since stays after it."""
        typed = self.prompt.text.strip()
        self.prompt.restore(f"{text}\n\n{typed}" if typed else text)

    def show_queue(self, texts: Sequence[str]) -> None:
        """`ChatView.show_queue`: the strip above the input."""
        self.queue_strip.show(texts)

    def show_session(self, session: SessionPort) -> None:
        """`ChatView.show_session`: the title bar and the meter's reading (none once the screen is
        being removed: the controller's awaits before it may outlast the app)."""
        if not self.gone:
            self.show_model(session)
            self.meter.reading = session.meter_reading()

    def show_model(self, session: SessionPort) -> None:
        """The title bar: `session`'s model, whether it is the offline one, and its title."""
        bar = self.title_bar
        bar.model_name = session.model_name
        bar.offline = bool(session.is_offline)
        bar.session_title = session.title

    def show_title(self, title: str) -> None:
        """`ChatView.show_title`: the session's title in the title bar (none once the screen goes)."""
        if not self.gone:
            self.title_bar.session_title = title

    def on_chat_log_following(self, message: ChatLog.Following) -> None:
        """Under the log while it does not follow the end: there is more below, and how to get there."""
        hint = self.query_one("#below-hint", Static)
        if message.following:
            hint.display = False
            return
        what = "new output below" if message.new_below else "more below"
        hint.update(Content(f"↓ {what} · ctrl+end or a click jumps to the end"))
        hint.set_class(message.new_below, "-new")
        hint.display = True

    def on_click(self, event: events.Click) -> None:
        """A click on the line under the log jumps to the end."""
        if event.widget is not None and event.widget.id == "below-hint":
            self.log_view.scroll_to_end()

    @on(PromptInput.Changed)
    def _typing_clears_hint(self) -> None:
        if self.query_one("#hint").has_class("-shown") and self.prompt.text:
            self.clear_hint()

    # --- rendering -------------------------------------------------------------------------------

    async def add_user_message(self, text: str, *, queued: bool = False) -> UserMessage:
        """Show a prompt the user sent."""
        from co_tui.tui.widgets.user_message import UserMessage

        widget = UserMessage(text, queued=queued)
        self.log_view.scroll_to_end()  # sending follows the conversation again, as in Claude Code
        await self.log_view.add(widget)
        return widget

    async def add_notice(self, text: str) -> None:
        """Show a dim informational line in the log."""
        await self.log_view.add(NoticeLine(text))

    def mark_unsent(self, text: str) -> None:
        """The newest prompt `text` shown in the log was refused, not sent: it says so."""
        from co_tui.tui.widgets.user_message import UserMessage

        for widget in reversed(self.log_view.query(UserMessage).nodes):
            if widget.text == text:
                widget.mark_unsent()
                return

    async def unqueue_user_message(self, text: str) -> None:
        """Remove the queued copy of prompt `text` (shown while it waited), if there is one."""
        from co_tui.tui.widgets.user_message import UserMessage

        for widget in self.log_view.query(UserMessage).filter(".-queued"):
            if widget.text == text:
                await widget.remove()
                return

    def _refresh_layout(self, size: Any = None, scroll: bool = False) -> None:
        # Timed so a streaming answer appends no faster than layout frames allow (tui/frame_budget.py).
        started = perf_counter()
        super()._refresh_layout(size, scroll)
        self.frame_budget.note_layout(perf_counter() - started)

    def _echo_typed_key(self) -> None:
        """The prompt handled a key: paint it now, not on the next frame (tui/key_echo.py)."""
        self.key_echo.paint_typed_key(self, self.prompt)

    def _on_timer_update(self) -> None:
        # A key typed while an answer streams paints before the answer's layout (tui/key_echo.py).
        prompt, echo = self.prompt, self.key_echo
        if echo.paint_key_first(self, prompt) or echo.hold_for_key(self, prompt):
            return
        painted = self._layout_required or self._repaint_required or prompt in self._dirty_widgets
        super()._on_timer_update()
        if painted and not self._layout_required and prompt not in self._dirty_widgets:
            self.key_clock.note_input_painted()

    async def on_session_event(self, message: SessionEvent) -> None:
        """Render an event posted to the screen (a failed job's error line: `CoTuiApp.on_worker_state_changed`)."""
        await self.show_event(message.event)

    def show_truncated(self, tool_call_ids: frozenset[str]) -> None:
        """The `truncated` badge on these tool calls: the model now sees their output shortened."""
        for tool_call_id in tool_call_ids:
            block = self._tools.get(tool_call_id)
            if block is not None:
                block.mark_truncated()

    async def show_event(self, event: Event) -> None:
        """Render one domain event (the closed union `co_tui.session.events.Event`, matched by class).

        A child's events (those with a `delegation`) go to its block, never into the chat flow."""
        if event.delegation is not None:
            await self._show_child_event(event)
            return
        match event:
            case domain.TextDelta(text=text):
                if self._assistant is None:
                    from co_tui.tui.widgets.assistant_message import AssistantMessage

                    self._assistant = AssistantMessage(clock=self.key_clock, budget=self.frame_budget)
                    await self.log_view.add(self._assistant)
                self._assistant.live.write(text)
            case domain.ToolCall():
                await self.end_answer()
                # Imported here: the subagent modules stay out of the imports before the first frame.
                from co_tui.session import DELEGATE_TOOL, subagent_pending
                from co_tui.tui.widgets.subagent_block import SubagentBlock
                from co_tui.tui.widgets.tool_call_block import ToolCallBlock

                if event.tool_name == DELEGATE_TOOL:  # a subagent: its live block stands for the call
                    await self._add_subagent(SubagentBlock(subagent_pending(event.tool_call_id, event.args)))
                    return
                block = ToolCallBlock(event.tool_name, event.tool_call_id, event.args)
                self._tools[event.tool_call_id] = block
                await self.log_view.add(block)
            case domain.ToolResult():
                if (subagent := self._subagents.get(event.tool_call_id)) is not None:
                    subagent.show(event)
                elif (found := self._tools.get(event.tool_call_id)) is not None:
                    found.set_result(event)
            case domain.HistoryTrimmed():
                await self.end_answer()
                from co_tui.tui.widgets.trim_banner import TrimBanner

                await self.log_view.add(TrimBanner(event))
            case domain.UsageUpdate():
                self.meter.reading = event
            case domain.ErrorEvent():
                from co_tui.tui.widgets.error_block import ErrorBlock

                await self.end_answer(interrupted=event.kind == "interrupted")
                await self.log_view.add(ErrorBlock(event.message, event.kind))
            case domain.OversizedTurn():
                from co_tui.tui.widgets.error_block import ErrorBlock

                await self.end_answer()
                await self.log_view.add(ErrorBlock(event.message, "overflow" if event.refused else "oversized"))
            case domain.Notice(message=message):
                await self.end_answer()
                await self.add_notice(message)
            case domain.Done(interrupted=interrupted):
                await self.end_answer(interrupted=interrupted)
                if interrupted:
                    for tool in self._tools.values():
                        tool.mark_interrupted()
                    for subagent in self._subagents.values():
                        subagent.mark_interrupted()
            case domain.SubagentStarted() | domain.SubagentFinished():  # always carry their delegation: routed above
                pass
            case _:
                assert_never(event)

    async def _show_child_event(self, event: Event) -> None:
        """A child's event (or its start or end) to its block; a start with no `delegate` row
        shown for it (a call made before this screen showed the turn) mounts a block of its own."""
        from co_tui.session import SubagentStarted
        from co_tui.tui.widgets.subagent_block import SubagentBlock

        assert event.delegation is not None
        block = self._subagents.get(event.delegation)
        if block is None:
            if not isinstance(event, SubagentStarted):
                return  # the block was cleared away (/clear, a switch): nothing left to show it in
            from co_tui.session import subagent_started

            await self.end_answer()
            block = SubagentBlock(subagent_started(event))
            await self._add_subagent(block)
        block.show(event)

    async def _add_subagent(self, block: SubagentBlock) -> None:
        self._subagents[block.delegation] = block
        await self.log_view.add(block)

    def on_subagent_block_open(self, message: SubagentBlock.Open) -> None:
        """Enter or a click on a subagent's block: its transcript, live while it runs."""
        from co_tui.tui.screens.subagent import SubagentScreen

        self.app.push_screen(SubagentScreen(message.block))

    async def end_answer(self, *, interrupted: bool = False) -> None:
        """Finish the answer being streamed, if any; the next text starts a new one."""
        if self._assistant is not None:
            answer, self._assistant = self._assistant, None
            await answer.live.finish(interrupted=interrupted)

    async def clear_log(self) -> None:
        """Empty the chat log (after /clear, or before showing another session)."""
        await self.end_answer()
        self._tools.clear()
        self._subagents.clear()
        self._earlier = []
        await self.log_view.clear_log()

    async def show_items(
        self, items: list[Item], banners: Sequence[tuple[int, Any]] = (), *, entries: int | None = None
    ) -> None:
        """Show a saved conversation (resume) in one mount: only the newest entries that fit the log.

        `banners` are (transcript position, history_trimmed event) pairs; each banner goes before the
        first item that starts at or after its position, as it appeared when the cut happened.
        `entries`: how many entries (items and banners) the whole conversation has, when `items`
        are only its newest part (a preview from the store's rows); the log counts the rest as not
        shown here.
        """
        from co_tui.session import DELEGATE_TOOL, INTERRUPTED_MESSAGE, HistoryTrimmed
        from co_tui.tui.transcript_view import RESUME_ENTRIES, first_screen, newest_entries
        from co_tui.tui.widgets.assistant_message import AssistantMessage
        from co_tui.tui.widgets.error_block import ErrorBlock
        from co_tui.tui.widgets.tool_call_block import ToolCallBlock
        from co_tui.tui.widgets.trim_banner import TrimBanner
        from co_tui.tui.widgets.user_message import UserMessage

        log = self.log_view
        # Fewer than the log holds: each Markdown answer costs a render, and resume must paint fast.
        newest, skipped = newest_entries(items, banners, min(log.max_items, RESUME_ENTRIES))
        if entries is not None:
            skipped = entries - len(newest)
        groups: list[list[Widget]] = []  # the widgets of each entry
        for entry in newest:
            group: list[Widget] = []
            if isinstance(entry, HistoryTrimmed):
                group.append(TrimBanner(entry))
            elif entry.kind == "user":
                group.append(UserMessage(entry.text))
            elif entry.kind == "assistant":
                group.append(AssistantMessage(entry.text, interrupted=entry.interrupted))
            elif entry.tool_name == DELEGATE_TOOL:  # a subagent, as it ended; opened, its saved transcript
                group.append(self._saved_subagent(entry))
            else:
                block = ToolCallBlock(entry.tool_name, entry.tool_call_id, entry.args)
                if (result := entry.tool_result()) is not None:
                    block.set_result(result)
                else:
                    block.mark_interrupted()
                self._tools[entry.tool_call_id] = block
                group.append(block)
            if getattr(entry, "interrupted", False):  # the line the live turn ended with
                group.append(ErrorBlock(INTERRUPTED_MESSAGE, kind="interrupted"))
            groups.append(group)
        # The screen's worth first (what the terminal shows); the entries above it are mounted
        # once the session is ready (`mount_earlier`), counted as not shown until then.
        shown = first_screen(newest, log.content_region.width, log.content_region.height)
        self._earlier = groups[: len(groups) - shown]
        if skipped + len(self._earlier):
            log.note_hidden(skipped + len(self._earlier))
        await log.add(*(widget for group in groups[len(groups) - shown :] for widget in group))

    def _saved_subagent(self, entry: Item) -> SubagentBlock:
        """A resumed `delegate` call's block: drawn from the child's record, its transcript read when opened."""
        from co_tui.session import saved_subagent, saved_subagent_events
        from co_tui.tui.widgets.subagent_block import SubagentBlock

        view = saved_subagent(entry.tool_call_id, entry.args, entry.result, entry.is_error, entry.subagent)
        record, delegation = entry.subagent, entry.tool_call_id
        block = SubagentBlock(view, saved=lambda: saved_subagent_events(record, delegation))
        if view.running:  # no result and no record: the turn was stopped while it ran
            block.mark_interrupted()
        self._subagents[delegation] = block
        return block

    @property
    def earlier_pending(self) -> int:
        """Entries of a resumed conversation built but not mounted yet (`mount_earlier`)."""
        return len(self._earlier)

    async def mount_earlier(self, batch: int = 4) -> None:
        """Mount the resumed conversation's entries above the first screen (`show_items`), the
        nearest first, `batch` entries per mount so keys are handled in between; the log then
        holds what one mount of them all would (pruned to its bounds)."""
        log = self.log_view
        while self._earlier:
            earlier = self._earlier
            groups, rest = earlier[-batch:], earlier[:-batch]
            items = log.items
            widgets = [widget for group in groups for widget in group]
            if items:
                await log.mount_all(widgets, before=items[0])
            else:
                await log.mount_all(widgets)
            if self._earlier is not earlier:  # the log was cleared (or refilled) meanwhile
                return
            self._earlier = rest
            log.note_hidden(-len(groups))
            await log.prune()
