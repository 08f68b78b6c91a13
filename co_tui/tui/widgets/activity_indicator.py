"""Progress feedback while a turn or a compaction runs: a spinner, a label and the Esc hint."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class ActivityIndicator(Widget):
    """`⠹ thinking… · esc to interrupt`; hidden when idle. `label` empty = idle."""

    DEFAULT_CSS = """
    ActivityIndicator {
        height: 1;
        padding: 0 2;
        color: $text-accent;
        display: none;
    }
    ActivityIndicator.-busy { display: block; }
    """

    label: reactive[str] = reactive("")
    frame: reactive[int] = reactive(0)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timer: Timer | None = None

    def watch_label(self, label: str) -> None:
        self.set_class(bool(label), "-busy")
        if label and self._timer is None and self.app.animation_level != "none":
            self._timer = self.set_interval(0.1, self._tick)
        elif not label and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _tick(self) -> None:
        self.frame = (self.frame + 1) % len(FRAMES)

    def render(self) -> Content:
        return Content.assemble((FRAMES[self.frame] + " ", "bold"), self.label, ("  · esc to interrupt", "$text-muted"))
