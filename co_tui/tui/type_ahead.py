"""Keys typed while a banner, a tool row or the log has focus: they go to the prompt, in order, whole.

The app forwards each key to whatever has focus when it takes the key from its queue. Moving focus
with `Widget.focus()` happens a callback later, so the keys of a burst (a fast typist, a paste
read as keys) already queued still went to the row: its own letters fired (`r` ran a recovery in
the middle of `read …`), a Backspace did nothing there and keys overtook each other on the way
to the prompt (`read architecture.md` arrived as `ead achitectue.md`). So the app routes here,
from its own queue, before forwarding: focus moves to the prompt at once and the key goes to the
prompt, so every key after it follows in order.

A widget's own single-letter key (`r` on a summary banner with lost items) acts only when it is
pressed alone: it is held until the keys read with it are handled; another typing key among them
means it was the first letter of typed text, and both go to the prompt.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.screen import Screen
from textual.widgets import Input, TextArea

# Keys that edit text besides the printable ones: a Backspace typed after a letter must reach
# the prompt that letter went to.
_EDIT_KEYS = frozenset({"backspace", "delete"})


def types_text(event: events.Key) -> bool:
    """Whether `event` types into a text field: a printable character, Backspace or Delete."""
    return (event.is_printable and bool(event.character)) or event.key in _EDIT_KEYS


def widget_letter(screen: Screen[Any], key: str) -> bool:
    """Whether `key` is a binding of the focused widget or one of its containers on `screen`
    (not of the screen or the app), enabled there (e.g. `r` on a banner whose summary lost items)."""
    active = screen.active_bindings.get(key)
    return active is not None and active.enabled and active.node is not screen and active.node is not screen.app


class TypeAhead:
    """Routes the app's key events on the chat screen (`route`), holding a widget's letter (`release`)."""

    def __init__(self) -> None:
        self._held: events.Key | None = None

    async def route(
        self,
        screen: Screen[Any],
        prompt: TextArea,
        event: events.Key,
        *,
        later: Callable[[], object],
        forward: Callable[[events.Key], Awaitable[object]],
    ) -> bool:
        """Decide where key `event` goes while `screen` (the chat screen, on top) shows `prompt`.

        True when it was taken here: sent to the prompt, or held (`later` is then called, and must
        call `release` once the keys queued now are handled). False when the caller forwards it
        as usual; a letter held before it went on first, through `forward`.
        """
        held, self._held = self._held, None
        typing = types_text(event)
        if held is not None:
            if typing:  # the held letter began typed text
                self._to_prompt(screen, prompt, held)
                self._to_prompt(screen, prompt, event)
                return True
            await forward(held)  # pressed on its own, then Enter, an arrow…
        focused = screen.focused
        if not typing or focused is prompt or isinstance(focused, TextArea | Input) or prompt.read_only:
            return False
        if event.is_printable and widget_letter(screen, event.key):
            self._held = event
            later()
            return True
        self._to_prompt(screen, prompt, event)
        return True

    async def release(self, forward: Callable[[events.Key], Awaitable[object]]) -> None:
        """The held letter, if any, goes on (to its widget's binding) through `forward`."""
        held, self._held = self._held, None
        if held is not None:
            await forward(held)

    @staticmethod
    def _to_prompt(screen: Screen[Any], prompt: TextArea, event: events.Key) -> None:
        screen.set_focus(prompt)  # now, not a callback later: the next keys are forwarded to it
        prompt._forward_event(event)
