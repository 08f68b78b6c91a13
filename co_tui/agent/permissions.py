"""What the user allowed for the rest of a session ("Always allow" in an approval), and the
answers an approval can give.

Pure Python: the TUI asks, this remembers and decides whether a later call needs asking again.
"""

from __future__ import annotations

from typing import Literal

Decision = Literal["deny", "once", "always"]
"""An approval's answer: refuse the call, run it this once, or run it and allow the like of it for
the rest of the session (`Grant`)."""
