"""`Refused`: the one exception a steering operation raises when it will not change the context.

One wording rule for every refusal: `str()` is one line the user sees as it is — lower case first,
no full stop at the end; it says what was refused and why, and, when the user can do something
about it, what. The subclasses only name the operation (`UndoRefused`, `PinRefused`,
`RecoverRefused`, `EvictRefused`); a front end catches `Refused`.

Governance words none of them: its rules raise a refusal with facts — `why`, the rule that refused
(`"evict.newest_turn"`), and `facts`, the figures — and the session raises it again with its line
(`session/wording.worded_refusals`, `refusal_line`). The session's own refusals carry their line.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PinRefused", "Refused"]


class Refused(ValueError):
    """An operation on the context the session refuses; `str()` is the one line the user sees.
    Governance raises it as `Refused(why=…, **facts)` (no line: `str()` is `why` until the session
    words it)."""

    def __init__(self, line: str = "", *, why: str = "", **facts: Any) -> None:
        super().__init__(line or why)
        self.why, self.facts = why, facts


class PinRefused(Refused):
    """A pin that cannot be set (`Refused`: one line)."""
