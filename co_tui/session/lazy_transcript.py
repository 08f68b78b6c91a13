"""A resumed session's transcript that decodes its saved messages only when they are read.

Decoding a whole transcript into pydantic-ai messages costs time and memory in proportion to the
session's length (about 0.4 s and 24 MB per 1,000 turns), while resuming needs only the context and
the newest screenful. `LazyTranscript` is the session's `transcript` (a read-only `Sequence` to
front ends, see session/port.py): the saved messages stay rows in the store until an index, a slice
or an iteration reaches them (the history inspector, an export, scroll-back), then are decoded in
chunks and kept. Messages of this process are appended in memory, as to a list. See
docs/architecture.md (Sessions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

CHUNK = 256  # rows decoded per read of the store (a miss decodes at least this many around it)

RowLoader = Callable[[int, int], list[Any]]
"""`load(start, stop)` → the decoded saved messages `start`…`stop - 1` (raises `StoreCorrupt`)."""


class LazyTranscript(Sequence[Any]):
    """The first `saved` messages are decoded from the store on first read (`load`); `known`
    seeds messages already decoded (the context's verbatim messages: the same objects). `saved_cost`
    is what the store says the saved messages cost in USD (None: unknown)."""

    def __init__(self, load: RowLoader, saved: int, known: dict[int, Any], *, saved_cost: float | None) -> None:
        self._load = load
        self._items: list[Any] = [None] * saved
        for seq, message in known.items():
            if 0 <= seq < saved:
                self._items[seq] = message
        self.saved = saved
        self._saved_cost = saved_cost
        # A rewind's prefix: its cost is its parent's saved cost less what the dropped messages
        # cost, worked out when first asked (`saved_cost`), decoding only those (the rewind picker
        # has decoded them already).
        self._cost_from: tuple[LazyTranscript, int] | None = None

    @property
    def saved_cost(self) -> float | None:
        """What the saved messages cost in USD (None: unknown, e.g. a response was unpriced)."""
        if self._cost_from is not None:
            parent, length = self._cost_from
            self._cost_from = None
            whole = parent.saved_cost
            if whole is not None:
                from co_tui.session.cost import session_cost

                dropped = session_cost(parent[length : parent.saved])
                self._saved_cost = None if dropped is None else max(0.0, whole - dropped)
        return self._saved_cost

    @saved_cost.setter
    def saved_cost(self, cost: float | None) -> None:
        self._saved_cost, self._cost_from = cost, None

    # --- reading ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self._items))
            if step == 1:
                self._decode(start, stop)
            else:
                self._decode(min(start, stop), max(start, stop) + 1)
            return self._items[index]
        if index < 0:
            index += len(self._items)
        if not 0 <= index < len(self._items):
            raise IndexError("transcript index out of range")
        if self._items[index] is None:
            self._decode(index, index + 1)
        return self._items[index]

    def __iter__(self) -> Iterator[Any]:
        for start in range(0, len(self._items), CHUNK):
            stop = min(start + CHUNK, len(self._items))
            self._decode(start, stop)
            yield from self._items[start:stop]

    def __bool__(self) -> bool:
        return bool(self._items)

    def __eq__(self, other: object) -> bool:
        """Equal to a list (or another transcript) of equal messages, as a list would be."""
        if isinstance(other, (list, LazyTranscript)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"<LazyTranscript {len(self._items)} messages, {self.decoded} of {self.saved} saved ones decoded>"

    def read_through(self, start: int, stop: int) -> list[Any]:
        """Messages `start`…`stop - 1`, as a slice gives them, without keeping those decoded for
        this read: a reader of the whole transcript once (the history inspector) leaves the session
        as light as it found it. Raises what `load` raises."""
        start, stop = max(0, start), min(stop, len(self._items))
        out = self._items[start:stop]
        missing = [k for k, message in enumerate(out) if message is None]
        if missing:
            low = start + missing[0]
            decoded = self._load(low, start + missing[-1] + 1)
            for k in missing:
                out[k] = decoded[start + k - low]
        return out

    @property
    def decoded(self) -> int:
        """How many saved messages are decoded so far (the rest are rows in the store)."""
        return sum(1 for message in self._items[: self.saved] if message is not None)

    def _decode(self, start: int, stop: int) -> None:
        stop = min(stop, self.saved)
        i = start
        while i < stop:
            if self._items[i] is not None:
                i += 1
                continue
            # A miss reads a whole chunk around it: scroll-back and iteration read neighbours next.
            low = max(0, min(i, stop - CHUNK))
            high = min(self.saved, max(stop, low + CHUNK))
            for seq, message in enumerate(self._load(low, high), low):
                if self._items[seq] is None:
                    self._items[seq] = message
            i = high

    def truncated(self, length: int) -> LazyTranscript:
        """A new transcript of this one's first `length` messages (a rewind's prefix): the same
        loader for the saved ones among them, nothing decoded here."""
        copy = LazyTranscript(self._load, 0, {}, saved_cost=None)
        copy._items = self._items[:length]
        copy.saved = min(self.saved, length)
        if length >= self.saved:
            copy._saved_cost = self.saved_cost
        else:  # known once the dropped saved messages are priced (`saved_cost`)
            copy._cost_from = (self, length)
        return copy

    # --- growing (the session's own messages) ----------------------------------------------------

    def append(self, message: Any) -> None:
        """Add a message of this process at the end, in memory (saving is the session's business)."""
        self._items.append(message)

    def extend(self, messages: Iterable[Any]) -> None:
        """Add messages of this process at the end, in memory (see `append`)."""
        self._items.extend(messages)

    def added(self) -> list[Any]:
        """The messages appended in this process (after the saved ones)."""
        return self._items[self.saved :]


def transcript_cost(transcript: Sequence[Any], extra: Sequence[Any] = (), ledger: Sequence[Any] = ()) -> float | None:
    """`session_cost` of `transcript` plus `extra` (and the summariser calls of `ledger`), never decoding a lazy transcript's saved
    messages: the store saves the figure with every turn. A saved None means unknown (a response
    was unpriced), and one unknown makes the sum unknown, as `session_cost` does; a session saved
    before costs were kept (schema 1) reads as unknown too."""
    from co_tui.session.cost import session_cost

    if isinstance(transcript, LazyTranscript):
        if transcript.saved_cost is None:
            return None
        rest = session_cost([*transcript.added(), *extra], ledger)
        return None if rest is None else transcript.saved_cost + rest
    return session_cost([*transcript, *extra], ledger)
