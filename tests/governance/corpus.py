"""Load the shared real-transcript corpus as pydantic-ai messages (read in place, never copied).

Format (see ../shared/corpus/README.md): a JSON list of {role, content, tool_calls, tool_call_id}.
Tool results are paired with calls by position inside the latest assistant message — ids are reused
in real data — and grouped into one request per run of `tool` messages; `arguments` stay raw strings
(they may not be JSON); a trailing call with no result stays unanswered.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)


def _corpus_dir() -> Path:
    """`shared/corpus/transcripts` beside the checkout, or beside the nearest folder above it that
    has one (a git worktree under /work/wt/<branch> shares /work/shared with the main checkout)."""
    checkout = Path(__file__).resolve().parents[2]
    for folder in checkout.parents:
        candidate = folder / "shared" / "corpus" / "transcripts"
        if candidate.is_dir():
            return candidate
    return checkout.parent / "shared" / "corpus" / "transcripts"


CORPUS_DIR = _corpus_dir()


def transcript_files() -> list[Path]:
    """All transcript files, sorted; empty when the corpus is absent."""
    if not CORPUS_DIR.is_dir():
        return []
    return sorted(p for p in CORPUS_DIR.glob("*.json") if not p.name.startswith("_"))


def convert(entries: list[dict]) -> list[ModelMessage]:
    """Corpus entries → pydantic-ai messages."""
    out: list[ModelMessage] = []
    pending_system: list[SystemPromptPart] = []
    open_calls: list[ToolCallPart] = []
    tool_parts: list[ToolReturnPart] = []

    def flush_tools() -> None:
        if tool_parts:
            out.append(ModelRequest(parts=list(tool_parts)))
            tool_parts.clear()

    for entry in entries:
        role = entry.get("role")
        content = entry.get("content") or ""
        if role != "tool":
            flush_tools()
        if role == "system":
            pending_system.append(SystemPromptPart(content))
        elif role == "user":
            out.append(ModelRequest(parts=[*pending_system, UserPromptPart(content)]))
            pending_system = []
        elif role == "assistant":
            parts: list = [TextPart(content)] if content else []
            calls = [ToolCallPart(c["name"], c.get("arguments") or "", c["id"]) for c in entry.get("tool_calls") or []]
            parts += calls
            out.append(ModelResponse(parts=parts or [TextPart("")]))
            open_calls = list(calls)
        elif role == "tool":
            cid = entry.get("tool_call_id")
            match = next((c for c in open_calls if c.tool_call_id == cid), None) or (
                open_calls[0] if open_calls else None
            )
            if match is not None:
                open_calls.remove(match)
            tool_parts.append(ToolReturnPart(match.tool_name if match else "unknown", content, cid or ""))
    flush_tools()
    if pending_system:
        out.insert(0, ModelRequest(parts=pending_system))
    return out


def load_transcript(path: Path) -> list[ModelMessage]:
    """One corpus file as messages."""
    return convert(json.loads(path.read_text(encoding="utf-8")))
