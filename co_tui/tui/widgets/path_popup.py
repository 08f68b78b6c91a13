"""The `@path` completion popup shown under the prompt while typing `@…`: workspace files and
folders (`agent/mentions.py` finds them, confined as `read_file` is)."""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.widgets.option_list import Option

from co_tui.tui.widgets.completion_popup import CompletionPopup

Completer = Callable[[str], list[str]]
"""`complete(fragment) -> paths`: the workspace paths for a mention typed so far (folders end in `/`)."""


class PathPopup(CompletionPopup):
    """Workspace paths for the mention being typed; the prompt keeps focus and drives it."""

    def __init__(self, complete: Completer | None = None, *, id: str | None = None) -> None:
        """`complete`: finds the paths (None: the popup never opens)."""
        super().__init__(id=id)
        self.complete = complete
        self.matches: list[str] = []

    def show_for(self, fragment: str) -> bool:
        """Open with the paths for `fragment` (`src/pa`); close when there are none."""
        matches = self.complete(fragment) if self.complete is not None else []
        if not matches:
            self.close()
            return False
        if matches != self.matches:
            self.matches = matches
            self.set_options(Option(self._row(path), id=f"p{i}") for i, path in enumerate(matches))
            self.highlighted = 0
        self.open()
        return True

    @staticmethod
    def _row(path: str) -> Content:
        """`@src/parser.py`, the name bold; a folder says so (the gap a segment of its own: SVG
        renderers drop a text element's leading spaces)."""
        is_folder = path.endswith("/")
        folder, slash, name = path.rstrip("/").rpartition("/")
        parts: list[str | tuple[str, str]] = [("@", "$text-muted"), (folder + slash, "$text-muted")]
        parts.append((name + ("/" if is_folder else ""), "bold $text-accent"))
        if is_folder:
            parts += ["  ", ("folder", "italic $text-muted")]
        return Content.assemble(*parts)

    @property
    def selected(self) -> str | None:
        """The highlighted path, if the popup is open."""
        if not self.is_open or self.highlighted is None or self.highlighted >= len(self.matches):
            return None
        return self.matches[self.highlighted]
