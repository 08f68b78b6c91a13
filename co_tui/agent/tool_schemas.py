"""co-tui's function tools with their schemas built once per process (pydantic-ai's
`Tool(function_schema=…)`).

pydantic-ai builds a tool's schema from its function's signature and docstring (griffe parses the
docstring, pydantic builds the arguments' validator and JSON schema): ~0.6 ms a tool, eight tools a
session. co-tui's tools are closures over one session's state (its workspace, approver, files),
made anew for every session and every subagent run, but a definition's signature and docstring
never change: the schema built for its first closure is reused for the next ones, each with its own
closure in place of the first's. The first session of a process builds them all, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

# Keyed by the definition (module and qualified name: every closure of one `def`) and `takes_ctx`.
# Kept without the closure it was built for (`_unbound` in its place), so a closed session's state
# is not held for the process's life.
_BUILT: dict[tuple[str, str, bool | None], Any] = {}


def _unbound(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("a kept tool schema is only ever used with a session's own function")


def tool_of(function: Callable[..., Any], *, takes_ctx: bool | None = None, description: str | None = None) -> Any:
    """The pydantic-ai `Tool` that `FunctionToolset.add_function(function, takes_ctx=…,
    description=…)` makes with the toolsets' defaults, its function schema reused from an earlier
    closure of the same definition (or built now), calling `function` itself."""
    from pydantic_ai import Tool

    key = (function.__module__, function.__qualname__, takes_ctx)
    built = _BUILT.get(key)
    schema = None if built is None else replace(built, function=function)
    tool = Tool(function, takes_ctx=takes_ctx, description=description, function_schema=schema)
    if built is None:
        _BUILT[key] = replace(tool.function_schema, function=_unbound)
    return tool
