"""The words of a `history_trimmed` banner — one wording for the TUI, print mode and exports."""

from __future__ import annotations

from collections.abc import Sequence

from co_tui.governance.events import HistoryTrimmed
from co_tui.text import fit_segments, format_tokens, plural

REASON_TEXT = {
    "token_budget": "token budget",
    "message_count": "message limit",
    "context_overflow": "context window overflow",
    "manual_compact": "/compact",
    "clear": "/clear",
    "manual_evict": "evicted by you",
    "restore": "/undo",
    "rewind": "rewound by you",
    "branch_switch": "branch switched by you",
}

STRATEGY_TEXT = {
    "tool_output_trim": "old tool outputs shortened",
    "turn_trim": "oldest turns removed",
    "step_shrink": "older steps of this turn shortened",
    "summary": "older turns summarised",
    "static_marker": "older turns removed (summary failed)",
    "compact": "conversation summarised",
    "branch": "another point of the conversation tree",
}


_UNDID = "undid trim"  # `undid trim #3 (…)`, `undid trims #3–4 (one pass: …)`
_ONE_PASS = "one pass: "


def undo_note(cut_number: int, undone: HistoryTrimmed | Sequence[HistoryTrimmed]) -> str:
    """The note of the event that undid `undone` (ledger number `cut_number`; a pass of several
    events: all of them, numbered on from it): it names those cuts in their own banners' words,
    which `strategy_text` reads back — an undone eviction is not "old tool outputs shortened",
    though both share the strategy `tool_output_trim`."""
    events = [undone] if isinstance(undone, HistoryTrimmed) else list(undone)
    if len(events) == 1:
        return f"{_UNDID} #{cut_number} ({strategy_text(events[0])}) and every cut after it"
    words = ", ".join(dict.fromkeys(strategy_text(e) for e in events))
    last = cut_number + len(events) - 1
    return f"{_UNDID}s #{cut_number}–{last} ({_ONE_PASS}{words}) and every cut after it"


# What the user's `d` did, said as such: STRATEGY_TEXT's "oldest turns removed" was wrong for a
# turn picked from the middle (docs/context-governance.md, "Evict").
_EVICTED_TEXT = {"tool_output_trim": "a tool output removed", "turn_trim": "an older turn removed"}


def strategy_text(event: HistoryTrimmed) -> str:
    """How `event` cut, in words: STRATEGY_TEXT, or what an eviction removed; for an undo, the
    words of the cut it undid (`undo_note`)."""
    if event.reason == "manual_evict" and event.strategy in _EVICTED_TEXT:
        return _EVICTED_TEXT[event.strategy]
    if event.reason == "restore" and event.note and event.note.startswith(_UNDID) and " (" in event.note:
        # Up to the last parenthesis: a cut's own words may hold one ("(summary failed)").
        return event.note.split(" (", 1)[1].rpartition(")")[0].removeprefix(_ONE_PASS)
    if event.reason == "clear":
        return "every turn removed"
    return STRATEGY_TEXT.get(event.strategy, event.strategy)


def banner_title(event: HistoryTrimmed) -> str:
    """The headline: 'History trimmed', 'History summarised', 'Conversation compacted', …"""
    if event.reason == "clear":
        return "Conversation cleared"
    if event.reason == "manual_evict":
        return "Removed from the context"
    if event.salvaged_item is not None:
        return "Lost item recovered"
    if event.reason == "restore":
        return "Cut undone"
    if event.reason == "rewind":
        return "Conversation rewound"
    if event.reason == "branch_switch":
        return "Branch switched"
    if event.strategy == "compact":
        return "Conversation compacted"
    if event.strategy == "summary":
        return "History summarised"
    return "History trimmed"


def banner_line(event: HistoryTrimmed, width: int | None = None) -> str:
    """One line, e.g. '✂ History trimmed · 14 messages (3 turns) · 41.2k → 12.9k tokens · token budget'.

    `width`: at most that many characters, shortened at segment boundaries (`fit_segments`: the
    last segments give way to `…`), never cut mid-word; the full line is in the banner's details."""
    parts = banner_parts(event)
    return " · ".join(parts) if width is None else fit_segments(parts, width)


