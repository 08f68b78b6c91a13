"""The confirm dialog of /clear (ctrl+l): says what leaves the model's view and that it stays saved."""

from __future__ import annotations

from co_tui.tui.screens.yes_no import Answer, YesNoDialog


def clear_summary(messages: int, tokens: int, turns: int, session_saved: bool, title: str) -> str:
    """The dialog's body text: what is discarded and where the old conversation lives on."""
    from co_tui.text import format_tokens, plural

    what = (
        f"{plural(messages, 'message')} ({plural(turns, 'turn')}, "
        f"~{format_tokens(tokens)} tokens) leave the model's context and the chat is emptied."
    )
    if session_saved:
        name = f"“{title}”" if title else "this session"
        keep = f"The old conversation stays saved as {name}: /sessions resumes it."
    else:
        keep = "Nothing has been saved yet, so this conversation will be gone."
    return f"{what}\n{keep}"


class ConfirmClear(YesNoDialog):
    """Dismisses with True to clear, False to keep the conversation."""

    NO = Answer("Keep (n)", "keep", "escape,n", "Keep")
    YES = Answer("Clear (y)", "clear", "y", "Clear", variant="error")
    FOCUS = "keep"

    def __init__(self, body: str) -> None:
        super().__init__("Clear the conversation?", body, classes="-danger")
