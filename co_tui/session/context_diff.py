"""Which context rows a save must delete and insert: the edit from the saved context to the new one.

Governance edits the context at both ends and here and there in the middle: a new breadcrumb or
summary at the head, old turns dropped, the previous turn's tool outputs replaced by trimmed copies,
a new turn appended. Rows are therefore keyed by a sparse, ordered integer `key` (not a position),
so a save deletes what left and inserts what arrived, and the rows in between are never touched.

Matching a new message to a saved row costs a pointer compare in the common case (the same object);
a rebuilt-but-equal copy (pure governance functions rebuild messages) is found through a cheap
fingerprint and confirmed with `==`; a message is serialised only when it is inserted, or when the
saved rows have no objects to compare with (another process wrote the session last).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Spacing of new keys: room for ~20 nested insertions between two rows before a renumbering.
KEY_GAP = 1 << 20

Encoded = tuple[str, str, bytes]  # (kind, body, digest) — see message_codec.encode_messages


@dataclass(frozen=True)
class ContextRow:
    """One saved context row: its order key, its body digest, and the message object if known
    (with its `fingerprint`)."""

    key: int
    digest: bytes
    message: Any = None
    fingerprint: Hashable = None


def fingerprint(message: Any) -> Hashable:
    """A cheap, hashable summary of a message: equal messages have equal fingerprints."""
    parts = getattr(message, "parts", ())
    return (
        type(message).__name__,
        len(parts),
        tuple(
            (type(p).__name__, getattr(p, "tool_call_id", None), _size(getattr(p, "content", None)),
             getattr(p, "timestamp", None))
            for p in parts[:4]
        ),
    )


def _size(content: Any) -> int | None:
    return len(content) if isinstance(content, (str, list, tuple, dict)) else None


def context_row(key: int, digest: bytes, message: Any) -> ContextRow:
    """A row for a message object (fingerprint computed here, once)."""
    return ContextRow(key, digest, message, fingerprint(message))


@dataclass
class ContextPlan:
    """The edit: delete rows with `deletes` keys, insert `inserts` (key, encoded), end up with `rows`."""

    deletes: list[int] = field(default_factory=list)
    inserts: list[tuple[int, Encoded]] = field(default_factory=list)
    rows: list[ContextRow] = field(default_factory=list)


def _match(old: Sequence[ContextRow], new: Sequence[Any], encode: Callable[[Any], Encoded],
           encoded: dict[int, Encoded]) -> list[int | None]:
    """For each new message, the index of the saved row it is (increasing), or None if it is new."""
    by_identity = {id(r.message): i for i, r in enumerate(old) if r.message is not None}
    by_fingerprint: dict[Hashable, list[int]] | None = None  # built on the first miss only
    # Rows read back from the database have no objects: compare those by content digest.
    by_digest: dict[bytes, list[int]] = {}
    if any(r.message is None for r in old):
        for i, r in enumerate(old):
            by_digest.setdefault(r.digest, []).append(i)
    matched: list[int | None] = []
    last = -1
    for n, message in enumerate(new):
        index = by_identity.get(id(message))
        if index is not None and index <= last:
            index = None
        nxt = last + 1
        if index is None and nxt < len(old) and old[nxt].message is not None and old[nxt].message == message:
            index = nxt
        if index is None and by_identity:
            if by_fingerprint is None:
                by_fingerprint = {}
                for i, r in enumerate(old):
                    if r.message is not None:
                        by_fingerprint.setdefault(r.fingerprint, []).append(i)
            candidates = by_fingerprint.get(fingerprint(message), ())
            index = next((i for i in candidates if i > last and old[i].message == message), None)
        if index is None and by_digest:
            encoded[n] = encode(message)
            index = next((i for i in by_digest.get(encoded[n][2], ()) if i > last), None)
        if index is not None:
            last = index
        matched.append(index)
    return matched


def _keys_between(low: int | None, high: int | None, count: int) -> list[int] | None:
    """`count` increasing keys strictly between `low` and `high` (None: unbounded), or None if no room."""
    if low is None and high is None:
        return [k * KEY_GAP for k in range(count)]
    if low is None:
        return [high - KEY_GAP * (count - k) for k in range(count)]  # type: ignore[operator]
    if high is None:
        return [low + KEY_GAP * (k + 1) for k in range(count)]
    step = (high - low) // (count + 1)
    if step < 1:
        return None
    return [low + step * (k + 1) for k in range(count)]


def plan_context_update(
    old: Sequence[ContextRow], new: Sequence[Any], encode: Callable[[Any], Encoded]
) -> ContextPlan:
    """The smallest-effort edit turning the saved rows `old` into the context `new`.

    `encode(message)` serialises one message; it is called for every inserted message and, when
    `old` rows carry no objects, for the messages being matched. Inputs are not modified.
    """
    encoded: dict[int, Encoded] = {}
    matched = _match(old, new, encode, encoded)
    while True:
        keys: list[int | None] = [old[i].key if i is not None else None for i in matched]
        run_start = None
        stuck_at = None
        for n in range(len(new) + 1):
            if n < len(new) and keys[n] is None:
                if run_start is None:
                    run_start = n
                continue
            if run_start is not None:
                low = keys[run_start - 1] if run_start > 0 else None
                high = keys[n] if n < len(new) else None
                fresh = _keys_between(low, high, n - run_start)
                if fresh is None:
                    stuck_at = run_start
                    break
                keys[run_start:n] = fresh
                run_start = None
        if stuck_at is None:
            break
        # No room between two kept rows: re-insert everything from the crowded spot onwards.
        matched[stuck_at:] = [None] * (len(new) - stuck_at)

    kept = {i for i in matched if i is not None}
    plan = ContextPlan(deletes=[r.key for i, r in enumerate(old) if i not in kept])
    for n, message in enumerate(new):
        key = keys[n]
        assert key is not None
        if matched[n] is None:
            enc = encoded.get(n) or encode(message)
            plan.inserts.append((key, enc))
            plan.rows.append(context_row(key, enc[2], message))
        else:
            before = old[matched[n]]  # type: ignore[index]
            same = before.message is message
            plan.rows.append(before if same else context_row(key, before.digest, message))
    return plan
