"""Progress feedback while a turn or a compaction runs: a spinner, a label and the Esc hint."""

from __future__ import annotations

from time import monotonic

from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from co_tui.tui.frame_budget import since_append

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
# While an answer's text is growing on screen, that is the sign of life: the spinner steps only
# every STREAMING_STEP_S, as each step is a frame of its own (on a loaded host one took ~10 ms,
# a fifth of the CPU a fast stream needed). See tui/frame_budget.py.
STREAMING_STEP_S = 0.5
STREAMING_WINDOW_S = 1.0  # text appended this recently: the answer is streaming


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
        self._stepped_at = float("-inf")

    def watch_label(self, label: str) -> None:
        """Spin while a label is shown (a still frame when animations are off); stop when it goes."""
        self.set_class(bool(label), "-busy")
        if label and self._timer is None and self.app.animation_level != "none":
            self._timer = self.set_interval(0.1, self._tick)
        elif not label and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _tick(self) -> None:
        now = monotonic()
        if since_append() < STREAMING_WINDOW_S and now - self._stepped_at < STREAMING_STEP_S:
            return
        self._stepped_at = now
        self.frame = (self.frame + 1) % len(FRAMES)

    def render(self) -> Content:
        """The spinner frame, the label and how to interrupt."""
        return Content.assemble((FRAMES[self.frame] + " ", "bold"), self.label, ("  · esc to interrupt", "$text-muted"))
