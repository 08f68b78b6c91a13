"""The hard limit on one tool output held in memory, and how an output over it is cut.

Tools keep their outputs whole (`read_file`, `run_shell`, MCP results): governance, not the tool,
decides what the model sees of a big one — an output over `tool_output_preview_chars` is kept whole
in the transcript and previewed with its handle (`co_tui.governance.preview`). This limit only
bounds memory and the transcript against a runaway output (`yes`, a log dump): far above the
preview, and said in the output when hit.
"""

from __future__ import annotations

OUTPUT_MAX_CHARS = 4_000_000


def cap_output(text: str, max_chars: int = OUTPUT_MAX_CHARS, *, already_dropped: int = 0) -> str:
    """`text` unchanged if short enough, else its first and second half around a line saying what
    was cut and that `max_chars` is co-tui's limit on one output.

    `already_dropped`: characters removed from the middle of `text` before (counted in the note).
    """
    if len(text) <= max_chars and not already_dropped:
        return text
    head_chars = max_chars // 2  # the start (context) and the end (errors, summaries) alike
    head = text[:head_chars]
    tail = text[len(text) - (max_chars - head_chars) :] if max_chars > head_chars else ""
    omitted = len(text) - len(head) - len(tail) + already_dropped
    total = len(text) + already_dropped
    return (
        f"{head}\n[capped: {omitted:,} of {total:,} chars omitted — co-tui keeps at most {max_chars:,} chars "
        f"of one output]\n{tail}"
    )
