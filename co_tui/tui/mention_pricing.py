"""The meter's figure for the prompt's `@path` mentions before it is sent: the session prices what
they would attach (`SessionPort.attachments`, in a thread: it reads the files), once per set of
mentions, and the meter shows it unless the mentions changed meanwhile."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from co_tui.session import SessionPort
    from co_tui.tui.controller import ChatController
    from co_tui.tui.screens.chat import ChatScreen

__all__ = ["MentionPricing"]


class MentionPricing:
    """The mentions one app's prompt has, as last priced (see module docstring)."""

    def __init__(self, app: App[Any], controller: ChatController, chat: ChatScreen) -> None:
        self.app = app
        self.controller = controller
        self.chat = chat
        self._priced: tuple[str, ...] = ()  # the prompt's `@path` mentions the meter last priced

    def price(self, *, again: bool = False) -> None:
        """Have the session price the prompt's `@path` mentions for the meter, once per set of
        mentions (`again`: even when they are the same, e.g. the session just became ready)."""
        from co_tui.session import mentions

        text = self.chat.prompt.text
        key = tuple(mentions(text)) if "@" in text else ()
        if key == self._priced and not again:
            return
        self._priced = key
        session = self.controller.session
        if not key or session is None:  # no session yet: priced when it is ready
            self.chat.meter.attaching = 0
        else:
            work = partial(self._price, session, text, key)
            self.app.run_worker(work, thread=True, group="attach-price", exit_on_error=False)

    def _price(self, session: SessionPort, text: str, key: tuple[str, ...]) -> None:
        """(In a thread.) What the mentions add; shown unless the prompt's mentions changed meanwhile."""
        tokens = session.attachments(text).tokens

        def show() -> None:
            if key == self._priced and not self.chat.gone:
                self.chat.meter.attaching = tokens

        self.app.call_from_thread(show)