def banner_parts(event: HistoryTrimmed) -> list[str]:
    """The segments of `banner_line`, most important first."""
    if event.salvaged_item is not None:  # a lost item recovered (governance/recover.py)
        return [
            f"↶ {banner_title(event)}",
            f'"{event.salvaged_item}" back in context',
            f"{format_tokens(event.tokens_before)} → {format_tokens(event.tokens_after)} tokens",
            "a verbatim excerpt, at the end",
        ]
    if event.reason == "restore" and event.restored_messages == 0 and event.note and ": " in event.note:
        return [  # an undone recovery: nothing comes back, the excerpt leaves
            f"↶ {banner_title(event)}",
            event.note.split(": ", 1)[1],
            f"{format_tokens(event.tokens_before)} → {format_tokens(event.tokens_after)} tokens",
        ]
    if event.reason == "restore":  # the model sees more again, not less
        return [
            f"↶ {banner_title(event)}",
            f"{plural(event.restored_messages, 'message')} back in context",
            f"{format_tokens(event.tokens_before)} → {format_tokens(event.tokens_after)} tokens",
            f"undid: {strategy_text(event)}",
        ]
    if event.reason in ("rewind", "branch_switch"):
        return [
            f"⎇ {banner_title(event)}",
            _branch_words(event),
            f"{format_tokens(event.tokens_before)} → {format_tokens(event.tokens_after)} tokens",
            "the turns after it are kept as a branch" if event.reason == "rewind" else "/branches lists them",
        ]
    parts = [f"✂ {banner_title(event)}"]
    if event.reason == "manual_evict" and event.note:
        # What was removed, named by the eviction (its first clause; the cache warning is in the details,
        # from `cache_warning` — a ledger saved before that field holds it in the note after "; ").
        parts.append(event.note.split("; ", 1)[0].removeprefix("removed the "))
    elif event.dropped_messages:
        turns = f" ({plural(event.dropped_turns, 'turn')})" if event.dropped_turns else ""
        parts.append(plural(event.dropped_messages, "message") + turns)
        if event.unsummarised_messages:
            parts.append(f"{event.unsummarised_messages} of them without a summary")
    elif event.strategy in ("tool_output_trim", "step_shrink"):
        parts.append(STRATEGY_TEXT[event.strategy])
    parts.append(f"{format_tokens(event.tokens_before)} → {format_tokens(event.tokens_after)} tokens")
    parts.append(REASON_TEXT.get(event.reason, event.reason))
    if event.strategy == "static_marker":  # why there is no summary; the note in the details says more
        parts.append("summary rejected" if (event.note or "").startswith("summary rejected") else "summary failed")
    return parts


def _branch_words(event: HistoryTrimmed) -> str:
    """Where a rewind or a branch switch went: 'to before turn 3 (branch 2)', 'branch 1 → branch 2'."""
    if event.reason == "rewind":
        return f"to before turn {event.rewound_to_turn} (branch {event.branch_to})"
    return f"branch {event.branch_from} → branch {event.branch_to}"


def banner_details(event: HistoryTrimmed) -> list[tuple[str, str]]:
    """The expanded view: (label, value) rows; the summary text comes last when there is one."""
    rows = [
        ("reason", REASON_TEXT.get(event.reason, event.reason)),
        ("strategy", strategy_text(event)),
        ("removed", f"{plural(event.dropped_messages, 'message')}, {plural(event.dropped_turns, 'turn')}"),
        ("kept", plural(event.kept_turns, "turn")),
        ("tokens", f"{event.tokens_before:,} → {event.tokens_after:,} (budget {event.budget_tokens:,})"),
    ]
    if event.reason == "restore":
        rows[2] = ("restored", plural(event.restored_messages, "message"))
    if event.reason in ("rewind", "branch_switch"):
        rows[1] = ("went", _branch_words(event))
        rows[2] = ("context", "exactly as the model saw it then: markers, summaries, cuts in effect and pins")
        rows[3] = ("kept", f"the turns after it, as branch {event.branch_from}")
    if event.salvaged_item is not None:
        rows[0] = ("reason", "a lost item recovered by you (r on the summary's banner)")
        rows[1] = ("lost by", STRATEGY_TEXT.get(event.strategy, event.strategy))
        rows[2] = ("recovered", f'"{event.salvaged_item}": a verbatim excerpt, appended at the end of the context')
    if event.unsummarised_messages:
        covered = event.dropped_messages - event.unsummarised_messages
        rows.append(
            (
                "not summarised",
                f"the oldest {plural(event.unsummarised_messages, 'message')} did not fit the summariser's input "
                f"and were removed without a summary; the summary covers the {covered} after them",
            )
        )
    if event.summary_kept is not None or event.summary_lost is not None:
        from co_tui.session.wording import kept_line

        prompts = (event.prompts_kept, event.prompts_total)
        rows.append(("checked", kept_line(event.summary_kept or [], event.summary_lost or [], prompts=prompts)))
    if event.summary_instructions:
        rows.append(("instructions", ", then ".join(event.summary_instructions)))
    if event.note:
        rows.append(("note", event.note))
    if event.cache_warning:
        rows.append(("prompt cache", event.cache_warning))
    if event.summary:
        rows.append(("summary", event.summary))
    return rows
