"""An assistant answer: Markdown streamed through `MarkdownStream`, re-rendered once at the end."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream


class AssistantMessage(Vertical):
    """One run of assistant text (a turn has one per text segment between tool calls).

    Use `start_stream()`, `write(chunk)` for every delta, then `finish()`: the stream coalesces
    chunks the renderer cannot keep up with, and `finish` renders the whole text once with
    `Markdown.update` so the final layout matches a one-shot render.
    """

    DEFAULT_CSS = """
    AssistantMessage {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $accent 60%;
    }
    AssistantMessage > Markdown { margin: 0; padding: 0; background: transparent; }
    AssistantMessage > Markdown > MarkdownBlock:last-child { margin-bottom: 0; }
    AssistantMessage.-interrupted { border-left: outer $warning 60%; }
    """

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.text = text
        self._stream: MarkdownStream | None = None
        self.finished = bool(text)
        self.interrupted = False

    def compose(self) -> ComposeResult:
        yield Markdown(self.text)

    @property
    def markdown(self) -> Markdown:
        """The Markdown widget holding the answer."""
        return self.query_one(Markdown)

    def start_stream(self) -> None:
        """Begin streaming (idempotent)."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self.markdown)

    async def write(self, chunk: str) -> None:
        """Append one delta; cheap — rendering happens in the stream's background task."""
        self.text += chunk
        self.start_stream()
        assert self._stream is not None
        await self._stream.write(chunk)

    async def finish(self, *, interrupted: bool = False) -> None:
        """Stop the stream and render the full text once; mark the answer when it was interrupted.

        The mark is only the border colour: the words ("interrupted…") come once, from the
        session's `ErrorEvent(kind="interrupted")` shown right after as an error block.
        """
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if not self.finished:
            await self.markdown.update(self.text)
            self.finished = True
        if interrupted and not self.interrupted:
            self.interrupted = True
            self.add_class("-interrupted")
