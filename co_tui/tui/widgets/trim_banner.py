"""A `history_trimmed` banner at the point of the cut: a one-liner that expands to the details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Collapsible, Markdown, Static

from co_tui.tui.markdown_parser import literal_underscores_parser

if TYPE_CHECKING:
    from co_tui.governance.events import HistoryTrimmed


class TrimBanner(Collapsible):
    """`✂ History trimmed · 14 messages (3 turns) · 41.2k → 12.9k tokens · token budget`.

    Enter or a click expands it to reason, strategy, counts, budget and the summary text.
    Wording comes from `co_tui.session.banner`, shared with print mode and exports.
    """

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
    TrimBanner.-clear > CollapsibleTitle { color: $text-primary; }
    TrimBanner > Contents { padding: 0 0 0 2; height: auto; }
    TrimBanner .banner-details { color: $foreground 85%; }
    TrimBanner .banner-summary-label { color: $text-muted; text-style: bold; margin-top: 1; }
    TrimBanner Markdown { margin: 0; padding: 0; background: transparent; }
    """

    def __init__(self, event: HistoryTrimmed) -> None:
        from co_tui.session.banner import banner_details, banner_line

        self.event = event
        rows = banner_details(event)
        table = [(label, value) for label, value in rows if label != "summary"]
        width = max(len(label) for label, _ in table)
        details = Content("\n".join(f"{label:<{width}}  {value}" for label, value in table))
        children: list[Static | Markdown] = [Static(details, classes="banner-details")]
        if event.summary:
            children += [
                Static("summary", classes="banner-summary-label"),
                Markdown(event.summary, parser_factory=literal_underscores_parser),
            ]
        kind = (
            "clear"
            if event.reason == "clear"
            else "restore"
            if event.reason == "restore"
            else "compact"
            if event.strategy == "compact"
            else "trim"
        )
        super().__init__(
            *children,
            title=Content(banner_line(event)),  # type: ignore[arg-type]  # not markup
            collapsed=True,
            collapsed_symbol="▸",
            expanded_symbol="▾",
            classes=f"-{kind}",
        )

    def on_resize(self) -> None:
        """Shorten the title to the width at segment boundaries (never mid-word, issue 12 item 10)."""
        from co_tui.session.banner import banner_line

        room = self.content_region.width - 2  # the `▸ ` before the title
        if room > 0:
            self.title = Content(banner_line(self.event, room))  # type: ignore[assignment]
