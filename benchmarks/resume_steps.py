"""The resume path step by step (a child of benchmarks/tui.py part b, not a test).

`run()` starts co-tui as `co-tui --resume ID` does (`co_tui.cli.main`), after wrapping the steps of
the start-up path with clocks; it writes one JSON list of (step, monotonic seconds, process CPU
seconds) to the file named by STEPS_ENV when the session is ready (and again at exit). The clock
is CLOCK_MONOTONIC, the same in the parent, which subtracts the moment it forked. Nothing here is
imported before the program's own imports would load it: the wrappers import the modules they wrap
only when the step runs, so pydantic-ai still loads where co-tui loads it.

Steps, in the order the start-up worker runs them (docs/architecture.md, Start-up):
first frame (the app's `call_after_refresh` after mount), preview read (the store's newest rows),
preview mounted (the entries and the "Resumed" line mounted), settings, pydantic-ai import (the
session module and the agent), the message schema (pydantic builds `ModelMessagesTypeAdapter` on its
first use), store load (context, ledger, counts: decoding the context), governance pass (the first
meter reading), session ready (the controller showed it: the meter is live).
"""

from __future__ import annotations

import json
import os
import time
from functools import wraps
from pathlib import Path
from typing import Any

STEPS_ENV = "CO_TUI_BENCH_STEPS"
_steps: list[tuple[str, float, float]] = []


def mark(step: str) -> None:
    _steps.append((step, time.monotonic(), time.process_time()))


def _write() -> None:
    Path(os.environ[STEPS_ENV]).write_text(json.dumps(_steps))


def _after(owner: Any, name: str, step: str, *, before: str | None = None, once: bool = True) -> None:
    """Wrap `owner.name` to mark `step` when it returns (and `before` when it is called)."""
    original = getattr(owner, name)
    seen: list[bool] = []

    if _is_coroutine(original):

        @wraps(original)
        async def awrapper(*args: Any, **kwargs: Any) -> Any:
            if before and not (once and seen):
                mark(before)
            result = await original(*args, **kwargs)
            if not (once and seen):
                seen.append(True)
                mark(step)
            return result

        setattr(owner, name, awrapper)
        return

    @wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if before and not (once and seen):
            mark(before)
        result = original(*args, **kwargs)
        if not (once and seen):
            seen.append(True)
            mark(step)
        return result

    setattr(owner, name, wrapper)


def _is_coroutine(function: Any) -> bool:
    import inspect

    return inspect.iscoroutinefunction(function)


def run(argv: list[str]) -> int:
    """`co-tui ARGV` with the resume path's steps clocked."""
    mark("process start (python)")
    from co_tui.tui import app as app_module
    from co_tui.tui.session_opening import SessionOpening

    App = app_module.CoTuiApp
    _after(App, "_start_session", "first frame", before="first frame")  # called after the first refresh
    _after(SessionOpening, "_preview", "preview mounted")
    _after(SessionOpening, "ensure_settings", "settings")
    original_factory = SessionOpening._factory

    def factory(self: Any) -> Any:
        made = original_factory(self)

        def clocked(*args: Any, **kwargs: Any) -> Any:
            import pydantic_ai  # noqa: F401
            import pydantic_ai.messages  # noqa: F401

            import co_tui.agent.models  # noqa: F401  (the model factory)
            import co_tui.session.chat as chat

            mark("pydantic-ai import")
            from pydantic_ai.messages import ModelMessagesTypeAdapter

            ModelMessagesTypeAdapter.validate_json("[]")  # the schema pydantic builds on first use
            mark("message schema")
            from co_tui.store.session_store import SessionStore

            _after(SessionStore, "load", "store load (context decoded)")
            _after(chat.ChatSession, "meter_reading", "governance pass (meter reading)")
            _after(chat.ChatSession, "resume", "session built (agent, tools, steering)")
            return made(*args, **kwargs)

        return clocked

    SessionOpening._factory = factory  # type: ignore[method-assign]
    from co_tui.tui.controller import ChatController

    original_ready = ChatController.session_ready

    async def session_ready(self: Any, session: Any) -> None:
        mark("session ready posted")
        await original_ready(self, session)
        mark("session ready (meter live)")
        _write()

    ChatController.session_ready = session_ready  # type: ignore[method-assign]
    original_preview = ChatController.preview

    async def preview(self: Any, *args: Any, **kwargs: Any) -> None:
        mark("preview read")
        await original_preview(self, *args, **kwargs)

    ChatController.preview = preview  # type: ignore[method-assign]
    from co_tui.cli import main

    try:
        return main(argv)
    finally:
        _write()
