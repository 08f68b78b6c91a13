"""An assistant answer: Markdown streamed through `MarkdownStream` at a bounded rate and size.

Two limits keep a long, fast stream from starving the event loop (keys must paint while it runs):

- text reaches the Markdown at most once per `content_interval()` — deltas are only buffered in
  between, so a provider sending 4,000 tokens/s costs at most 10 appends/s, not 4,000, and fewer
  when the layout frames an append causes are slow (tui/frame_budget.py);
- an `AssistantMessage` is a *segment* of bounded size: once it holds `SEGMENT_CHARS`, the stream
  continues in a new segment mounted right after it in the chat log, from the next block boundary
  (the continuation has no top margin, so the answer reads as one block). Every layout pass
  re-arranges the widget that grows, in time proportional to its size; a segment that stopped
  growing keeps its cached layout. One ever-growing widget would make each frame slower than the
  last (measured: 2 ms → 36 ms per layout pass over a 20,000-token answer).

While the answer streams, a closed segment's Markdown (a widget per block) is hidden behind the
lines it drew, one widget (`widgets/rendered_lines.py`): a layout pass places every displayed
widget, so without that the frames still grew with the answer (by ~14 widgets a segment).

`finish()` renders the live segment once more with `Markdown.update` so its final layout matches a
one-shot render, and shows every segment's Markdown again; closed segments end at a block boundary
and are left as they are.

Neither a flush nor `finish()` renders more than a bounded amount of text: a stream faster than the
screen can draw leaves a backlog (a 10 MB answer arrived in seconds), and rendering it at once as
Markdown blocked the loop for tens of seconds — Esc took 29 s to act. A flush writes a segment only up
to its first safe cut past `SEGMENT_CHARS` (the rest goes on in the next segments); `finish()` draws
at most `FINISH_CHARS` more and says how much of the answer is not drawn (the conversation keeps it).
"""

from __future__ import annotations

import asyncio
import re
from time import monotonic

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from co_tui.text import screen_text
from co_tui.tui.frame_budget import FrameBudget
from co_tui.tui.input_clock import KeyClock
from co_tui.tui.markdown_parser import literal_underscores_parser
from co_tui.tui.widgets.kept_lines import KeptLines
from co_tui.tui.widgets.rendered_lines import RenderedLines, render_subtree

FLUSH_TICK_S = 0.05  # how often a streaming answer checks whether an append is due
SEGMENT_CHARS = 4_000
# A flush waits this long after a key press in the prompt (input first: see input_clock), but
# never holds text back longer than MAX_HOLD_S.
INPUT_PRIORITY_S = 0.15
MAX_HOLD_S = 0.5

_FENCE = re.compile(r"^ {0,3}(```|~~~)", re.MULTILINE)
# A segment starts only at a plain paragraph: a line opening with a letter, digit or quote that is
# not a list item. Anything else after a blank line may belong to the block before it (an
# indented continuation, the next item of a loose list) or has a top margin that two adjacent
# Markdown widgets would not collapse (headers, fences, quotes).
_PARAGRAPH = re.compile(r"(?!\d{1,9}[.)][ \t])[^\W_]|[\"'(]")
# A line under a paragraph's first line that makes it something else: a setext header's underline
# (`===`, `---`) or a table's delimiter row (`--|--`, `| :- | -: |`).
_UNDERLINE = re.compile(r" {0,3}(?:=+|-+)[ \t]*|[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*")
_UNDERLINE_CHARS = frozenset("=-|: \t")
FINISH_CHARS = 20_000  # the most `finish()` draws at once; the rest of a backlog is said, not drawn
FREEZES_PER_FLUSH = 2  # closed segments drawn as lines per flush: bounds the work a flush adds
LONG_LINE = 100  # a line this long is no setext header: cut before it without waiting for the next


def block_boundary(text: str, start: int) -> int:
    """The offset of the first safe segment split in `text` whose blank line begins at or after
    `start`, or -1. `text` must begin outside any code fence. See `boundary_scan`."""
    return boundary_scan(text, start)[0]


