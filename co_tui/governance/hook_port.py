"""What governance needs from the compaction hooks (`[hooks]` in config.toml): two callables the
session passes in, so governance itself never starts a process (session/compact_hooks.py runs them).
docs/configuration.md, "Hooks"."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["CompactHooks", "PreCompactResult", "Trigger"]

Trigger = Literal["auto", "manual", "overflow"]


@dataclass(frozen=True)
class PreCompactResult:
    """What `pre_compact` said: text to add to the summariser's instructions (may be empty), whether it
    vetoes the cut (exit code 2; honoured for automatic cuts only), and one line to show, if any."""

    instructions: str = ""
    veto: bool = False
    notice: str | None = None


@dataclass(frozen=True)
class CompactHooks:
    """`pre(payload)` before a cut, `post(payload)` after it (returns one line to show, or None).
    `payload` is the JSON object the hook reads on stdin."""

    pre: Callable[[dict[str, Any]], Awaitable[PreCompactResult]]
    post: Callable[[dict[str, Any]], Awaitable[str | None]]
