"""A `history_trimmed` banner at the point of the cut: a one-liner that expands to the details."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import Collapsible, Markdown, Static

from co_tui.text import escape_controls, screen_text
from co_tui.tui.markdown_parser import literal_underscores_parser

if TYPE_CHECKING:
    from co_tui.session import HistoryTrimmed


RECOVER_KEY = "r"


class TrimBanner(Collapsible):
    """`✂ History trimmed · 14 messages (3 turns) · 41.2k → 12.9k tokens · token budget`.

    Enter or a click expands it to reason, strategy, counts, budget and the summary text.
    Wording comes from `co_tui.session.banner`, shared with print mode and exports. On a summary
    whose check lost items, `r` asks to bring one back (`RecoverRequested`; the app picks the item
    and the session makes the excerpt: docs/context-governance.md, "Recover a lost item").
    """

    BINDINGS = [Binding(RECOVER_KEY, "recover", "Recover lost item")]

    @dataclass
    class RecoverRequested(Message):
        """`r` on a banner whose summary lost items: `event` is the banner's `history_trimmed` event."""

        event: HistoryTrimmed

    DEFAULT_CSS = """
    TrimBanner {
        margin: 1 0 0 0;
        padding: 0 0 0 1;
        border-top: none;
        border-left: outer $warning;
        background: $warning 8%;
    }
    TrimBanner > CollapsibleTitle { padding: 0; color: $text-warning; }
    TrimBanner.-compact { border-left: outer $success; background: $success 8%; }
    TrimBanner.-compact > CollapsibleTitle { color: $text-success; }
    TrimBanner.-restore { border-left: outer $success; background: $success 8%; }
    TrimBanner.-restore > CollapsibleTitle { color: $text-success; }
    TrimBanner.-clear { border-left: outer $primary; background: $primary 8%; }
    TrimBanner.-branch { border-left: outer $accent; background: $accent 8%; }
    TrimBanner.-branch > CollapsibleTitle { color: $text-accent; }
    TrimBanner.-clear > CollapsibleTitle { color: $text-primary; }
    TrimBanner > Contents { padding: 0 0 0 2; height: auto; }
    TrimBanner .banner-details { color: $foreground 85%; }
    TrimBanner .banner-summary-label { color: $text-muted; text-style: bold; margin-top: 1; }
    TrimBanner Markdown { margin: 0; padding: 0; background: transparent; }
    TrimBanner .banner-recover-hint { color: $text-muted; text-style: italic; }
    """

    def __init__(self, event: HistoryTrimmed) -> None:
        from co_tui.session import banner_details, banner_line

        self.event = event
        rows = banner_details(event)
        table = [(label, value) for label, value in rows if label != "summary"]
        width = max(len(label) for label, _ in table)
        # Every value may quote the model or a hook (a note, a summary's lost items): escaped.
        details = Content("\n".join(f"{label:<{width}}  {screen_text(value)}" for label, value in table))
        children: list[Static | Markdown] = [Static(details, classes="banner-details")]
        if event.summary_lost:
            children.append(Static(f"press {RECOVER_KEY} to bring a lost item back", classes="banner-recover-hint"))
        if event.salvaged_text:  # what came back, verbatim (not Markdown: it is the model's text as is)
            children += [
                Static("recovered excerpt", classes="banner-summary-label"),
                Static(Content(screen_text(event.salvaged_text)), classes="banner-details"),
            ]
        if event.summary:
            children += [
                Static("summary", classes="banner-summary-label"),
                Markdown(screen_text(event.summary), parser_factory=literal_underscores_parser),
            ]
        kind = (
            "clear"
            if event.reason == "clear"
            else "restore"
            if event.reason == "restore"
            else "branch"
            if event.strategy == "branch"
            else "compact"
            if event.strategy == "compact"
            else "trim"
        )
        super().__init__(
            *children,
            title=Content(escape_controls(banner_line(event))),  # type: ignore[arg-type]  # not markup
            collapsed=True,
            collapsed_symbol="▸",
            expanded_symbol="▾",
            classes=f"-{kind}",
        )

    def on_resize(self) -> None:
        """Shorten the title to the width at segment boundaries, never mid-word (`banner_line`)."""
        from co_tui.session import banner_line

        room = self.content_region.width - 2  # the `▸ ` before the title
        if room > 0:
            self.title = Content(escape_controls(banner_line(self.event, room)))  # type: ignore[assignment]

    @property
    def recoverable(self) -> bool:
        """Whether `r` applies: the summary behind this banner lost items."""
        return bool(self.event.summary_lost)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`r` only on a banner with a lost list (elsewhere it is typing, sent to the prompt:
        tui/type_ahead.py)."""
        return self.recoverable if action == "recover" else True

    def action_recover(self) -> None:
        """`r`: ask the app to bring one of the lost items back."""
        self.post_message(self.RecoverRequested(self.event))
