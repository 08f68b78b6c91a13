"""The title bar: app name, model name with an "offline" badge, and the session title."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from co_tui.text import escape_controls


class TitleBar(Widget):
    """`co-tui · offline [OFFLINE] · Fix the flaky test`, docked at the top."""

    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $foreground;
    }
    """

    model_name: reactive[str] = reactive("")
    offline: reactive[bool] = reactive(False)
    session_title: reactive[str] = reactive("")

    def render(self) -> Content:
        """`co-tui`, the model (`starting…` until known), OFFLINE for the offline model, the title."""
        parts: list[str | tuple[str, str]] = [("co-tui", "bold $accent"), "  "]
        parts.append((escape_controls(self.model_name) or "starting…", "$foreground" if self.model_name else "dim"))
        if self.offline:
            parts += [" ", (" OFFLINE ", "bold $background on $warning")]
        parts += [
            "  ",
            ("·", "dim"),
            "  ",
            (escape_controls(self.session_title) or "New conversation", "italic $text-muted"),
        ]
        return Content.assemble(*parts)
