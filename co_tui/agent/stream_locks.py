"""pydantic-ai's per-event stream locks, made fast-acquire: a streamed token stops costing three
trips round the event loop.

Every event of a model stream passes three `anyio.Lock`s in pydantic-ai 2.68 (`AgentStream`'s
`_anext_lock` and `_model_pull_lock`, `PeekableAsyncStream`'s `_source_lock`), which guard against
a consumer that walks away mid-pull. An uncontended `anyio.Lock()` still yields to the event loop
on every acquire (anyio's "fair" default); `anyio.Lock(fast_acquire=True)` skips that yield when no
other task waits and is otherwise the same lock (mutual exclusion, cancellation checks). Those
three yields were ~0.08 ms of the ~0.3 ms pydantic-ai spends per streamed token
(`benchmarks/stream_loop.py`); at 4,000 tokens/s that is a third of a core (docs/architecture.md,
"Streaming"). The event loop still gets a turn per event: `run_stream_events` hands each event to
the consumer's task over a channel.

`quicken_stream_locks()` swaps the locks as each object is built. It checks the shape it expects
and leaves pydantic-ai untouched when a release renames them (the stream is then only slower).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

# (module, class, method that creates the locks, the lock attributes)
_STREAM_LOCKS = (
    ("pydantic_ai.result", "AgentStream", "__post_init__", ("_anext_lock", "_model_pull_lock")),
    ("pydantic_ai._utils", "PeekableAsyncStream", "__init__", ("_source_lock",)),
)
_MARK = "_co_tui_fast_locks"
_installed = False


def quicken_stream_locks() -> bool:
    """Make the stream locks of every `AgentStream` / `PeekableAsyncStream` built from now on
    fast-acquire. Idempotent. Returns whether every expected class and method was found (False:
    pydantic-ai changed shape, and what was not found is left as it was)."""
    global _installed
    if _installed:
        return True
    import importlib

    found = True
    for module_name, class_name, method_name, attributes in _STREAM_LOCKS:
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError):
            found = False
            continue
        method = cls.__dict__.get(method_name)
        if method is None:
            found = False
            continue
        if not getattr(method, _MARK, False):
            setattr(cls, method_name, _with_fast_locks(method, attributes))
    _installed = found
    return found


def _with_fast_locks(method: Callable[..., None], attributes: tuple[str, ...]) -> Callable[..., None]:
    import anyio

    @functools.wraps(method)
    def build(self: Any, *args: Any, **kwargs: Any) -> None:
        method(self, *args, **kwargs)
        for name in attributes:
            lock = getattr(self, name, None)
            # Only a fresh lock nobody holds yet: the object is still being built.
            if isinstance(lock, anyio.Lock) and not lock.locked():
                setattr(self, name, anyio.Lock(fast_acquire=True))

    setattr(build, _MARK, True)
    return build
