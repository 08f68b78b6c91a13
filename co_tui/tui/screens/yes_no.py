"""The shape every yes/no dialog shares: a modal frame (title, body, two buttons), a key (or keys)
for each answer, one button focused, and a dismiss with the answer (True: yes).

Each dialog — confirm_clear.py, confirm_compact.py, confirm_delete.py — says only
what differs: its two `Answer`s, which one has the focus, its title and body (and any extra widget
in `compose_body`). Their look is dialog.tcss, shared. Their answers arm `ARMING_S` after the dialog is
shown (arming.py), so a key meant for the prompt does not answer them, unless `ARMS` is False (a
dialog whose answer `/undo` takes back: /compact's, which ctrl+k twice answers on purpose).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static
from textual.widgets.button import ButtonVariant

from co_tui.tui.screens.arming import ArmedAnswers

__all__ = ["Answer", "YesNoDialog"]


@dataclass(frozen=True)
class Answer:
    """One answer of a yes/no dialog: its button (`label`, `id`, `variant`), the keys that give it
    (Textual's comma-separated key list) and their description in the bindings."""

    label: str
    id: str
    keys: str
    description: str
    variant: ButtonVariant = "default"
    # A priority binding wins over the focused button's own keys (Enter on the other button).
    priority: bool = False


class YesNoDialog(ArmedAnswers, ModalScreen[bool]):
    """A modal question dismissed with True (`YES`: its button or keys) or False (`NO`, Esc too
    when the dialog's keys say so, and Ctrl+C). A subclass sets `YES`, `NO`, `FOCUS` (the id of the button
    focused at first: the safe answer, so a stray Enter does no harm) and passes its title and body
    to `__init__`; its bindings are made from the two answers."""

    CSS_PATH = ["dialog.tcss"]
    YES: ClassVar[Answer]
    NO: ClassVar[Answer]
    FOCUS: ClassVar[str]
    ARMS: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        if "YES" in cls.__dict__ or "NO" in cls.__dict__:
            cls.BINDINGS = [
                Binding(cls.NO.keys, "answer(False)", cls.NO.description, show=False, priority=cls.NO.priority),
                Binding(cls.YES.keys, "answer(True)", cls.YES.description, show=False, priority=cls.YES.priority),
                # ctrl+c gives up what is asked, as everywhere (Textual's screen default copies, silently).
                Binding("ctrl+c", "answer(False)", cls.NO.description, show=False),
            ]
        super().__init_subclass__(**kwargs)

    def __init__(self, title: str, body: str, *, classes: str = "") -> None:
        # `classes` adds to `dialog`: `-danger` draws a red frame (dialog.tcss), for answers that lose something.
        super().__init__(classes=f"dialog {classes}".rstrip())
        self.question = title
        self.body = body

    def compose(self) -> ComposeResult:
        """The question, the body (`compose_body`), then the NO and YES buttons."""
        with Vertical(id="dialog"):
            yield Static(self.question, id="dialog-title")
            yield from self.compose_body()
            with Horizontal(id="dialog-buttons"):
                yield Button(self.NO.label, id=self.NO.id, variant=self.NO.variant)
                yield Button(self.YES.label, id=self.YES.id, variant=self.YES.variant)

    def compose_body(self) -> ComposeResult:
        """What stands between the title and the buttons: the body, as plain text (no markup)."""
        yield Static(Content(self.body), id="dialog-body")

    def on_mount(self) -> None:
        """Arm the answers (arming.py; at once unless `ARMS`); the `FOCUS` button, the safe answer,
        has the focus then."""
        if self.ARMS:
            self.start_arming(self.FOCUS)
        else:
            self.armed = True
            self.query_one(f"#{self.FOCUS}", Button).focus()

    def action_answer(self, yes: bool) -> None:
        """Dismiss with `yes`, once the answers are armed (before, the key does nothing)."""
        if self.armed:
            self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Dismiss with True for the `YES` button, False for the other."""
        self.dismiss(event.button.id == self.YES.id)