def boundary_scan(text: str, start: int) -> tuple[int, int]:
    """(cut, undecided): the first safe segment split at or after `start` (or -1), and, when the
    first candidate cannot be judged until more text arrives, its offset (else -1).

    Safe: just after a blank line outside any code fence, where the next line starts a plain
    paragraph (`_PARAGRAPH`) with no `|` in it (a table's header row), and the line after that is
    no setext underline or table delimiter (`_UNDERLINE`). Undecided: that line has not arrived,
    or may still become an underline; a first line past `LONG_LINE` characters is taken for a
    paragraph without waiting. Text split at a safe cut renders as it would in one piece (but for
    a setext underline further down a multi-line paragraph, which is rare).
    """
    pos = start
    while True:
        gap = text.find("\n\n", pos)
        if gap < 0:
            return -1, -1
        cut = gap + 2
        while cut < len(text) and text[cut] == "\n":
            cut += 1
        if cut >= len(text):
            return -1, -1  # the next block has not started yet; nothing past here is shown either
        if len(_FENCE.findall(text, 0, gap)) % 2 == 0 and _PARAGRAPH.match(text, cut):
            eol = text.find("\n", cut)
            first = text[cut:] if eol < 0 else text[cut:eol]
            if "|" not in first:
                if eol < 0:
                    return (cut, -1) if len(first) >= LONG_LINE else (-1, cut)
                end = text.find("\n", eol + 1)
                after = text[eol + 1 :] if end < 0 else text[eol + 1 : end]
                if end < 0 and set(after) <= _UNDERLINE_CHARS:
                    return -1, cut
                if not _UNDERLINE.fullmatch(after):
                    return cut, -1
        pos = gap + 1


def undrawn(text: str, at: int) -> str:
    """`text` cut at the first safe block boundary from `at` (else at the line end before it) and a
    note of how many characters are not drawn: an answer's backlog too big to render at once."""
    cut = block_boundary(text, at)
    if cut < 0 or cut > at + FINISH_CHARS:
        cut = text.rfind("\n", 0, at) + 1 or at
    rest = len(text) - cut
    return (
        f"{text[:cut].rstrip()}\n\n*… {rest:,} more characters of this answer are not drawn here; "
        "the conversation keeps them (`/export` writes them all).*"
    )


class AnswerMarkdown(KeptLines, Markdown):
    """The Markdown of an answer's segment: it keeps its drawn lines as it grows (kept_lines.py)."""


