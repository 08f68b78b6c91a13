"""A long saved session for the tests of what a long session costs (the history inspector's paging,
the resume): file-reading turns saved turn by turn to the real store, the context the newest two."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart


def file_turn(i: int) -> list[Any]:
    """Turn `i`: `read file_i.py` → a read_file call → 200 lines of output → `file_i.py defines handler i.`"""
    call = f"call_{i}"
    return [
        ModelRequest(parts=[UserPromptPart(f"read file_{i}.py")]),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": f"file_{i}.py"}, call)]),
        ModelRequest(parts=[ToolReturnPart("read_file", f"contents of file_{i}\n" * 200, tool_call_id=call)]),
        ModelResponse(parts=[TextPart(f"file_{i}.py defines handler {i}.")]),
    ]


def save_long_session(turns: int, workspace: Path) -> str:
    """`turns` turns saved in the store the settings name (CO_TUI_DATA_DIR); the session's id."""
    from co_tui.config import load_settings
    from co_tui.session.opening import open_store

    store = open_store(load_settings())
    sid = store.create_session(model="offline", workspace=workspace, title="long")
    transcript: list[Any] = []
    for i in range(turns):
        turn = file_turn(i)
        transcript += turn
        store.save_turn(sid, new_transcript=turn, context=transcript[-8:], new_events=[])
    store.close()
    return sid
