"""The approval dialog: before `run_shell`, an MCP tool call that needs approval, or a file edit.

It shows exactly what will run (`agent/approval_text.py`): the tool, a summary with the call's size
and line count, one line per argument of an MCP call, and the whole call in a bounded box that
scrolls (↑ ↓ PgUp PgDn Home End, whichever button has the focus), so the dialog never outgrows the
screen and nothing in the call is pushed out of view. Answers: Deny (n, Esc: the focused button at
first, so a stray Enter does no harm) or once (y).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from co_tui.agent.approval_text import ShownCall
from co_tui.agent.permissions import Decision
from co_tui.tui.widgets.call_box import CallBox, lines_content


class ApprovalDialog(ModalScreen[Decision]):
    """Asks about one call; dismisses with `"deny"` or `"once"`."""

    CSS_PATH = ["dialog.tcss", "approval.tcss"]
    BINDINGS = [
        Binding("escape,n", "answer('deny')", "Deny: the call does not run, and the model is told", show=False),
        Binding("y", "answer('once')", "Allow this call once", show=False),
        *(
            Binding(key, f"scroll_box('{key}')", "Scroll the box that shows the call", show=False)
            for key in ("up", "down", "pageup", "pagedown", "home", "end")
        ),
    ]

    def __init__(self, title: str, body: str, shown: ShownCall, *, once: str = "Run (y)") -> None:
        super().__init__(classes="dialog -approval")
        self.question = title
        self.body = body
        self.shown = shown
        self.tool = shown.tool
        self.once_label = once

    def compose(self) -> ComposeResult:
        """Title, body, the summary line and argument facts, the box, a scroll hint, the answers."""
        with Vertical(id="dialog"):
            yield Static(self.question, id="dialog-title")
            yield Static(Content(self.body), id="dialog-body")
            yield Static(Content(self.shown.summary), id="approval-summary")
            if self.shown.facts:
                yield Static(lines_content(self.shown.facts), id="approval-facts")
            yield CallBox(self.shown.lines, id="approval-box")
            yield Static("", id="approval-more")
            with Horizontal(id="dialog-buttons"):
                yield Button("Deny (n)", id="deny")
                yield Button(self.once_label, id="once", variant="warning")

    def on_mount(self) -> None:
        """Focus Deny (the safe answer) and keep the scroll hint in step with the box."""
        self.query_one("#deny", Button).focus()
        box = self.query_one(CallBox)
        self.watch(box, "scroll_y", self._show_more)
        self.watch(box, "virtual_size", self._show_more)
        self.watch(box, "size", self._show_more)

    def _show_more(self, _value: object = None) -> None:
        # After the refresh: while the box is laid out its virtual size moves ahead of its size.
        self.call_after_refresh(self._update_more)

    def _update_more(self) -> None:
        box = self.query_one(CallBox)
        below = int(box.max_scroll_y - box.scroll_y)
        hint = self.query_one("#approval-more", Static)
        if box.max_scroll_y <= 0:
            hint.update("")
            hint.display = False
            return
        hint.display = True
        rows = f"↓ {below:,} more rows below" if below > 0 else "end of the call"
        hint.update(f"{rows} · scroll: ↑ ↓ PgUp PgDn")

    def action_answer(self, decision: Decision) -> None:
        """Dismiss with `decision`."""
        self.dismiss(decision)

    def action_scroll_box(self, how: str) -> None:
        """Scroll the call's box (the buttons keep the focus)."""
        box = self.query_one(CallBox)
        {
            "up": box.scroll_up,
            "down": box.scroll_down,
            "pageup": box.scroll_page_up,
            "pagedown": box.scroll_page_down,
            "home": box.scroll_home,
            "end": box.scroll_end,
        }[how](animate=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Dismiss with the pressed button's answer."""
        decision: Decision = "once" if event.button.id == "once" else "deny"
        self.dismiss(decision)
