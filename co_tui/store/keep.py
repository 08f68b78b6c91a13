"""`KEEP`: the value a save passes to leave a stored figure as it is (`SessionStore.save_turn`'s
`cost_usd`). Its own module so the store's entry points name it without loading the writer, which
a store opened for a new session needs only at its first save."""

from __future__ import annotations

import enum

__all__ = ["KEEP", "KeepType"]


class KeepType(enum.Enum):
    """The type of `KEEP`."""

    KEEP = "keep"


KEEP = KeepType.KEEP
"""`save_turn(cost_usd=KEEP)`: leave the stored figure as it is (None would store "unknown")."""
