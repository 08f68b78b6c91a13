"""The sentences the user sees about the context, worded here from governance's facts.

Governance (`co_tui/governance/`) returns facts — numbers, enums, events such as
`PinsOverBudgetEvent`, `CutPastWindowEvent`, `HookVetoEvent` — and the session words them for every
front end. What the MODEL reads stays governance's product: the markers, cut notes and stubs inside
the history, and a `history_trimmed` event's `note` (its data: banner, jsonl and ledger alike)
(docs/context-governance.md, "Who words what").

Imports nothing heavy: a front end may ask for a line before pydantic-ai loads.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from co_tui.governance.refused import Refused
from co_tui.text import format_tokens

if TYPE_CHECKING:
    from co_tui.governance.compact_mode import CompactMode

__all__ = [
    "BUSY",
    "MODE_TEXT",
    "busy_line",
    "kept_line",
    "over_budget_notice",
    "past_window_line",
    "pins_over_budget_line",
    "print_mode_ask_line",
    "refusal_line",
    "veto_line",
    "worded_refusals",
]


BUSY = "a turn is running — press esc to interrupt it first"
"""What is refused while a turn (or `/compact`, `/clear`, a `!command`) runs, and what to do."""


def busy_line(doing: str) -> str:
    """The one line refusing `doing` ("undoing a cut", "/rewind") while a turn runs, for the session
    and every front end: lower case, no full stop (the `Refused` wording rule, governance/refused.py)."""
    return f"{doing}: {BUSY}"


# --- refusals: governance's rules refuse with `why` and facts (governance/refused.py) -------------

REFUSAL_LINES: dict[str, str] = {
    "evict.already_removed": "this tool output was already removed from the context",
    "evict.no_message": "no message {index} in the context",
    "evict.marker": "that is a marker governance inserted, not a message: nothing to evict",
    "evict.system_prompt": "the system prompt cannot be evicted",
    "evict.newest_turn": "the newest turn cannot be evicted: it is what the model answers next",
    "recover.no_item": "name the lost item to recover (a path, name or number from the summary check)",
    "recover.in_context": '"{item}" is already in the context (message {where} mentions it): nothing to recover',
    "recover.not_summarised": '"{item}" is not mentioned in the messages trim #{cut_number} summarised',
    "recover.unanswered": "the context ends with a request the model has not answered: send a message first",
    "recover.over_budget": 'cannot recover "{item}": the excerpt would take the context to ~{after:,} tokens, '
    "over the {budget_tokens:,}-token budget — the next request would cut it again",
    "undo.nothing": "nothing to undo: the model has seen the whole conversation so far",
    "undo.unrecorded_all": "nothing left to undo: the cuts left were saved before co-tui kept what a cut removed",
    "undo.all_undone": "nothing left to undo: every cut in this session is already undone",
    "undo.no_trim": "no trim #{number} in this session's ledger",
    "undo.is_clear": "trim #{number} is a /clear, not a cut: nothing to undo there",
    "undo.is_undo": "trim #{number} is an undo, not a cut: nothing to undo there",
    "undo.unrecorded": "trim #{number} was saved before co-tui kept what a cut removed: it cannot be undone",
    "undo.already_undone": "trim #{number} is already undone",
}
"""The line for each rule that refuses (`Refused.why`), its facts as format fields."""


def refusal_line(refused: Refused) -> str:
    """The one line the user reads for a refusal governance raised with facts (`refused.why`)."""
    return REFUSAL_LINES[refused.why].format(**refused.facts)


@contextmanager
def worded_refusals() -> Iterator[None]:
    """Around a call into governance: a refusal raised with facts is raised again, the same class,
    with its line (`refusal_line`); one that has its line already passes as it is."""
    try:
        yield
    except Refused as refused:
        if not refused.why or str(refused) != refused.why:
            raise
        raise type(refused)(refusal_line(refused), why=refused.why, **refused.facts) from None


# --- compact_mode (governance/compact_mode.py decides; these say it) ----------------------------

MODE_TEXT: dict[CompactMode, str] = {
    "auto": "cuts automatically when the context reaches its budget",
    "ask": "asks before a send that would cut (cut, /compact, pin or evict, or send over the budget once)",
    "off": "never cuts automatically (/compact, /clear and overflow recovery still do)",
}


def over_budget_notice(tokens: int, budget_tokens: int) -> str:
    """The one line said when `compact_mode` is off and the context is past the token budget or the
    message limit (`tokens` of `budget_tokens` shown)."""
    return (
        f"context past its limits ({format_tokens(tokens)} of {format_tokens(budget_tokens)} tokens) and "
        "compact_mode is off: nothing is cut automatically — /compact, /clear or /compact-mode auto"
    )


def past_window_line(tokens: int, window_tokens: int) -> str:
    """The one line when `ask` cuts without asking: a request inside a turn would pass the window
    (`CutPastWindowEvent`)."""
    return (
        f"compact_mode ask: this request (~{format_tokens(tokens)} tokens) would pass the model's "
        f"{format_tokens(window_tokens)} window — cutting without asking"
    )


def print_mode_ask_line() -> str:
    """Print mode's stderr line: it cannot ask, so `ask` runs as `auto`."""
    return "compact_mode ask: print mode cannot ask — cutting automatically (auto) for this run"


def veto_line(honoured: bool) -> str:
    """The one line for a `pre_compact` veto (`HookVetoEvent`): honoured, or not because the request
    would pass the model's window."""
    if not honoured:
        return "pre_compact hook's veto not honoured: the request would exceed the model's window; cutting"
    return "pre_compact hook vetoed the automatic cut: this request goes over the budget"


# --- pins and summaries ----------------------------------------------------------------------------


def pins_over_budget_line(pinned_tokens: int, budget_tokens: int) -> str:
    """The one line that says the pinned turns make the budget unreachable (`PinsOverBudgetEvent`),
    and what to do."""
    return (
        f"Pinned turns hold ~{format_tokens(pinned_tokens)} tokens: with the instructions and the newest turn that "
        f"is over the {format_tokens(budget_tokens)}-token budget, and no cut could get under it, so none is made. "
        "Unpin a turn (p in /history) or raise context_budget_tokens."
    )


def kept_line(kept: Sequence[str], lost: Sequence[str], *, shown: int = 8, prompts: tuple[int, int] = (0, 0)) -> str:
    """`kept 14 of 16 paths, 3 of 3 names, 5 of 7 prompts verbatim; lost: src/a.py, docs/b.md` (the
    banner's detail of a summary's check, `summary_check.check_summary`). `prompts`: (kept verbatim,
    total) user prompts; left out when there were none."""
    from co_tui.governance.summary_check import item_kind

    counts: list[str] = []
    for kind, noun in (("path", "paths"), ("name", "names"), ("number", "numbers")):
        total = sum(1 for item in [*kept, *lost] if item_kind(item) == kind)
        if total:
            counts.append(f"{sum(1 for item in kept if item_kind(item) == kind)} of {total} {noun}")
    if prompts[1]:
        counts.append(f"{prompts[0]} of {prompts[1]} prompts verbatim")
    line = "kept " + ", ".join(counts) if counts else "nothing to check"
    if lost:
        more = f", … {len(lost) - shown} more" if len(lost) > shown else ""
        line += "; lost: " + ", ".join(lost[:shown]) + more
    return line
