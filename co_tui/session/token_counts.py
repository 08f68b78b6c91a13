"""Token estimates saved with a session's rows, so a resumed session is not counted afresh.

Counting every message of a long context is most of the first governance pass after a resume (the
estimator reads every character). The estimate of a row depends only on its body, so it is kept in
`token_counts` keyed by the row's digest (the one the store already keeps for transcript and context
rows, `message_codec.digest`) and by `ESTIMATOR_VERSION`: figures from another estimator are
ignored and counted afresh. The counts are those of the in-memory message as it was saved (before
credential redaction, which changes a body by a few tokens at most). See docs/context-governance.md.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from co_tui.governance.tokens import ESTIMATOR_VERSION, message_tokens, prime_message_tokens


def save_counts(conn: sqlite3.Connection, session_id: str, counted: Iterable[tuple[bytes, Any]]) -> None:
    """Store `message_tokens(message)` for each `(digest, message)` (inside the caller's transaction).
    Rows already saved for that digest under this estimator are left as they are."""
    rows = {digest: message_tokens(message) for digest, message in counted}
    conn.executemany(
        "INSERT OR REPLACE INTO token_counts (session_id, digest, estimator, tokens) VALUES (?, ?, ?, ?)",
        [(session_id, digest, ESTIMATOR_VERSION, tokens) for digest, tokens in rows.items()],
    )


def read_counts(conn: sqlite3.Connection, session_id: str, digests: Sequence[bytes] | None = None) -> dict[bytes, int]:
    """digest → saved estimate, for this estimator version only: of every row, or only of `digests`
    (a lazy resume needs a few; reading all of a long session's took a third of a second)."""
    query = "SELECT digest, tokens FROM token_counts WHERE session_id = ? AND estimator = ?"
    if digests is None:
        found = list(conn.execute(query, (session_id, ESTIMATOR_VERSION)))
    else:
        wanted = list(dict.fromkeys(digests))
        found = []
        for at in range(0, len(wanted), 500):  # SQLite's bound-parameter limit
            batch = wanted[at : at + 500]
            found += conn.execute(
                f"{query} AND digest IN ({','.join('?' * len(batch))})", (session_id, ESTIMATOR_VERSION, *batch)
            )
    return {bytes(digest): int(tokens) for digest, tokens in found if isinstance(tokens, int)}


def prime_from_rows(messages: Sequence[Any], digests: Sequence[bytes], counts: dict[bytes, int]) -> None:
    """Seed the estimator's cache for decoded `messages` from the saved `counts` of their row `digests`."""
    prime_message_tokens(messages, [counts.get(bytes(d)) for d in digests])