class AssistantMessage(KeptLines, Vertical):
    """One segment of an assistant answer (a turn has one answer per text run between tool calls).

    Stream with `write(chunk)` for every delta (cheap: it only buffers) and `finish()` at the end,
    always on `live` — the segment holding the stream now, which is this one until it hands over
    to a continuation. A finished text passed to the constructor (resume) renders at once.
    """

    DEFAULT_CSS = """
    AssistantMessage {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $accent 60%;
    }
    AssistantMessage.-continued { margin-top: 0; }
    /* Every top-level Markdown block ends with a one-line bottom margin: the answer's last one is
       cut. A segment that hands over gets it back inline (see `_hand_over`). Not by :last-child:
       an order pseudo-class restyles every block on each mount. */
    AssistantMessage > Markdown { margin: 0 0 -1 0; padding: 0; background: transparent; }
    /* An answer that opens with a heading starts on the first line, as any other answer does.
       Only headings carry this order pseudo-class, so only they are restyled on each mount. */
    AssistantMessage > Markdown > MarkdownHeader:first-child { margin: 0 0 1 0; }
    AssistantMessage.-interrupted { border-left: outer $warning 60%; }
    """

    class Continued(Message):
        """The answer went on in a new segment (the chat log re-checks its size bounds)."""

    def __init__(
        self,
        text: str = "",
        *,
        previous: AssistantMessage | None = None,
        interrupted: bool = False,
        clock: KeyClock | None = None,
        budget: FrameBudget | None = None,
    ) -> None:
        """`text`: a finished answer (a resumed one; `interrupted` if the user stopped it), or empty
        for one about to stream; `previous`: the segment this one continues (its clock and budget
        too). A streaming answer flushes by the chat screen's `budget` and gives way to keys on the
        app's `clock` (tui/frame_budget.py, tui/input_clock.py); without them (a finished answer, a
        test's own app) it has fresh ones, which no key or layout frame of an app notes."""
        classes = ["-continued"] if previous is not None else []
        super().__init__(classes=" ".join([*classes, *(["-interrupted"] if interrupted else [])]))
        self._text = screen_text(text)  # escaped before the Markdown parses it (a code block shows `\x1b`)
        self._parts: list[str] = []  # deltas not yet joined into _text
        self._pending = False  # text arrived since the last flush
        self._written = 0  # characters of the text handed to the stream so far
        self._stream: MarkdownStream | None = None
        self._timer: Timer | None = None
        self._flushed_at = monotonic()
        self.previous = previous  # the segment this one continues
        if previous is not None:
            clock, budget = previous.clock, previous.budget
        self.clock: KeyClock = clock if clock is not None else KeyClock()
        self.budget: FrameBudget = budget if budget is not None else FrameBudget()
        self.next: AssistantMessage | None = None  # the continuation, once this segment is full
        self.finished = bool(text)
        self.interrupted = interrupted
        self.rendered: RenderedLines | None = None  # stands in for the Markdown while the answer streams

    def compose(self) -> ComposeResult:
        """The segment's Markdown (underscores in file names stay literal)."""
        # File names stay literal: `__init__.py` is not a bold "init" (tui/markdown_parser.py).
        yield AnswerMarkdown(self._text, parser_factory=literal_underscores_parser)

    @property
    def text(self) -> str:
        """This segment's text as shown (control characters escaped: `screen_text`), including what
        has not been painted yet."""
        if self._parts:
            self._text += screen_text("".join(self._parts))
            self._parts.clear()
        return self._text

    @property
    def live(self) -> AssistantMessage:
        """The segment that holds the stream now (this one, or the newest continuation)."""
        segment = self
        while segment.next is not None:
            segment = segment.next
        return segment

    @property
    def markdown(self) -> Markdown:
        """The Markdown widget holding this segment."""
        return self.query_one(Markdown)

    def write(self, chunk: str) -> None:
        """Buffer one delta; it is painted with the next flush (at most one per `content_interval()`)."""
        if not chunk or self.finished:
            return
        self._parts.append(chunk)
        self._pending = True
        if self._timer is None:
            self._timer = self.set_interval(FLUSH_TICK_S, self._flush)

    async def _flush(self) -> None:
        if not self._pending or self.finished:
            return
        now = monotonic()
        if now - self._flushed_at < self.budget.content_interval():
            return  # the last append's layout frames had their share of the time
        if self.clock.since_input() < INPUT_PRIORITY_S and now - self._flushed_at < MAX_HOLD_S:
            return  # the user is typing: the key's frame goes first
        self._flushed_at = now
        self._pending = False
        await self._freeze_closed()
        text = self.text
        if self._stream is None:
            self._stream = Markdown.get_stream(self.markdown)
        if self._written >= SEGMENT_CHARS:
            # The cut may not fall in text the segment already shows.
            cut, undecided = boundary_scan(text, max(self._written - 2, 0))
            if cut >= 0:
                await self._hand_over(cut)
                # Last: stopping a timer from its own callback cancels the task running it.
                self._stop_timer()
                return
            if undecided >= 0:  # a cut there may become safe with the next line: show up to it
                text = text[:undecided]
                self._pending = True  # the rest waits for the next flush, even if nothing arrives
        elif len(text) - self._written > SEGMENT_CHARS:  # a backlog: this segment takes its share only
            cut, undecided = boundary_scan(text, SEGMENT_CHARS - 2)
            end = cut if cut >= 0 else undecided
            if end > self._written:
                text = text[:end]
                self._pending = True  # the next flush hands the rest over to a new segment
        await self._stream.write(text[self._written :])
        self._written = len(text)
        self.budget.note_append()

    async def _hand_over(self, cut: int) -> None:
        """End this segment at `cut` and continue the stream in a new segment mounted after it.

        Writes that arrive meanwhile keep buffering here and move over with the rest of the text
        once the new segment is mounted; a `finish()` meanwhile keeps everything in this one.
        """
        assert self._stream is not None and isinstance(self.parent, Widget)
        await self._stream.write(self.text[self._written : cut])
        self._written = cut
        continuation = AssistantMessage(previous=self)
        try:
            await self.parent.mount(continuation, after=self)
        except asyncio.CancelledError:  # finish() stopped this flush mid-mount: the text stays here
            continuation.remove()
            raise
        if self.finished:  # the answer ended during the mount: this segment has rendered it all
            await continuation.remove()
            return
        await self._stop_stream()
        text = self.text
        self._text = text[:cut]
        self.finished = True
        # Its last block's margin now separates it from the next. Inline, not a class: a class
        # change re-applies the stylesheet to every block of the segment (docs/architecture.md,
        # "What the slow callbacks spend their time on").
        self.markdown.styles.margin = (0, 0, 0, 0)
        self.next = continuation
        continuation.write(text[cut:])
        self.post_message(self.Continued())

    async def _freeze_closed(self) -> None:
        """Draw the closed segments before this one as lines (a few a flush, newest first): each
        was laid out by a frame since it closed, or waits for the next flush."""
        budget, segment = FREEZES_PER_FLUSH, self.previous
        while segment is not None and segment.is_attached and budget > 0:  # older ones were pruned
            if segment.rendered is None:
                budget -= 1
                await segment.freeze()
            segment = segment.previous

    async def freeze(self) -> bool:
        """Hide this closed segment's Markdown behind the lines it draws now; False when it is
        not closed or not laid out since its last change (see `render_subtree`)."""
        if self.rendered is not None:
            return True
        if self.next is None or not self.finished or not self.is_attached:
            return False
        if not self.query_children(Markdown):  # being pruned: its children go before it does
            return False
        lines = render_subtree(self.markdown)
        if lines is None:
            return False
        self.rendered = RenderedLines(lines, self.markdown.region.width)
        with self.app.batch_update():  # one frame: the lines replace the blocks in place
            self.markdown.display = False
            await self.mount(self.rendered)
        return True

    async def thaw(self) -> None:
        """Show the real Markdown again (after the answer, or when the lines went stale)."""
        rendered, self.rendered = self.rendered, None
        if rendered is not None and self.is_attached:  # a pruned segment has nothing to show
            with self.app.batch_update():
                self.markdown.display = True
                await rendered.remove()

    async def on_rendered_lines_stale(self, message: RenderedLines.Stale) -> None:
        """The drawn lines no longer fit (a new width or theme): show the real Markdown again (`thaw`)."""
        message.stop()
        await self.thaw()  # a later flush draws it again at the new width or theme

    async def _stop_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is None:
            return
        try:
            await stream.stop()
        except asyncio.CancelledError:
            # A stream stopped before its task first ran (`finish` right after the flush that
            # started it) re-raises its task's cancellation here: that one is not ours, and the
            # text it held is drawn by `finish` anyway. Ours (`cancelling()`) goes on up.
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    async def finish(self, *, interrupted: bool = False) -> None:
        """Stop the stream and render this segment's whole text once with `update`, show every
        segment's own Markdown again (`thaw`); when interrupted, mark every segment of the answer.

        The mark is only the border colour: the words ("interrupted…") come once, from the
        session's `ErrorEvent(kind="interrupted")` shown right after as an error block.
        """
        self._stop_timer()
        if not self.finished:
            self.finished = True  # from here on, writes are ignored and a hand-over backs out
            await self._stop_stream()
            text = self.text
            if len(text) - self._written > FINISH_CHARS:  # a backlog: draw its head, say the rest
                self._text = text = undrawn(text, self._written + FINISH_CHARS)
            await self.markdown.update(text)
            self._written = len(text)
        segments: list[AssistantMessage] = []
        segment: AssistantMessage | None = self
        while segment is not None:
            segments.append(segment)
            segment = segment.previous
        if any(s.rendered is not None for s in segments):
            with self.app.batch_update():  # the whole answer changes back in one frame
                for segment in segments:
                    await segment.thaw()
        if interrupted:
            for segment in segments:
                segment.interrupted = True
                # Restyled alone, not its blocks (a class change re-applies the stylesheet to every
                # descendant: over a long answer's segments that took seconds after Esc).
                segment.add_class("-interrupted", update=False)
            self.app.stylesheet.update_nodes(segments)
