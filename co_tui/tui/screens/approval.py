"""The approval dialog: before `run_shell`, an MCP tool call that needs approval, or a file edit.

It shows exactly what will run (`agent/approval_text.py`): the tool, a summary with the call's size
and line count, one line per argument of an MCP call, and the whole call in a bounded box that
scrolls (↑ ↓ PgUp PgDn Home End, whichever button has the focus), so the dialog never outgrows the
screen and nothing in the call is pushed out of view. Answers: Deny (n, Esc: the focused button at
first, so a stray Enter does no harm), once (y) and, when offered, always for this session (a: a
line above the buttons says exactly what it allows; `agent/permissions.py` decides the scope).
The answers arm `ARMING_S` after the dialog is shown (arming.py): a key meant for the prompt does
not answer it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from co_tui.session import EDIT_TOOLS, Decision, Grant, ShownCall, escaped, show_call
from co_tui.text import escape_controls
from co_tui.tui.screens.arming import ArmedAnswers
from co_tui.tui.widgets.call_box import CallBox, lines_content


class ApprovalDialog(ArmedAnswers, ModalScreen[Decision]):
    """Asks about one call; dismisses with `"deny"`, `"once"` or `"always"` (offered only when
    `always`, the third button's label, is given; `always_scope` says what it allows)."""

    CSS_PATH = ["dialog.tcss", "approval.tcss"]
    BINDINGS = [
        Binding("escape,n,ctrl+c", "answer('deny')", "Deny: the call does not run, and the model is told", show=False),
        Binding("y", "answer('once')", "Allow this call once", show=False),
        Binding("a", "answer('always')", "Always allow the like of it for this session (see /permissions)", show=False),
        *(
            Binding(key, f"scroll_box('{key}')", "Scroll the box that shows the call", show=False)
            for key in ("up", "down", "pageup", "pagedown", "home", "end")
        ),
    ]

    def __init__(
        self,
        title: str,
        body: str,
        shown: ShownCall,
        *,
        once: str = "Run (y)",
        always: str | None = None,
        always_scope: str = "",
    ) -> None:
        super().__init__(classes="dialog -approval")
        self.question = title
        self.body = body
        self.shown = shown
        self.tool = shown.tool
        self.once_label = once
        self.always_label = always
        self.always_scope = always_scope

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
            if self.always_label is not None and self.always_scope:
                yield Static(Content(f"a: allow {self.always_scope} for this session"), id="approval-scope")
            with Horizontal(id="dialog-buttons"):
                yield Button("Deny (n)", id="deny")
                yield Button(self.once_label, id="once", variant="warning")
                if self.always_label is not None:
                    yield Button(self.always_label, id="always", variant="warning")

    def on_mount(self) -> None:
        """Arm the answers, Deny (the safe answer) focused then, and keep the scroll hint in step with the box."""
        self.start_arming("deny")
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`a` answers only when the dialog offers "always"."""
        if action == "answer" and parameters == ("always",):
            return self.always_label is not None
        return True

    def action_answer(self, decision: Decision) -> None:
        """Dismiss with `decision`, once the answers are armed (before, the key does nothing)."""
        if self.armed:
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
        """Dismiss with the pressed button's answer (buttons are disabled until armed)."""
        answers: dict[str | None, Decision] = {"once": "once", "always": "always"}
        self.dismiss(answers.get(event.button.id, "deny"))


def approval_dialog(
    tool: str, command: str, path: str | None, grant: Grant, *, by_user: bool = False, agent: str | None = None
) -> ApprovalDialog:
    """The dialog for a call of `tool` (`command`: its exact text, or a file edit's diff with `path`
    the file), offering `grant` as its "always"; `by_user`: a `!command` the user typed, not the model;
    `agent`: the subagent that asks (its id, e.g. `explore-1`), named in the dialog (None: the main agent)."""
    who = "The model" if agent is None else f"The subagent {escaped(agent)}"
    always: str | None
    if tool in EDIT_TOOLS:
        title = "Write this file?" if tool == "write_file" else "Edit this file?"
        body, once, always = (
            f"{who} asked to change {escaped(path or '?')} in the workspace:",
            "Apply (y)",
            "Allow edits (a)",
        )
    elif tool == "remember":  # a memory note: `command` is the exact line, `path` the file it goes to
        title, body, once, always = (
            "Remember this?",
            f"{'You typed #' if by_user else who + ' asked'}: add this line to {escaped(path or '?')}",
            "Remember (y)",
            None if by_user else "Always (a)",  # a grant from your own # would let the model write unasked
        )
    elif tool == "run_shell":
        title, body, once, always = (
            "Run this shell command?",
            "You typed !, to run in the workspace:" if by_user else f"{who} asked to run, in the workspace:",
            "Run (y)",
            "Always (a)",
        )
    else:
        title, body, once, always = (
            "Call this MCP tool?",
            f"{who} asked to call an MCP tool:",
            "Call (y)",
            "Always (a)",
        )
    # The call itself is in the box: an exact-command grant needs no second copy of it.
    scope = "this exact command again" if grant.kind == "command" else escape_controls(grant.describe())
    return ApprovalDialog(
        title, body, show_call(tool, command, path=path), once=once, always=always, always_scope=scope
    )
