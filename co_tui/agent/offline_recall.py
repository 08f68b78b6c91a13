"""The offline model's use of `recall`: asked about a file it can no longer see, it reads it back.

"what did README.md say?" after README.md's output was trimmed: the note that names the output
(`read_file(path="README.md"); recall("r12")`) or the breadcrumb line listing the turn that read it
(`- turn 3: … read_file(path="README.md")`, under `recall(turns="1-5")`) gives the call to make; with
neither, a search for the name in what is out of view. Deterministic; nothing when the output is
still in view or nothing was cut.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart

_PATHISH = re.compile(r"[\w.-]*[\w-]\.[A-Za-z0-9]{1,8}\b|[\w.-]+/[\w./-]+")
_HANDLE_CALL = re.compile(r'recall\("(r\d+(?:\.\d+)?)"\)')
_LISTED = re.compile(r"^- turn (\d+)\b")
_ARROW = re.compile(r"→ (r\d+(?:\.\d+)?)$")


def _texts(messages: Sequence[ModelMessage]) -> list[tuple[Any, str]]:
    """(part, text) of every tool output and prompt (markers included) in the context, newest first."""
    out: list[tuple[Any, str]] = []
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, (ToolReturnPart, UserPromptPart)) and isinstance(part.content, str):
                    out.append((part, part.content))
    return out


_CHILD_HANDLE = re.compile(r'recall\("([a-z][a-z0-9_-]*-\d+)"\)')


def child_recall_args(prompt: str, messages: Sequence[ModelMessage]) -> dict[str, str] | None:
    """`{"handle": "explore-1"}` when `prompt` names a subagent whose result is in view (its
    handle, as that result names it: "what did explore-1 read?"), else None."""
    for _part, text in _texts(messages):
        if (m := _CHILD_HANDLE.search(text.partition("\n")[0])) and re.search(rf"\b{re.escape(m[1])}\b", prompt):
            return {"handle": m[1]}
    return None


def recall_args(prompt: str, messages: Sequence[ModelMessage]) -> dict[str, str] | None:
    """The `recall` arguments that answer `prompt` from what was cut, or None (no file named, the
    file's output still in view, or nothing cut that could hold it)."""
    from co_tui.governance.handles import call_of
    from co_tui.governance.recall import has_cut
    from co_tui.governance.trim import is_truncated_output

    names = [n.strip(".,?!'\"`") for n in _PATHISH.findall(prompt)]
    names = [n for n in names if n]
    if not names or not has_cut(messages):
        return None
    texts = _texts(messages)
    for name in names:
        for part, text in texts:
            if isinstance(part, ToolReturnPart) and name in (call_of(part) or "") and not is_truncated_output(text):
                if not text.startswith("[Removed from the context"):
                    return None  # still in view: nothing to recall
        lines = [line for _part, text in texts for line in text.split("\n") if name in line]
        turns: str | None = None
        for line in lines:
            if m := _HANDLE_CALL.search(line):
                return {"handle": m[1]}
            if m := _LISTED.match(line):
                # `read_file(path="README.md") → r12` in the turn's line: the output itself.
                for call in line.split(" — ", 1)[-1].split(", ") if " — " in line else ():
                    if name in call and (h := _ARROW.search(call)):
                        return {"handle": h[1]}
                turns = turns or m[1]
        if turns is not None:
            return {"turns": turns}
    return {"search": names[0]}
