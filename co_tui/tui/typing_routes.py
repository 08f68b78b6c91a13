"""Where a key the app takes goes before the focused widget sees it: text typed while co-tui starts
waits for the prompt (tui/early_input.py), text typed while a row or the log has focus goes to the
prompt in order (tui/type_ahead.py), and text typed while a dialog's answers are not armed yet goes
to the prompt under it (screens/arming.py). `CoTuiApp.on_event` asks `TypingRoutes` first.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual import events

from co_tui.tui.early_input import EarlyInput
from co_tui.tui.screens.arming import ArmedAnswers, arming, arming_seconds
from co_tui.tui.screens.chat import ChatScreen
from co_tui.tui.type_ahead import TypeAhead, types_text

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["TypingRoutes"]

Forward = Callable[[events.Event], Awaitable[None]]


class TypingRoutes:
    """The routes of one app's typed keys (see module docstring); `chat`: its chat screen."""

    def __init__(self, app: App[Any], chat: ChatScreen) -> None:
        self.app = app
        self.chat = chat
        self.early_input = EarlyInput()  # what is typed or pasted before the prompt is ready
        self.type_ahead = TypeAhead()  # keys typed while a row has focus go to the prompt
        self._typed_at = float("-inf")  # when the last key that types text came (a dialog's burst)

    def hold(self, event: events.Event) -> bool:
        """While co-tui starts, keep text keys and pastes for the prompt (`EarlyInput.hold`): True
        when `event` is kept. A paste read as keys meanwhile stays one paste."""
        return self.early_input.hold(event)

    async def route(self, event: events.Key, forward: Forward) -> bool:
        """A key typed on the chat screen while a row or the log has focus goes to the prompt, in
        order (tui/type_ahead.py); True when taken there. So does a key that types text while a
        dialog's answers are not armed yet (screens/arming.py): it was meant for the prompt.
        `forward`: the app's own handling of an event (what a key not taken here gets)."""
        app = self.app
        typing = types_text(event)
        burst = typing and event.time - self._typed_at < arming_seconds()
        dialog = arming(app.screen, burst=burst, key=event.key if typing else None)
        if typing:  # a key that answered an armed dialog is no typing: the next one may answer too
            answers = dialog is None and isinstance(app.screen, ArmedAnswers)
            self._typed_at = float("-inf") if answers else event.time
        if dialog is not None:
            return self._to_prompt_under_dialog(dialog, event)
        chat = app.screen
        if not isinstance(chat, ChatScreen) or not chat.is_mounted:
            return False
        later = lambda: app.call_later(self.type_ahead.release, forward)  # noqa: E731
        return await self.type_ahead.route(chat, chat.prompt, event, later=later, forward=forward)

    def _to_prompt_under_dialog(self, dialog: ArmedAnswers, event: events.Key) -> bool:
        """Key `event`, typed while `dialog` (on top) arms: text goes to the chat's prompt when the dialog
        is over the chat (else it is dropped) and the arming starts again; True when taken. Any other key goes to
        the dialog, whose answers are inert."""
        from textual.widgets import Input

        app = self.app
        if not types_text(event) or isinstance(app.screen.focused, Input):  # a dialog's own field types
            return False
        dialog.typed()
        under = app.screen_stack[-2] if len(app.screen_stack) > 1 else None
        if isinstance(under, ChatScreen) and not under.prompt.read_only:
            under.prompt._forward_event(event)
        return True

    def release_early_input(self) -> None:
        """Put what was typed or pasted while co-tui started into the prompt, as one paste, once
        the prompt is mounted and no more keys come (`EarlyInput.release`)."""
        app = self.app
        if self.chat.gone:
            return
        prompt = self.chat.prompt
        if not prompt.is_mounted:
            app.call_after_refresh(self.release_early_input)
            return
        text = self.early_input.release()
        if text is None:  # more may be queued behind this: look again after it
            app.call_later(self.release_early_input)
        elif text:  # through the app, as the terminal's pastes come, to the prompt
            prompt.focus()
            app.post_message(events.Paste(text))
