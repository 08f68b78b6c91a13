"""The one decoder for stored contexts: a saved context (the `context` table's rows, or the context
a ledger row keeps for its undo) is a list of items, each either a message of its own (a marker, a
summary, a trimmed copy: its JSON body) or a reference to the transcript message it is verbatim.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from co_tui.session.message_codec import decode_bodies
from co_tui.session.token_counts import prime_from_rows

__all__ = ["ContextItem", "decode_context"]

# (transcript index it refers to, or None; its digest, or None when unknown; its body, or None)
ContextItem = tuple[Any, Any, Any]


def decode_context(
    items: Sequence[ContextItem],
    *,
    referenced: Callable[[Any], Any | None],
    damaged: Callable[[str], Exception],
    label: Callable[[int], str],
    missing: Callable[[int], str],
    counts_of: Callable[[list[bytes]], dict[bytes, int]] | None = None,
) -> list[Any]:
    """The messages of `items`, in order: a body of its own decoded (`label(i)` names it in a damage
    report; its token estimate primed from `counts_of(digests)` when given), a reference taken from
    `referenced(index)` — which returns None for one that does not exist, reported as
    `damaged(missing(i))`. Raises what `damaged` builds for any damage."""
    own = [(i, body) for i, (ref, _digest, body) in enumerate(items) if ref is None]
    decoded = decode_bodies([body for _, body in own], [label(i) for i, _ in own], damaged)
    if counts_of is not None:
        digests = [bytes(items[i][1]) for i, _ in own]
        prime_from_rows(decoded, digests, counts_of(digests))
    mine = dict(zip((i for i, _ in own), decoded, strict=False))
    messages: list[Any] = []
    for i, (ref, _digest, _body) in enumerate(items):
        message = mine[i] if ref is None else referenced(ref)
        if message is None:
            raise damaged(missing(i))
        messages.append(message)
    return messages
