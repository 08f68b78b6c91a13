"""Tool schemas built once per process (agent/tool_schemas.py): a later session's tools are
described exactly as pydantic-ai describes them, and each one runs its own session's closure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.workspaces import write_tree

from co_tui.agent.factory import build_agent, known_tool_defs
from co_tui.agent.models import resolve_model
from co_tui.agent.tool_schemas import tool_of
from co_tui.agent.tools import workspace_toolset
from co_tui.config import load_settings


def test_a_reused_schema_describes_the_tools_as_a_fresh_one(tmp_path: Path) -> None:
    from pydantic_ai.toolsets import FunctionToolset

    first = workspace_toolset(write_tree(tmp_path / "a", {}), allow_shell=True, allow_edits=True)
    second = workspace_toolset(write_tree(tmp_path / "b", {}), allow_shell=True, allow_edits=True)
    # pydantic-ai's own build of the second session's functions, with nothing reused.
    fresh = FunctionToolset([tool.function for tool in second.tools.values()])
    assert [d.name for d in known_tool_defs(second)] == [
        "read_file",
        "list_dir",
        "search_text",
        "run_shell",
        "write_file",
        "edit_file",
    ]
    assert known_tool_defs(second) == known_tool_defs(fresh) == known_tool_defs(first)
    for name, tool in second.tools.items():
        assert tool.function_schema.function is tool.function is not first.tools[name].function
        assert tool.function_schema.validator is first.tools[name].function_schema.validator  # built once


async def test_each_session_s_tools_read_its_own_workspace(run_turn, tmp_path: Path) -> None:
    """Two agents built one after the other (the second reuses the first's schemas): each reads its
    own workspace's file, not the first one's."""
    outputs = []
    for name in ("one", "two"):
        workspace = write_tree(tmp_path / name, {"notes.txt": f"this is workspace {name}\n"})
        settings = load_settings()
        agent = build_agent(settings, workspace=workspace, model=resolve_model("offline", settings))
        turn = await run_turn(agent, "read notes.txt")
        (result,) = turn.tool_results
        outputs.append(result.content)
    assert "workspace one" in outputs[0] and "workspace two" not in outputs[0]
    assert "workspace two" in outputs[1] and "workspace one" not in outputs[1]


def _adder(n: int) -> Any:
    def add(x: int) -> int:
        """Add the closure's number.

        Args:
            x: The number to add to.
        """
        return x + n

    return add


async def test_a_kept_schema_holds_no_session_s_closure() -> None:
    """The schema kept for later closures of a definition does not keep the first one (and through
    it a session's workspace, approver and files) alive; each later tool calls its own closure."""
    import gc
    import weakref

    first = tool_of(_adder(1))
    kept = weakref.ref(first.function)
    second = tool_of(_adder(2))
    assert second.function_schema.validator is first.function_schema.validator  # built once
    del first
    gc.collect()
    assert kept() is None
    assert await second.function_schema.call({"x": 40}, None) == 42
