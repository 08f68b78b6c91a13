"""Dialogs whose answers arm a moment after they appear: a key meant for the prompt cannot answer them.

A dialog that asks about something irreversible (the approval of a call; /clear; /compact; deleting
a session) opens while the user may still be typing: a `y` or an `a` typed a moment after it
appeared answered it. So, as browsers do with their security dialogs, its answer buttons are
disabled (dimmed, without their key in the label) for `ARMING_S` after it is shown, and its answer
keys do nothing; then they arm: the labels show their keys and the safe button takes the focus.
Keys that type text meanwhile go to the prompt (`App._route_typing`): the user was typing there,
and each of them starts the arming period again (`typed`), so a typist who goes on typing does not
answer with a later letter. The period counts from the dialog's first paint: from when it can be
seen. The dialog sets `armed` when its answers work (tests wait on it, tmux tests on the labels).

Armed, a dialog still takes a text key for typing when it comes within the arming period of the
text key before it (a burst: `hello` typed on, its `o` is no answer): the key goes to the prompt and
the dialog arms again (`arming(screen, burst=True)`). A key pressed on its own answers.
"""

from __future__ import annotations

import os
import re
from typing import Any

from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button

__all__ = ["ARMING_ENV", "ARMING_S", "ArmedAnswers", "arming", "arming_seconds"]

ARMING_S = 0.6  # how long the answers stay inert after the dialog is shown
ARMING_ENV = "CO_TUI_ARMING_S"  # overrides it: a slower typist's choice, and tmux tests' certainty


def arming_seconds() -> float:
    """The arming period: `CO_TUI_ARMING_S` when it holds a number from 0 to 3600, else `ARMING_S`
    (docs/configuration.md, "Other environment variables")."""
    try:
        seconds = float(os.environ.get(ARMING_ENV, ""))
    except ValueError:
        return ARMING_S
    return seconds if 0 <= seconds <= 3600 else ARMING_S


_KEY_HINT = re.compile(r" \([^)]*\)$")  # the "(y)" at the end of a button's label


class ArmedAnswers:
    """Mix into a `ModalScreen` dialog: `start_arming(safe)` on mount disables its buttons; `ARMING_S`
    after its first paint (or after the last key `typed` meanwhile) they are enabled with their full
    labels, `safe` (a button id) focused, and `armed` is True. Answer actions check `armed`."""

    armed: bool = False
    _arming_timer: Timer | None = None
    _safe: str = ""

    def start_arming(self, safe: str) -> None:
        """Disable the answer buttons (labels without their key), and the widget `safe` (a button or
        a list of answers), and arm them `ARMING_S` after the dialog's first paint."""
        self._safe = safe
        self._disarm(shown=False)

    def _disarm(self, *, shown: bool = True) -> None:
        """Answers inert (buttons dimmed, without their key) until `arming_seconds()` from now, or,
        not `shown` yet, from the dialog's first paint."""
        screen = self._screen()
        self.armed = False
        screen.add_class("-arming")  # a dialog's styles may show it (the ask dialog's line says so)
        labels: dict[Button, str] = {}
        for button in screen.query(Button):
            labels[button] = str(button.label)
            button.label = _KEY_HINT.sub("", labels[button])
            button.disabled = True
        safe = screen.query_one(f"#{self._safe}")
        if not shown:  # again later, it keeps the focus (else it would go to a field: `typed` keys there)
            safe.disabled = True

        def arm() -> None:
            for button, label in labels.items():
                button.label = label
                button.disabled = False
                button.refresh(layout=True)  # a label's change repaints only: the longer label needs the room
            safe.disabled = False
            safe.focus()
            self.armed = True
            screen.remove_class("-arming")

        def start() -> None:
            if self._arming_timer is not None:
                self._arming_timer.stop()
            self._arming_timer = screen.set_timer(arming_seconds(), arm)

        if shown:
            start()
        else:
            screen.call_after_refresh(start)

    def typed(self) -> None:
        """A key meant for the prompt came while arming: the period starts again; armed (a key in a
        burst), the answers are disarmed and the period starts again."""
        if self.armed:
            self._disarm()
        elif self._arming_timer is not None:
            self._arming_timer.reset()

    def _screen(self) -> Screen[Any]:
        assert isinstance(self, Screen)
        return self


def arming(screen: Screen[Any], *, burst: bool = False, key: str | None = None) -> ArmedAnswers | None:
    """`screen` when it is a dialog whose answers are not armed yet, or whose answers are armed but
    the text key at hand (`key`) is none of its answers or came in a `burst` (within the arming
    period of the text key before it): that key is typing, not an answer. Else None."""
    if not isinstance(screen, ArmedAnswers):
        return None
    if not screen.armed:
        return screen
    if not screen._safe:  # a dialog that never arms
        return None
    return screen if burst or (key is not None and not _answers(screen, key)) else None


def _answers(screen: Screen[Any], key: str) -> bool:
    """Whether `key` is bound on the dialog itself (one of its answers)."""
    try:
        return bool(screen._bindings.get_bindings_for_key(key))
    except Exception:  # textual.errors.NoBinding (not public)
        return False
