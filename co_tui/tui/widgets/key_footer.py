"""`KeyFooter`: Textual's key footer, rebuilt only when the keys it shows change, and held empty
until its screen says to show them.

Textual's `Footer` rebuilds all its keys (a recompose: ~25 ms of the UI thread) every time its
screen's bindings are refreshed, changed or not. At start-up that happens three times (the prompt
takes focus, the screen resumes, an idle refresh), all after the first frame and all with the same
keys, while the start-up thread imports pydantic-ai and waits on the same interpreter lock: ~50 ms
more before the model is ready (benchmarks/tui.py part a; docs/architecture.md, "Start-up").
Coalesced, one rebuild stays: the first, as Textual's footer composes no keys before its screen's
bindings are first signalled (after the first frame). That one (~20 ms of the UI thread with its
layout) the chat screen holds until its session is ready (`held`, `show_keys`).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """A `Footer` that coalesces binding refreshes into one rebuild after the next refresh, and
    skips it when the keys (binding, enabled, tooltip) and the palette key are as last composed.
    `held`: no keys until `show_keys` is called (the keys still work; the footer is empty)."""

    def __init__(self, *children: Any, held: bool = False, **kwargs: Any) -> None:
        super().__init__(*children, **kwargs)
        self._composed: object = None  # `_keys()` when the keys on show were composed
        self._rebuild_due = False
        self._held = held

    def compose(self) -> ComposeResult:
        """Textual's footer keys, noting which keys they are (a rebuild is skipped while they stay the same)."""
        if self._held:
            return
        self._composed = self._keys() if self._bindings_ready else None
        yield from super().compose()

    def show_keys(self) -> None:
        """End a hold (`held`): the keys show after the next refresh. Does nothing when not held."""
        if self._held:
            self._held = False
            if self._bindings_ready:
                # From this footer's own queue: the rebuild runs as its callback (Textual's `data_bind`
                # in `compose` binds to the pump it runs in), whoever calls this.
                self.call_later(self._schedule_rebuild)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        """Textual's hook when `screen`'s bindings are refreshed: one rebuild after the next refresh at most,
        and none while the app has no focus or the footer is held."""
        # Textual's `Footer.bindings_changed`, with one pending rebuild at most.
        self._bindings_ready = True
        if not screen.app.app_focus or self._held:
            return
        if self.is_attached and screen is self.screen:
            self._schedule_rebuild()

    def _schedule_rebuild(self) -> None:
        if self.is_attached and not self._rebuild_due:
            self._rebuild_due = True
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._rebuild_due = False
        if self.is_attached and self._keys() != self._composed:
            await self.recompose()

    def _keys(self) -> object:
        """What `Footer.compose` reads, to compare: the palette switch and every active binding."""
        bindings = tuple(
            (key, binding, enabled, tooltip)
            for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items()
        )
        return (self.show_command_palette, self.app.ENABLE_COMMAND_PALETTE, bindings)
