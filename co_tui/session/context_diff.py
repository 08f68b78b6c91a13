"""Which context rows a save must delete and insert: the edit from the saved context to the new one.

Governance edits the context at both ends and here and there in the middle: a new breadcrumb or
summary at the head, old turns dropped, the previous turn's tool outputs replaced by trimmed copies,
a new turn appended. Rows are therefore keyed by a sparse, ordered integer key (not a position), so
a save deletes what left and inserts what arrived, and the rows in between are never touched.

The work per save must not grow with the context either (a governed context can hold a thousand
messages), so the saved state keeps an identity index and a digest index that are updated with
each edit, and unchanged runs are recognised with list-slice comparisons (C speed: identical
objects compare by pointer). A new message is located by identity, else by `==` with the next
expected row, else by the digest of its serialisation — which it needs anyway if it is inserted.
Rows read back from the database start with no objects; the first save after that serialises the
context once to compare digests.
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


def shared_prefix(old: Sequence[Any], new: Sequence[Any]) -> int:
    """How many leading messages `new` shares with `old`, by identity (the same objects: sent, and
    saved, byte for byte again)."""
    shared = 0
    for a, b in zip(old, new, strict=False):
        if a is not b:
            break
        shared += 1
    return shared


# Spacing of new keys: room for ~20 nested insertions between two rows before a renumbering.
KEY_GAP = 1 << 20

Encoded = tuple[str, str, bytes]  # (kind, body, digest) — see message_codec.encode_messages


@dataclass
class ContextState:
    """The saved context rows as parallel lists in key order, plus two indexes over them.

    `messages[i]` is the object saved at `keys[i]`, or None when read back from the database.
    `plan_context_update` consumes a state (its indexes are updated in place) and returns the next:
    if the database write then fails, the caller must drop the state and rebuild it from the rows.
    """

    keys: list[int] = field(default_factory=list)
    digests: list[bytes] = field(default_factory=list)
    messages: list[Any] = field(default_factory=list)
    by_id: dict[int, int] = field(default_factory=dict)  # id(message) -> key
    by_digest: dict[bytes, list[int]] = field(default_factory=dict)  # digest -> keys

    @classmethod
    def from_rows(
        cls, keys: Sequence[int], digests: Sequence[bytes], messages: Sequence[Any] | None = None
    ) -> ContextState:
        """A state for rows read from the database (`messages` decoded, or None if not)."""
        objs = list(messages) if messages is not None else [None] * len(keys)
        state = cls(list(keys), list(digests), objs)
        for key, digest, message in zip(keys, digests, objs, strict=False):
            state.by_digest.setdefault(digest, []).append(key)
            if message is not None:
                state.by_id[id(message)] = key
        return state


@dataclass
class ContextPlan:
    """The edit: delete the rows keyed `deletes`, insert `inserts` (key, encoded); `state` is the result.

    `delete_ranges` holds the same deletions as inclusive key ranges with no kept row inside, so
    the database can drop each run of rows with one statement.
    """

    deletes: list[int]
    inserts: list[tuple[int, Encoded]]
    state: ContextState
    delete_ranges: list[tuple[int, int]] = field(default_factory=list)


def _common_run(old: list[Any], i: int, new: list[Any], j: int) -> int:
    """How many of `new[j:]` equal `old[i:]` element by element (galloping slice compares)."""
    limit = min(len(old) - i, len(new) - j)
    done, step = 0, 1
    while done < limit:
        upto = min(done + step, limit)
        if old[i + done : i + upto] == new[j + done : j + upto]:
            done, step = upto, step * 2
        elif upto - done == 1:
            break
        else:
            step = max(1, (upto - done) // 2)
    return done


def _keys_between(low: int | None, high: int | None, count: int) -> list[int] | None:
    """`count` increasing keys strictly between `low` and `high` (None: unbounded), or None if no room."""
    if low is None:
        if high is None:
            return [k * KEY_GAP for k in range(count)]
        return [high - KEY_GAP * (count - k) for k in range(count)]
    if high is None:
        return [low + KEY_GAP * (k + 1) for k in range(count)]
    step = (high - low) // (count + 1)
    return None if step < 1 else [low + step * (k + 1) for k in range(count)]


def _locate(state: ContextState, message: Any, after: int, encoded: Encoded | None) -> int | None:
    """Index of the saved row `message` is, beyond index `after`, or None."""
    keys, messages = state.keys, state.messages
    nxt = after + 1
    if nxt < len(keys) and messages[nxt] is message:
        return nxt
    key = state.by_id.get(id(message))
    if key is not None:
        i = bisect_left(keys, key)
        if i > after and i < len(keys) and keys[i] == key and messages[i] is message:
            return i
    if nxt < len(keys) and messages[nxt] is not None and messages[nxt] == message:
        return nxt
    if encoded is not None:
        found = [i for i in (bisect_left(keys, k) for k in state.by_digest.get(encoded[2], ())) if i > after]
        return min(found) if found else None
    return None


def plan_context_update(state: ContextState, new: Sequence[Any], encode: Callable[[Any], Encoded]) -> ContextPlan:
    """The edit turning the saved rows of `state` into the context `new`; `new` is not modified.

    `encode(message)` serialises one message: called for each message not found by identity or
    `==`, so for every inserted one. Work is proportional to what changed plus C-speed list
    operations over the context.
    """
    new = list(new)
    # 1. Segments in new-order: ("old", i, j, n) = old rows i..j-1 reappear at new[n:n+j-i];
    #    ("new", n, m) = new[n:m] are to be inserted.
    segments: list[tuple[Any, ...]] = []
    encoded: dict[int, Encoded] = {}
    last, n = -1, 0
    while n < len(new):
        index = _locate(state, new[n], last, None)
        if index is None:
            encoded[n] = encode(new[n])
            index = _locate(state, new[n], last, encoded[n])
        if index is None:
            if segments and segments[-1][0] == "new":
                segments[-1] = ("new", segments[-1][1], n + 1)
            else:
                segments.append(("new", n, n + 1))
            n += 1
            continue
        run = 1 + _common_run(state.messages, index + 1, new, n + 1)
        segments.append(("old", index, index + run, n))
        last, n = index + run - 1, n + run

    # 2. Keys for inserted runs, between their kept neighbours; no room: re-insert from there on.
    while True:
        fresh: dict[int, list[int]] = {}
        stuck = None
        for s, seg in enumerate(segments):
            if seg[0] != "new":
                continue
            low = state.keys[segments[s - 1][2] - 1] if s > 0 else None
            high = state.keys[segments[s + 1][1]] if s + 1 < len(segments) else None
            keys = _keys_between(low, high, seg[2] - seg[1])
            if keys is None:
                stuck = s
                break
            fresh[s] = keys
        if stuck is None:
            break
        start = segments[stuck][1]
        segments = segments[:stuck] + [("new", start, len(new))]

    # 3. Deletions (old rows in no "old" segment), the new lists, and index upkeep.
    kept = [(seg[1], seg[2]) for seg in segments if seg[0] == "old"]
    gaps, prev = [], 0
    for i, j in kept:
        gaps.append((prev, i))
        prev = j
    gaps.append((prev, len(state.keys)))
    deletes: list[int] = []
    ranges: list[tuple[int, int]] = []
    for i, j in gaps:
        if i < j:
            for x in range(i, j):
                _forget(state, x)
            deletes.extend(state.keys[i:j])
            ranges.append((state.keys[i], state.keys[j - 1]))

    keys_out: list[int] = []
    digests_out: list[bytes] = []
    messages_out: list[Any] = []
    inserts: list[tuple[int, Encoded]] = []
    for s, seg in enumerate(segments):
        if seg[0] == "old":
            _, i, j, at = seg
            replacement = list(new[at : at + (j - i)])
            if not all(map(operator.is_, state.messages[i:j], replacement)):
                for x, message in zip(range(i, j), replacement, strict=False):  # equal copies took these rows
                    if state.messages[x] is not message:
                        if state.messages[x] is not None:
                            state.by_id.pop(id(state.messages[x]), None)
                        state.by_id[id(message)] = state.keys[x]
            keys_out += state.keys[i:j]
            digests_out += state.digests[i:j]
            messages_out += replacement
        else:
            _, a, b = seg
            for key, pos in zip(fresh[s], range(a, b), strict=False):
                enc = encoded.get(pos) or encode(new[pos])
                inserts.append((key, enc))
                state.by_id[id(new[pos])] = key
                state.by_digest.setdefault(enc[2], []).append(key)
                digests_out.append(enc[2])
            keys_out += fresh[s]
            messages_out += new[a:b]
    next_state = ContextState(keys_out, digests_out, messages_out, state.by_id, state.by_digest)
    return ContextPlan(deletes, inserts, next_state, ranges)


def _forget(state: ContextState, x: int) -> None:
    """Drop old row `x` from the indexes."""
    message, key = state.messages[x], state.keys[x]
    if message is not None and state.by_id.get(id(message)) == key:
        del state.by_id[id(message)]
    keys = state.by_digest.get(state.digests[x])
    if keys is not None:
        keys.remove(key)
        if not keys:
            del state.by_digest[state.digests[x]]
