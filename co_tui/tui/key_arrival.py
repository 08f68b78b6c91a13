"""The moment a key is read from the terminal, noted from the driver's input thread.

A key typed while an answer streams used to wait behind layout frames that started after it was
typed: the driver's thread hands the key to the event loop, and it still passes the App's and the
prompt's message queues before the prompt repaints; a 15–40 ms layout frame (more on a loaded host)
could run at each of those steps. Measured in `benchmarks/tui.py` part c (a trace of each key's
path), most slow keys waited for one or two layout frames that began after the key had been read.
Noting the key in the input thread lets the chat screen hold those frames until the prompt has
painted the key (key_echo.py). See docs/architecture.md ("Streaming").
"""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def noting_keys(driver_class: type[Any]) -> type[Any]:
    """A subclass of Textual driver class `driver_class` whose `process_message` (run in the
    driver's input thread) notes each key press on its app's clock (`app.key_clock`, a
    `KeyClock`: `note_key_arrived`) before sending it on. Everything else is the driver's own."""
    from textual import events

    class KeyNotingDriver(driver_class):
        def process_message(self, message: Any) -> None:
            if isinstance(message, events.Key):
                self._app.key_clock.note_key_arrived()
            super().process_message(message)

    KeyNotingDriver.__name__ = KeyNotingDriver.__qualname__ = f"KeyNoting{driver_class.__name__}"
    return KeyNotingDriver
