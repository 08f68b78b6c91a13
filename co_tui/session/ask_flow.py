"""`compact_mode = "ask"`, the steps around a send that would cut: plan it (`plan_before_send`),
word it (`planned_cut_rows`, the same rows in the TUI's dialog and an ACP permission request), and
read the user's answer as what happens next (`next_step`). The front end only shows the question.

The answers (`CutAnswer`): cut as planned, then send; `/compact` (with a focus), then send; the
history inspector (a front end with one), then ask again; send over the budget once; or, with no
answer (None), do not send — nothing is cut and the prompt goes back to the user.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from co_tui.text import format_tokens, one_line, plural

if TYPE_CHECKING:
    from co_tui.session.ask_cut import PlannedCut
    from co_tui.session.events import ErrorEvent
    from co_tui.session.port import SessionPort

__all__ = ["CutAnswer", "CutChoice", "NextStep", "next_step", "plan_before_send", "planned_cut_rows"]

PROMPTS_SHOWN = 3  # prompts named per row (the rest: `…`), each cut to `PROMPT_WIDTH`
PROMPT_WIDTH = 40

# cut as planned; /compact with `focus`; the history inspector to pin or evict, then the question
# again; send over the budget once (refused past the model's window).
CutChoice = Literal["cut", "compact", "inspect", "over_budget"]


@dataclass(frozen=True)
class CutAnswer:
    """One answer to the question: `choice`, and the focus typed for `/compact` (None: none)."""

    choice: CutChoice
    focus: str | None = None


@dataclass(frozen=True)
class NextStep:
    """What a front end does after the answer: `send` the prompt (with `choice` for `run_turn`),
    `compact` first (with `focus`; the prompt waits and goes after), `inspect` then ask again, or
    `cancel` (nothing cut or sent; the prompt goes back to the user)."""

    do: Literal["send", "compact", "inspect", "cancel"]
    choice: Literal["cut", "over_budget"] | None = None
    focus: str | None = None


def next_step(answer: CutAnswer | None) -> NextStep:
    """The step an answer asks for (see `NextStep`)."""
    if answer is None:
        return NextStep("cancel")
    if answer.choice == "inspect":
        return NextStep("inspect")
    if answer.choice == "compact":
        return NextStep("compact", focus=answer.focus)
    return NextStep("send", choice=answer.choice)


async def plan_before_send(session: SessionPort, prompt: str) -> tuple[PlannedCut | None, ErrorEvent | None]:
    """In `compact_mode` ask: the cut sending `prompt` now would make (planned in a thread: the
    context may be large), or None when it goes out uncut (and in the other modes). A planning bug
    must not lose the prompt: it is sent as it is, and the error comes second, to be shown."""
    from co_tui.session.events import ErrorEvent

    if session.compact_mode != "ask":
        return None, None
    try:
        return await asyncio.to_thread(session.plan_send, prompt), None
    except Exception as exc:
        return None, ErrorEvent(message=f"internal error: {type(exc).__name__}: {exc}", kind="internal")


def _prompts(prompts: tuple[str, ...]) -> str:
    """Up to `PROMPTS_SHOWN` prompts, quoted, oldest first; `· …` when there are more."""
    shown = [f"“{one_line(p, PROMPT_WIDTH)}”" for p in prompts[:PROMPTS_SHOWN]]
    return " · ".join(shown + (["…"] if len(prompts) > PROMPTS_SHOWN else []))


def planned_cut_rows(plan: PlannedCut) -> list[tuple[str, str]]:
    """The question's table, (label, text) per row: what goes, what stays, the request's tokens
    against the limits, the prompt-cache cost (and the summariser call's input, for a summary)."""
    goes = ""  # no message leaves when the cut only shortens old tool outputs
    if plan.going_messages:
        goes = plural(plan.going_messages, "message") + f" ({plural(plan.going_turns, 'turn')})"
        goes += " summarised into one recap" if plan.summarised else " dropped (the transcript keeps them)"
    if plan.shortened:
        goes += (", " if goes else "") + plural(plan.shortened, "old tool output") + " shortened"
    if plan.going_prompts:
        goes += ": " + _prompts(plan.going_prompts)
    pinned = f" ({plan.pinned_turns} pinned)" if plan.pinned_turns else ""
    stays = f"{plural(plan.kept_turns, 'turn')}{pinned} and your prompt"
    if plan.kept_prompts:
        stays += ": " + _prompts(plan.kept_prompts[-PROMPTS_SHOWN:])
    guess = " (assumed)" if plan.window_is_guess else ""
    rows = [
        ("Goes", goes),
        ("Stays", stays),
        ("Tokens", f"~{format_tokens(plan.tokens_before)} now → ~{format_tokens(plan.tokens_after)} after the cut"),
        ("Limits", f"budget {format_tokens(plan.budget_tokens)} · window {format_tokens(plan.window_tokens)}{guess}"),
        (
            "Cache",
            f"~{format_tokens(plan.fresh_tokens)} read afresh once, ~{format_tokens(plan.cached_tokens)} still cached "
            f"(uncut: ~{format_tokens(plan.uncut_fresh_tokens)} new)",
        ),
    ]
    if plan.summarised_tokens:
        rows.append(("Summary", f"the summariser reads ~{format_tokens(plan.summarised_tokens)} tokens"))
    return rows
