"""The ask dialog of `compact_mode = "ask"`: a send would cut the context; nothing is sent yet.

It shows the planned cut (`co_tui.session.PlannedCut`, from `SessionPort.plan_send`): what goes,
what stays, the request's figures against the budget and the window, and what the cut costs the
provider's prompt cache. Four answers (docs/keys-and-commands.md):

- `c` cut as planned, then send;
- `k` `/compact` with the focus typed in the field (Enter there too), then send;
- `i` the history inspector, to pin or evict; the question comes back after it, with new figures;
- `o` send over the budget once — refused in one line here (in place of the keys' line) when the
  request would pass the window.

Esc (or Ctrl+C) cancels the send: the prompt goes back to the input, nothing is cut. The screen only asks; the
controller carries the answer out (`ChatController.cut_answered`).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from co_tui.session import CutAnswer, CutChoice, PlannedCut, planned_cut_rows
from co_tui.text import escape_controls, format_tokens, one_line, screen_text
from co_tui.tui.screens.arming import ArmedAnswers

__all__ = ["AskCutScreen", "planned_cut_rows"]

KEYS_LINE = "enter chooses · tab: the focus field · esc cancels, the prompt is kept"
ARMING_LINE = "the answers arm in a moment: letters typed now go to your prompt"

KIND_VERB = {
    "summary": "summarise",
    "static_marker": "summarise",
    "turn_trim": "trim",
    "tool_output_trim": "shorten tool outputs in",
    "step_shrink": "shorten tool outputs in",
}
REASON = {"token_budget": "over its token budget", "message_count": "past its message limit"}

OPTIONS: tuple[tuple[CutChoice, str], ...] = (
    ("cut", "c  Cut as planned, then send"),
    ("compact", "k  /compact with the focus below, then send"),
    ("inspect", "i  Pin or evict in the history inspector, then decide"),
    ("over_budget", "o  Send over the budget once"),
)


def option_label(choice: CutChoice, label: str, plan: PlannedCut) -> str:
    """An answer's line; `/compact`'s says the request's size after it (the /compact dialog's
    estimate, at most)."""
    if choice == "compact" and plan.compact_tokens_after is not None:
        return label.replace(", then send", f" (~{format_tokens(plan.compact_tokens_after)} after), then send")
    return label


class AskCutScreen(ArmedAnswers, ModalScreen[CutAnswer | None]):
    """Dismisses with the `CutAnswer`, or None (Esc: the send is cancelled). Its answers arm as an
    approval's do (arming.py): `hello` typed on as it opened went to the prompt, not its `o`."""

    CSS_PATH = ["dialog.tcss", "ask_cut.tcss"]
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel the send", show=False),
        # As everywhere else, ctrl+c gives up what is pending (Textual's screen default copies, silently).
        Binding("ctrl+c", "dismiss(None)", "Cancel the send", show=False),
        Binding("c", "choose('cut')", "Cut as planned", show=False),
        Binding("k", "choose('compact')", "Compact", show=False),
        Binding("i", "choose('inspect')", "Inspect", show=False),
        Binding("o", "choose('over_budget')", "Over the budget once", show=False),
    ]

    def __init__(self, plan: PlannedCut, prompt: str) -> None:
        super().__init__(classes="dialog -ask-cut")
        self.plan = plan
        self.prompt = prompt

    def compose(self) -> ComposeResult:
        """The question, the planned cut, the four answers, the focus field and the keys' line."""
        plan = self.plan
        verb = KIND_VERB.get(plan.kind, "cut")
        with Vertical(id="dialog"):
            yield Static(
                f"This send would {verb} the context first ({REASON.get(plan.reason, plan.reason)})",
                id="dialog-title",
            )
            yield Static(
                Content(f"Your prompt, not sent yet: “{one_line(escape_controls(self.prompt), 60)}”"), id="ask-prompt"
            )
            with Grid(id="ask-plan"):  # labels in one column, the texts wrap in the other
                for label, text in planned_cut_rows(plan):
                    yield Static(label, classes="ask-label")
                    yield Static(Content(screen_text(text)), classes="ask-text")
            yield OptionList(
                *(Option(option_label(choice, label, plan), id=choice) for choice, label in OPTIONS),
                id="ask-choices",
                compact=True,
            )
            yield Input(placeholder="focus for /compact (optional) · Enter compacts", id="ask-focus", compact=True)
            # The keys, or (in their place: the dialog fits 80x24) the refusal to send over the window.
            yield Static(KEYS_LINE, id="ask-line")
            yield Static(ARMING_LINE, id="ask-arming")

    def on_mount(self) -> None:
        """The answers take the keys once armed, `Cut as planned` highlighted."""
        options = self.query_one(OptionList)
        options.highlighted = 0
        self.start_arming("ask-choices")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on an answer: carry it out (`action_choose`)."""
        event.stop()
        self.action_choose(str(event.option.id))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the focus field compacts with that focus, armed or not: the user tabbed there."""
        event.stop()
        self._choose("compact")

    def action_choose(self, choice: str) -> None:
        """Dismiss with the answer `choice`; over the budget past the window is refused in one line
        (the dialog stays). Nothing while the answers arm."""
        if self.armed:
            self._choose(choice)

    def _choose(self, choice: str) -> None:
        if choice == "over_budget" and (line := self.plan.over_budget_refusal) is not None:
            refusal = self.query_one("#ask-line", Static)
            refusal.update(Content(line))
            refusal.add_class("-refused")
            return
        focus = self.query_one("#ask-focus", Input).value.strip() if choice == "compact" else ""
        self.dismiss(CutAnswer(choice, focus or None))  # type: ignore[arg-type]
