"""The inflation guard: a summary that would not make the context smaller is no summary.

co-tui asks the summariser for at most `summary_token_budget` tokens (`max_tokens` on the wire and
a word count in the prompt), but a model may ignore both, and a provider may not cap the answer.
Gemini CLI rejects such a summary (`COMPRESSION_FAILED_INFLATED_TOKEN_COUNT`); so does co-tui:
measured with the same estimator as everything else, a summary is rejected when it is not smaller
than the messages it would replace, or when it is over the budget it was asked to keep
(docs/context-governance.md, "Inflation guard"). The caller then cuts without it (zero-LLM) and
counts the call as a failure for the cooldown. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.messages import ModelMessage

from co_tui.governance.tokens import estimate_text_tokens, estimate_tokens
from co_tui.text import format_tokens

__all__ = ["summary_rejection"]


def summary_rejection(
    summary: str, replaced: Sequence[ModelMessage], budget_tokens: int, *, must_shrink: bool = True
) -> str | None:
    """Why `summary` must not replace `replaced` (one line, for the banner), or None when it may.

    Rejected when its estimate is larger than `budget_tokens` (the longest summary allowed,
    `summary_size_limit`), or — with `must_shrink`, as for every automatic cut — not smaller than
    the estimate of `replaced`. `/compact` passes `must_shrink=False`: the user asked for it, and
    the summary of a short conversation may rightly be longer than it (the budget still bounds it).
    Never mutates its inputs.
    """
    tokens = estimate_text_tokens(summary)
    replaces = estimate_tokens(replaced)
    if must_shrink and tokens >= replaces:
        return (
            f"the summary ({format_tokens(tokens)} tokens) was not smaller than the "
            f"{format_tokens(replaces)} tokens it would replace"
        )
    if tokens > budget_tokens:
        return f"the summary ({format_tokens(tokens)} tokens) was over its {format_tokens(budget_tokens)}-token budget"
    return None
