"""The scrolling chat log: `layout: stream`, anchored to the bottom, pruned to a bounded size."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

from co_tui.text import plural
from co_tui.tui.widgets.kept_lines import KeptLines
from co_tui.tui.widgets.notice_line import NoticeLine

if TYPE_CHECKING:
    from textual.layout import Layout

# Enough for many screens of scroll-back; beyond either bound the oldest items are removed (the
# transcript keeps everything: F2 shows it, /export writes it) so long sessions stay fast. Items
# alone are not enough: an answer's Markdown has a widget per block, and every layout pass walks
# every displayed widget (about 25 µs each measured while streaming), so those are counted too (a
# hidden subtree, such as a streaming answer's Markdown drawn as lines, is not walked).
MAX_ITEMS = 150
WIDGET_BUDGET = 300


def laid_out(widget: Widget) -> int:
    """How many widgets a layout pass places for `widget`: it and its displayed descendants."""
    return 1 + sum(laid_out(child) for child in widget.children if child.display)


class ChatLog(KeptLines, VerticalScroll):
    """Holds the conversation's widgets. `add(*widgets)` mounts and prunes.

    A `NoticeLine` at the top counts what was pruned (or never mounted on resume), so the log is
    honest about being a window onto the transcript.

    It follows the end as the conversation grows. The user scrolling up (the wheel, the
    scrollbar, keys on the log) stops that until they come back to the end, send a prompt or
    press ctrl+end. A row scrolled into view (focused, or opened with Enter) stays in view only
    until the next item arrives: then the log follows the end again (issue 32: after a tool row
    was opened, the next answer streamed off-screen). `Following` says when following starts or
    stops, and when output arrives below while it does not follow.
    """

    class Following(Message):
        """The log started or stopped following the end; `new_below`: output arrived below the view."""

        def __init__(self, following: bool, new_below: bool = False) -> None:
            # Its `__init__` written out, not a dataclass's: ~0.2 ms less before the first frame.
            self.following = following
            self.new_below = new_below
            super().__init__()

    DEFAULT_CSS = """
    ChatLog {
        layout: stream;
        height: 1fr;
        padding: 0 1 1 1;
        background: $background;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(
        self, *, max_items: int = MAX_ITEMS, widget_budget: int = WIDGET_BUDGET, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.max_items = max_items
        self.widget_budget = widget_budget
        self.hidden_count = 0  # conversation items that are not mounted (pruned or skipped on resume)
        self._earlier = NoticeLine("", id="earlier-marker")
        self._earlier.display = False
        self._into_view = False  # a row is being scrolled into view (not the user scrolling)
        self._user_left = False  # the user scrolled away from the end (not a row shown)
        self._told: tuple[bool, bool] = (True, False)  # the last `Following` posted

    @property
    def following(self) -> bool:
        """Whether the log stays at the end as output arrives."""
        return not self._anchor_released

    def release_anchor(self) -> None:
        """Stop following the end: the user scrolled, or a row is being scrolled into view."""
        super().release_anchor()
        if not self._into_view:
            self._user_left = True
        self._tell(new_below=False)

    def scroll_to_region(self, *args: Any, **kwargs: Any) -> Any:
        """Scroll a region (a focused or opened row) into view, now rather than after the next
        refresh, so that its release of the anchor is known here as not the user's."""
        self._into_view = True
        try:
            return super().scroll_to_region(*args, **{**kwargs, "immediate": True})
        finally:
            self._into_view = False

    def scroll_to_end(self) -> None:
        """Jump to the end and follow it again (ctrl+end, a click on the hint, a prompt sent)."""
        self._user_left = False
        self.scroll_end(animate=False, immediate=True)
        self._tell(new_below=False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Textual's scrollbar and re-anchoring at the end; then say whether the log follows."""
        super().watch_scroll_y(old_value, new_value)
        if self.following:
            self._user_left = False
        self._tell(new_below=self._told[1])

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        # Output added while not following: say there is new output below. (The compositor sets
        # `virtual_size` without its watchers, so this is where growth shows.)
        grew = virtual_size.height > self.virtual_size.height
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        if grew and not self.following:
            self._tell(new_below=True)
        return resized

    def pre_layout(self, layout: Layout) -> None:
        """Before the log's `layout: stream` arranges its items: an item with a widget inside that
        asked for a layout is measured again.

        The stream layout keeps the placements of the items before the first one the screen noted
        as asking (`Screen._layout_widgets[log]`), but Textual 8.2 notes an item there only when the
        item itself asked: a widget deeper inside (an answer's Markdown that just got its text)
        makes the item a key of that map and stops there. A later item asking in the same pass (the
        tool row mounted right after the answer) then kept the answer at its old height — 0 rows,
        its text hidden under the next item — until something else moved it."""
        asked = self.screen._layout_widgets
        noted = asked.get(self)
        if noted:  # nothing noted: the stream layout measures every item anyway
            noted.update(node for node in asked if node.parent is self and isinstance(node, Widget))
        super().pre_layout(layout)

    def _tell(self, *, new_below: bool) -> None:
        state = (self.following, new_below and not self.following)
        if state != self._told:
            self._told = state
            self.post_message(self.Following(*state))

    def on_mount(self) -> None:
        """Stay at the bottom as the log grows (`anchor`). The line that counts the items not shown is
        mounted at the top once there are some (`note_hidden`): most sessions never need it, and the
        first frame does not."""
        self.anchor()

    @property
    def items(self) -> list[Widget]:
        """The mounted conversation widgets, oldest first (the marker excluded)."""
        return [child for child in self.children if child is not self._earlier]

    async def add(self, *widgets: Widget) -> None:
        """Mount `widgets` at the end and prune the oldest items beyond the bounds; the log follows
        the end again unless the user scrolled away from it."""
        if not self.following and not self._user_left:
            self.scroll_to_end()
        await self.mount_all(widgets)
        await self.prune()

    async def on_assistant_message_continued(self) -> None:
        """A long answer mounted its next segment: prune to the bounds again."""
        await self.prune()  # a long answer mounted its next segment

    async def prune(self) -> None:
        """Remove the oldest items so at most `max_items` items and, but for the newest item,
        `widget_budget` widgets (the items and their displayed descendants: `laid_out`) stay mounted."""
        items = self.items
        weights = [laid_out(item) for item in items]
        total, excess = sum(weights), max(0, len(items) - self.max_items)
        total -= sum(weights[:excess])
        while excess < len(items) - 1 and total > self.widget_budget:
            total -= weights[excess]
            excess += 1
        if excess > 0:
            await self.remove_children(items[:excess])
            self.note_hidden(excess)

    def note_hidden(self, count: int) -> None:
        """Count `count` more items as not shown and update the marker line."""
        self.hidden_count += count
        if not self._earlier.is_attached and self.hidden_count > 0:  # first use: at the top
            first = self.children[0] if self.children else None
            self.mount(self._earlier, before=first)
        self._earlier.display = self.hidden_count > 0
        self._earlier.set_text(
            f"⋯ {plural(self.hidden_count, 'earlier item')} not shown here · F2 inspects the whole history"
        )

    async def clear_log(self) -> None:
        """Remove every item (after /clear or before showing another session)."""
        await self.remove_children(self.items)
        self.hidden_count = 0
        self._earlier.display = False
