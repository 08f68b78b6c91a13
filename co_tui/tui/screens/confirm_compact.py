"""The confirm dialog of /compact (ctrl+k): what will be summarised and the estimated size after.

Enter (or ctrl+k again) compacts, Esc keeps the conversation as it is. docs/keys-and-commands.md.
"""

from __future__ import annotations

from co_tui.tui.screens.yes_no import Answer, YesNoDialog


def compact_summary(messages: int, turns: int, tokens_before: int, tokens_after: int, focus: str | None) -> str:
    """The dialog's body: what the summary replaces, the estimated request after it, and the focus."""
    from co_tui.text import format_tokens, plural

    # The token figures are the whole request's, as the meter counts it (instructions and pinned
    # turns included), not the summarised messages' alone: say so.
    body = (
        f"{plural(messages, 'message')} ({plural(turns, 'turn')}) will be summarised into one recap by the model.\n"
        f"Estimated size after: the next request from ~{format_tokens(tokens_before)} tokens now to at most "
        f"~{format_tokens(tokens_after)} (the summary's length is known once it is written).\n"
        "The transcript keeps everything; the banner will say what the summary kept."
    )
    if focus:
        body += f"\nFocus: {focus}"
    return body


class ConfirmCompact(YesNoDialog):
    """Dismisses with True to compact, False to keep the conversation as it is."""

    NO = Answer("Keep (esc)", "keep", "escape,n", "Keep")
    YES = Answer("Compact (enter)", "compact", "enter,y,ctrl+k", "Compact", variant="primary", priority=True)
    FOCUS = "compact"
    ARMS = False  # /undo takes a compaction back, and ctrl+k twice is its quick path

    def __init__(self, body: str) -> None:
        super().__init__("Compact the conversation?", body)
