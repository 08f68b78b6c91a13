"""Context governance: the policy that keeps what the model sees within budget, honestly.

Pure functions on `list[ModelMessage]` plus one pydantic-ai capability. No Textual, no sqlite.
"""

from co_tui.governance.events import HistoryTrimmed

__all__ = ["HistoryTrimmed"]
