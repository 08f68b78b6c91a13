"""The policy's defaults, in one place: the settings (`co_tui.config`) and `GovernancePolicy` both
read them, so a default is written once. Plain constants: importing this pulls in nothing.

Why these values: docs/context-governance.md ("Economy", "Why 500 messages").
"""

from __future__ import annotations

from typing import Final, Literal

# The message-count trigger: high enough that, for agent sessions, the token budget decides.
DEFAULT_MAX_HISTORY_MESSAGES = 500

# The low-water mark (setting `compact_target`): a cut goes down to this share of the limit.
DEFAULT_COMPACT_TARGET = 0.6

# What an old tool output that `recall` can bring back is cleared to (setting `tool_output_clear`):
# "stub", its one-line note, or "head", its first `tool_output_trim_chars` characters. "stub" was
# chosen by measurement: docs/context-governance.md ("The stub policy"). `GovernancePolicy` itself
# defaults to "head" (the pure rules' callers choose); sessions take the setting.
DEFAULT_TOOL_OUTPUT_CLEAR: Final[Literal["stub", "head"]] = "stub"

# With the stub policy the token low-water mark is this share of `compact_target` (0.45 of the
# budget at the default 0.6): measured in benchmarks/economy.py (docs/context-governance.md).
STUB_MARK_FACTOR = 0.75
