"""`Refused`: the one exception a steering operation raises when it will not change the context.

One wording rule for every refusal: `str()` is one line the user sees as it is — lower case first,
no full stop at the end; it says what was refused and why, and, when the user can do something
about it, what (a busy refusal is the session's: `session/wording.busy_line`). The subclasses only name the operation (`UndoRefused`, `PinRefused`,
`RecoverRefused`, `EvictRefused`); a front end catches `Refused`.
"""

from __future__ import annotations

__all__ = ["PinRefused", "Refused"]


class Refused(ValueError):
    """An operation on the context the session refuses; `str()` is the one line the user sees."""


class PinRefused(Refused):
    """A pin that cannot be set (`Refused`: one line)."""
