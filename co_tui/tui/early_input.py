"""Text typed or pasted while co-tui starts: held, then put into the prompt as one paste.

Textual turns the terminal's bracketed paste on as the app starts. Text pasted before the
terminal has taken that in (while Python starts, or just after) reaches the app as typed keys,
its line breaks as Enter (CR: the terminal in raw mode) or ctrl+j (LF: the terminal was still in
line mode, which turns CR into LF). Each line became a queued prompt, and the keys read before
the chat screen had mounted its prompt were lost. So every key that types text, and any paste, is
held from the app's start until the prompt is mounted and no more of them arrive; then the held
text goes into the prompt as one paste, line breaks kept (docs/keys-and-commands.md, "Large
pastes"). Keys that type nothing (ctrl+q, escape, F1) are never held. Backspace, typed in the same
burst, takes back the last held character: passed on, it reached the (still empty) prompt before
the held text, and `xyz`, Backspace ×2, `abc` came out `xyzabc`.
"""

from __future__ import annotations

from textual import events

from co_tui.tui.format import normal_newlines

# The keys a paste's line breaks and tabs arrive as, and the text each stands for.
_KEY_TEXT = {"enter": "\n", "ctrl+j": "\n", "ctrl+m": "\n", "tab": "\t"}


def key_text(event: events.Key) -> str | None:
    """The text key `event` types: its character, a line break or a tab; None for a key that
    types nothing (ctrl+q, escape, arrows, function keys)."""
    if event.key in _KEY_TEXT:
        return _KEY_TEXT[event.key]
    if event.is_printable and event.character:
        return event.character
    return None


class EarlyInput:
    """Holds the text of keys and pastes (`hold`) until `release` hands it over, once."""

    def __init__(self) -> None:
        self.holding = True
        self._held: list[str] = []
        self._arrived = False  # something was held since the last `release` call

    def hold(self, event: events.Event) -> bool:
        """While holding, keep the text of key or paste `event`: True when kept (the caller then
        drops the event); False for any other event, or once released."""
        if not self.holding:
            return False
        if isinstance(event, events.Paste):
            text: str | None = event.text
        elif isinstance(event, events.Key) and event.key == "backspace" and self._held:
            last = self._held.pop()
            if len(last) > 1:  # a paste held whole: one character of it goes
                self._held.append(last[:-1])
            self._arrived = True
            return True
        elif isinstance(event, events.Key):
            text = key_text(event)
        else:
            return False
        if text is None:
            return False
        self._held.append(text)
        self._arrived = True
        return True

    def release(self) -> str | None:
        """Stop holding and return the text held, in order, line breaks as LF ("" when none).
        None, still holding, when something was held since the last call: more of the same paste
        may still wait to be read, so call again once the events queued now are handled."""
        if self._arrived:
            self._arrived = False
            return None
        self.holding = False
        text, self._held = "".join(self._held), []
        return normal_newlines(text)
