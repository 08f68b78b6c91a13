"""The prompt: a multi-line input where Enter sends, with slash completion and prompt recall."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.binding import Binding
from textual.widgets import TextArea

from co_tui.session import hash_note
from co_tui.text import plural
from co_tui.tui.format import TEXT_LAYOUT_MAX, format_bytes, normal_newlines
from co_tui.tui.input_clock import KeyClock
from co_tui.tui.messages import RunSlash, SendPrompt
from co_tui.tui.widgets.path_popup import PathPopup
from co_tui.tui.widgets.slash_popup import SlashPopup


def paste_placeholder(text: str, number: int) -> str:
    """The one-line stand-in for a large paste: `[pasted 5.0 MB, 120,000 lines #1]`."""
    amount = format_bytes(len(text.encode("utf-8", "surrogatepass")))
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    return f"[pasted {amount}, {plural(lines, 'line')} #{number}]"


class PromptInput(TextArea):
    """Enter sends (`SendPrompt`, or `RunSlash` for a line starting with `/`); ctrl+j inserts a
    newline; `//text` sends `/text` literally. While the slash popup is open, up/down pick, tab
    completes, enter runs the pick and escape closes it. While the path popup is open (an `@…`
    being typed), up/down pick, tab completes (into a folder: its entries follow), enter puts the
    pick in as `@path ` and escape closes it. Up/down on the first/last line recall earlier prompts.
    """

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 10;
        margin: 0 1;
        border: round $primary 60%;
        padding: 0 1;
        background: $background;
        &:focus { border: round $primary; }
    }
    """

    BINDINGS = [
        Binding("ctrl+j,alt+enter,shift+enter", "newline", "Newline", show=False),
        # Instead of TextArea's copy (the app's action still copies a selection), in key order: a
        # priority binding ran before the letters typed just ahead of it reached the prompt.
        Binding("ctrl+c", "app.ctrl_c", "Clear / interrupt / quit", show=False),
    ]

    def __init__(
        self,
        popup: SlashPopup,
        clock: KeyClock,
        *,
        paths: PathPopup | None = None,
        echo: Callable[[], object] | None = None,
        id: str | None = None,
    ) -> None:
        """`popup`: the slash popup it drives; `paths`: the `@path` popup (None: no path completion);
        `clock`: the app's key timings, noted on each key; `echo`: called right after each key press
        is handled, in the same callback (the chat screen paints the prompt there: tui/key_echo.py)."""
        super().__init__(
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder="Ask anything · / for commands · ctrl+j for a newline",
            highlight_cursor_line=False,
        )
        self.popup = popup
        self.paths = paths
        self._paths_at: tuple[str, tuple[int, int]] | None = None  # (text, cursor) the path popup last matched
        self.clock = clock
        self.echo = echo
        self.sent: list[str] = []  # prompt recall, oldest first
        self._recall: int | None = None
        self._popup_text = ""  # the text the popup last matched
        self.pastes: dict[str, str] = {}  # placeholder -> the large paste it stands for

    def hold_paste(self, text: str) -> str:
        """Keep `text` aside and return its placeholder (the same text keeps its placeholder)."""
        for placeholder, held in self.pastes.items():
            if held == text:
                return placeholder
        placeholder = paste_placeholder(text, len(self.pastes) + 1)
        self.pastes[placeholder] = text
        return placeholder

    def expand_pastes(self, text: str) -> str:
        """`text` with every paste placeholder replaced by the text it stands for."""
        for placeholder, held in self.pastes.items():
            if placeholder in text:
                text = text.replace(placeholder, held)
        return text

    def restore(self, text: str) -> None:
        """Put a prompt that could not be sent back, large pastes in it shown as placeholders again."""
        for placeholder, held in self.pastes.items():
            if held and held in text:
                text = text.replace(held, placeholder)
        if len(text) > TEXT_LAYOUT_MAX:
            text = self.hold_paste(text)
        self._set_text(text)

    async def _on_paste(self, event: events.Paste) -> None:
        # Textual then runs TextArea._on_paste too (handlers run down the MRO) unless prevented.
        if len(event.text) > TEXT_LAYOUT_MAX and not self.read_only:
            event.stop()
            event.prevent_default()
            self.insert(self.hold_paste(normal_newlines(event.text)))
            self.focus()

    def action_newline(self) -> None:
        """ctrl+j, alt+enter, shift+enter: a line break instead of sending."""
        self.insert("\n")

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """The slash popup follows the text."""
        self._sync_popup()

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        """The path popup follows the cursor (it completes the `@…` right before it)."""
        self._sync_paths(self.text)

    def _sync_popup(self) -> None:
        """Show the commands matching the text typed so far, or the paths for the `@…` being typed
        before the cursor; else close the popups.

        Once per text (and cursor, for paths): escape closes a popup until the text changes again.
        """
        text = self.text
        self._sync_paths(text)
        if text == self._popup_text:
            return
        self._popup_text = text
        if text.startswith("/") and not text.startswith("//") and not any(c.isspace() for c in text):
            self.popup.show_for(text)
        else:
            self.popup.close()

    def _sync_paths(self, text: str) -> None:
        if self.paths is None:
            return
        where = (text, self.cursor_location)
        if where == self._paths_at:
            return
        self._paths_at = where
        fragment = self._mention_before_cursor()
        if fragment is None:
            self.paths.close()
        else:
            self.paths.show_for(fragment)

    def _mention_before_cursor(self) -> str | None:
        """The path typed after an `@` right before the cursor, or None (agent/mentions.py)."""
        from co_tui.session import mention_being_typed

        row, column = self.cursor_location
        return mention_being_typed(self.document.get_line(row)[:column])

    def _take_path(self, path: str, *, into_folder: bool) -> None:
        """Replace the `@…` being typed with `@path`: a space after it, unless `into_folder` (tab on a
        folder: its entries follow)."""
        fragment = self._mention_before_cursor()
        if fragment is None:
            return
        row, column = self.cursor_location
        ending = "" if into_folder and path.endswith("/") else " "
        result = self.replace(path + ending, (row, column - len(fragment)), (row, column))
        self.move_cursor(result.end_location)
        if ending:
            self._close_paths()
        else:
            self._sync_paths(self.text)

    def _close_paths(self) -> None:
        if self.paths is not None:
            self.paths.close()

    async def _on_key(self, event: events.Key) -> None:
        self.clock.note_input()
        if self.echo is not None:
            self.call_next(self.echo)  # after every handler of this key (TextArea's inserts the text)
        key = event.key
        if key in ("up", "down", "tab", "enter", "escape"):
            # `Changed` arrives after keys already queued: typed fast (a paste, a busy machine),
            # `/help` + Enter would otherwise run the pick made for `/`, i.e. /compact.
            self._sync_popup()
        if key == "enter" and self.paths is not None and self.paths.is_open:
            # Typed out in full (`@README.md` + Enter): nothing to pick, Enter sends.
            if self.paths.selected is not None and self.paths.selected == self._mention_before_cursor():
                self.paths.close()
        if self.paths is not None and self.paths.is_open and key in ("up", "down", "tab", "enter", "escape"):
            event.stop()
            event.prevent_default()
            path = self.paths.selected
            if key in ("up", "down"):
                self.paths.move(-1 if key == "up" else 1)
            elif key == "escape":
                self.paths.close()
            elif path is not None:
                self._take_path(path, into_folder=key == "tab")
            return
        if self.popup.is_open and key in ("up", "down", "tab", "enter", "escape"):
            event.stop()
            event.prevent_default()
            spec = self.popup.selected
            if key in ("up", "down"):
                self.popup.move(-1 if key == "up" else 1)
            elif key == "escape":
                self.popup.close()
            elif key == "tab" and spec is not None:
                self._set_text(spec.slash + (" " if "[" in spec.usage else ""))
            elif key == "enter" and spec is not None:
                self._set_text(spec.slash)
                self.submit()
            return
        if key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if key in ("up", "down") and self._recall_step(key):
            event.stop()
            event.prevent_default()
            return
        if await self._run_own_binding(key):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def _run_own_binding(self, key: str) -> bool:
        """Run the prompt's own binding for `key` (Backspace, arrows, ctrl+w…) here, in key order.

        Textual runs a focused widget's bindings once the key has bubbled up to the app, behind
        the keys already queued there: typed fast, `z`, Backspace, `abc` gave `zab` (the Backspace
        deleted the `c`), and an arrow moved the cursor after the letters typed behind it.
        """
        for binding in self._bindings.key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    def _recall_step(self, key: str) -> bool:
        """Up on the first line / down on the last line walks through earlier prompts."""
        row, _ = self.cursor_location
        if key == "up" and row == 0 and self.sent:
            self._recall = len(self.sent) - 1 if self._recall is None else max(0, self._recall - 1)
        elif key == "down" and row == self.document.line_count - 1 and self._recall is not None:
            self._recall += 1
            if self._recall >= len(self.sent):
                self._recall = None
                self._set_text("")
                return True
        else:
            return False
        self._set_text(self.sent[self._recall])
        return True

    def _set_text(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def discard(self) -> str:
        """Clear the text (ctrl+c), kept in prompt recall so Up brings it back; returns it."""
        text = self.text
        if text.strip() and (not self.sent or self.sent[-1] != text.strip()):
            self.sent.append(text.strip())
        self._recall = None
        self.load_text("")
        self.popup.close()
        self._close_paths()
        return text

    def submit(self) -> None:
        """Send the current text (blank input does nothing) and clear the prompt."""
        text = self.text.strip()  # placeholders are kept in recall; the session gets the full text
        self.popup.close()
        self._close_paths()
        if not text:
            return
        self._recall = None
        if not self.sent or self.sent[-1] != text:
            self.sent.append(text)
        self.load_text("")
        if text.startswith("/") and not text.startswith("//"):
            self.post_message(RunSlash(text))
        elif (note := hash_note(text)) is not None:  # `#note`: /remember (session/note_prompt.py)
            self.post_message(RunSlash(f"/remember {self.expand_pastes(note)}"))
        else:
            self.post_message(SendPrompt(self.expand_pastes(text[1:] if text.startswith("//") else text).strip()))
