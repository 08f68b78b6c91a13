"""What the offline model makes of a prompt: tool actions, or a canned but input-aware reply.

Pure Python (no pydantic-ai) so the help screen can list `TRIGGERS` without loading the agent stack.
The phrases are matched case-insensitively at the start of the prompt; several tool requests can be
joined with "and", "then" or ";" ("read README.md and list docs").
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Literal

TRIGGERS: tuple[tuple[str, str], ...] = (
    ("list .", "list_dir of a folder (`.` is the workspace root; `list` alone too)"),
    (
        "search TODO",
        "search_text for the pattern in the workspace (`search TODO in FOLDER`: under one folder; `grep`/`find` work too)",
    ),
    ("write hello to notes.txt", "write_file: the text (quotes optional) as the file's content; you approve a diff"),
    ("read notes.txt", "read_file on the path, then a summary: lines, first lines, headings, definitions"),
    ("run ls -la", "run_shell with the command, when `allow_shell` is on (you approve it first)"),
    (
        "replace hello with bye in notes.txt",
        "edit_file: the one occurrence of the first text, replaced; you approve a diff",
    ),
    (
        "use demo_echo text=hi",
        "calls any tool by its name, e.g. an MCP server's `NAME_tool`, with key=value or JSON args",
    ),
    (
        "explore . in a subagent and tell me which file mentions TODO",
        "delegate: a read-only subagent searches in a context of its own; you get its answer (`in a subagent` works after any tool request)",
    ),
    ("big output", "a search that returns a large, capped tool output (to see trimming at work)"),
    ("slow …", "any prompt containing the word `slow` streams word by word with a delay (try Esc)"),
    ("what did we do so far?", "an extractive recap of the visible context, trims and summaries included"),
    ("what did notes.txt say?", "after a file's output was cut from view: reads it back with `recall`"),
    ("help", "what the offline model can do and how to configure a real one"),
)
"""(example prompt, what it does) — shown by `help` and the help screen."""

SETUP_HINT = (
    "To use a real model, restart with e.g. `--model anthropic:claude-sonnet-4-5` and ANTHROPIC_API_KEY set, "
    "`--model openai:gpt-5` with OPENAI_API_KEY, or `--model ollama:llama3.2` with OLLAMA_BASE_URL "
    "(or set `model` in config.toml / CO_TUI_MODEL)."
)
OFFLINE_NOTICE = "I am co-tui's offline stand-in model: no LLM and no network, just deterministic canned replies."

SLOW_DELAY_S = 0.15
"""Seconds per streamed chunk when the prompt contains the word `slow` (CO_TUI_OFFLINE_DELAY overrides)."""

BIG_OUTPUT_ARGS = {"pattern": ".", "path": "."}

IntentKind = Literal["tools", "help", "greeting", "thanks", "recall", "question", "slow", "chat", "empty"]


@dataclass(frozen=True)
class Action:
    """One tool call the offline model will make."""

    tool: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Intent:
    """The parsed prompt: its kind, the tool actions (for kind "tools") and whether to stream slowly."""

    kind: IntentKind
    actions: tuple[Action, ...] = ()
    slow: bool = False


_POLITE = r"(?:(?:please|can you|could you|would you|pls|now)\s+)*"
_READ = re.compile(rf"^{_POLITE}(?:read|open|show|cat|view)\s+(?:me\s+)?(?:the\s+)?(?:file\s+)?(?P<path>\S+)", re.I)
# "summarise X" is a file request only when X looks like a path; otherwise it is a recap request.
_SUMMARISE_FILE = re.compile(rf"^{_POLITE}summari[sz]e\s+(?:the\s+)?(?:file\s+)?(?P<path>\S*[./]\S*)\s*$", re.I)
_LIST = re.compile(
    rf"^{_POLITE}(?:list|ls)(?:\s+(?:the\s+)?(?:files|entries|contents)?\s*(?:in|of|under)?\s*"
    rf"(?:the\s+)?(?:dir(?:ectory)?|folder)?\s*(?P<path>[^\s-]\S*))?\s*$",
    re.I,
)
_SEARCH = re.compile(
    rf"^{_POLITE}(?:search|grep)\s+(?:for\s+)?(?P<pattern>.+?)"
    rf"(?:\s+(?:in|under|within)\s+(?P<path>\S+))?\s*$",
    re.I,
)
_RUN = re.compile(rf"^{_POLITE}(?:run|execute|exec)\s+(?P<cmd>.+)$|^\$\s*(?P<cmd2>.+)$", re.I | re.S)
# "use demo_echo text=hi": any tool by name (MCP tools are namespaced `server_tool`, hence the `_`).
_USE = re.compile(
    rf"^{_POLITE}(?:use|call)\s+(?:the\s+)?(?:tool\s+)?(?P<tool>\w*_[\w-]*)(?:\s+(?P<args>.*))?$", re.I | re.S
)
# "write hello world to notes.txt", "replace foo with bar in notes.txt": the texts may hold "and".
_WRITE = re.compile(
    rf"^{_POLITE}(?:write|put|save)\s+(?P<text>.+?)\s+(?:to|into|in)\s+(?:the\s+)?(?:file\s+)?(?P<path>\S+)$", re.I
)
_REPLACE = re.compile(
    rf"^{_POLITE}(?:replace|change)\s+(?P<old>.+?)\s+(?:with|by|to)\s+(?P<new>.+?)\s+in\s+(?:the\s+)?(?:file\s+)?(?P<path>\S+)$",
    re.I,
)
_SPLIT = re.compile(r"\s*(?:;|,?\s+and then\s+|,?\s+then\s+|\s+and\s+)\s*", re.I)
_GREETING = re.compile(r"^(?:hi|hello|hey|hiya|yo|howdy|greetings|good (?:morning|afternoon|evening))\b", re.I)
_THANKS = re.compile(r"^(?:thanks|thank you|thx|cheers|great|nice|ok(?:ay)?|cool)\b", re.I)
_HELP = re.compile(r"^/?help\b|what can you do|how do i (?:use|configure|set up)|who are you|what are you", re.I)
_RECALL = re.compile(
    r"what (?:did|have) (?:we|you|i)\b|remind me|so far\b|recap|earlier|previous(?:ly)?\b|summar"
    r"|what happened",
    re.I,
)
_QUESTION = re.compile(r"\?\s*$|^(?:what|why|how|when|where|who|which|is|are|can|could|should|does|do|will)\b", re.I)
_SLOW = re.compile(r"\bslow(?:ly)?\b", re.I)
_BIG = re.compile(r"\bbig output\b|\blarge output\b", re.I)


# "explore docs in a subagent and tell me which file mentions X"; "search X in docs in a subagent";
# "delegate: read a.py and read b.py"; "ask a subagent to list co_tui".
_EXPLORE_ASK = re.compile(
    rf"^{_POLITE}(?:explore|look (?:through|in|at)|go through)\s+(?P<path>\S+)\s+(?:in|with|using|via)\s+"
    r"(?:a\s+)?sub-?agent\s*(?:,|and|then)?\s*(?:tell me\s+)?(?:which|what|where)\s+(?:files?\s+)?"
    r"(?:mentions?|contains?|has|have|says?|uses?)\s+(?P<pattern>.+?)\s*\??$",
    re.I,
)
_DELEGATE_PREFIX = re.compile(
    rf"^{_POLITE}(?:delegate|sub-?agent)\s*[:,]\s*(?P<task>.+)$"
    rf"|^{_POLITE}(?:ask|have|let|get)\s+(?:a|the)\s+sub-?agent\s+(?:to\s+)?(?P<task2>.+)$",
    re.I,
)
_DELEGATE_SUFFIX = re.compile(r"^(?P<task>.+?)\s+(?:in|with|using|via)\s+a\s+sub-?agent\s*[.!]?$", re.I)


def delegation_task(text: str) -> str | None:
    """The task a prompt asks a subagent to do (phrased so the offline model in the child acts on
    it), or None when the prompt asks for no subagent."""
    if m := _EXPLORE_ASK.match(text):
        # `explore . …`: the whole workspace (`_clean` takes a lone `.` for sentence punctuation).
        path, pattern = _clean(m.group("path")) or ".", _clean(m.group("pattern"))
        return f"search {pattern}" if path == "." else f"search {pattern} in {path}"
    if m := _DELEGATE_PREFIX.match(text):
        return (m.group("task") or m.group("task2")).strip()
    if m := _DELEGATE_SUFFIX.match(text):
        return m.group("task").strip()
    return None


def parse_intent(prompt: str) -> Intent:
    """Classify `prompt` (see TRIGGERS). Deterministic; never raises."""
    text = " ".join(prompt.split())
    slow = bool(_SLOW.search(text))
    if not text:
        return Intent("empty")
    if (task := delegation_task(text)) is not None:
        return Intent("tools", (Action("delegate", {"task": task}),), slow)
    if _BIG.search(text):
        return Intent("tools", (Action("search_text", dict(BIG_OUTPUT_ARGS)),), slow)
    actions = _tool_actions(text)
    if actions:
        return Intent("tools", actions, slow)
    if _HELP.search(text):
        return Intent("help", slow=slow)
    if _GREETING.search(text):
        return Intent("greeting", slow=slow)
    if _RECALL.search(text):
        return Intent("recall", slow=slow)
    if _THANKS.search(text):
        return Intent("thanks", slow=slow)
    if slow:
        return Intent("slow", slow=True)
    if _QUESTION.search(text):
        return Intent("question")
    return Intent("chat")


def _tool_actions(text: str) -> tuple[Action, ...]:
    if m := _USE.match(text):
        return (Action(m.group("tool"), _use_args(m.group("args") or "")),)  # its args may contain "and"
    whole = _action(text)
    if whole is not None and whole.tool in ("run_shell", "write_file", "edit_file"):
        return (whole,)  # a shell command or a text may itself contain "and" / ";"
    pieces = [p for p in _SPLIT.split(text) if p]
    if len(pieces) > 1:
        parsed = [_action(p) for p in pieces]
        if all(a is not None for a in parsed):
            return tuple(a for a in parsed if a is not None)
    return (whole,) if whole is not None else ()


def _action(text: str) -> Action | None:
    if m := _RUN.match(text):
        return Action("run_shell", {"command": (m.group("cmd") or m.group("cmd2")).strip()})
    if (m := _REPLACE.match(text)) and _looks_like_file(m.group("path")):
        old, new = _unquote(m.group("old")), _unquote(m.group("new"))
        return Action("edit_file", {"path": _clean(m.group("path")), "old_string": old, "new_string": new})
    if (m := _WRITE.match(text)) and _looks_like_file(m.group("path")):
        return Action("write_file", {"path": _clean(m.group("path")), "content": _unquote(m.group("text")) + "\n"})
    if m := _READ.match(text) or _SUMMARISE_FILE.match(text):
        path = _clean(m.group("path"))
        return Action("read_file", {"path": path}) if _looks_like_path(path) else None
    if m := _LIST.match(text):
        path = _clean(m.group("path") or ".") or "."
        return Action("list_dir", {"path": "." if path.lower() in _ROOT_WORDS else path})
    if m := _SEARCH.match(text):
        pattern = _clean(m.group("pattern"))
        if not pattern:
            return None
        return Action("search_text", {"pattern": pattern, "path": _clean(m.group("path") or ".") or "."})
    return None


def _use_args(text: str) -> dict[str, Any]:
    """A JSON object, or `key=value` pairs (a value that parses as JSON is taken as such: `n=3` is 3)."""
    text = text.strip()
    if text.startswith("{"):
        try:
            parsed = json.loads(text)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    try:
        tokens = shlex.split(text)
    except ValueError:
        tokens = text.split()
    args: dict[str, Any] = {}
    for token in tokens:
        key, eq, value = token.partition("=")
        if eq and key:
            try:
                args[key] = json.loads(value)
            except ValueError:
                args[key] = value
    return args


_ROOT_WORDS = {"files", "entries", "contents", "everything", "all", "here", "root", "workspace"}


def _clean(token: str) -> str:
    """Strip quotes, backticks and sentence punctuation the user wrapped around a path or pattern."""
    token = token.strip()
    token = token.rstrip(".,!?:;") if not token.endswith("..") else token
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"`":
        token = token[1:-1]
    return token.strip("`")


def _unquote(text: str) -> str:
    """A text the user may have wrapped in quotes or backticks, without them."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"`":
        return text[1:-1]
    return text


def _looks_like_file(token: str) -> bool:
    # "write a poem in french" is no file request; "write hi to notes.txt", "… to docs/x" are.
    token = _clean(token)
    return "." in token.strip(".") or "/" in token


def _looks_like_path(token: str) -> bool:
    # "read me a story" is not a file request; "read README", "read co_tui/x.py", "read ." are.
    return bool(token) and token.lower() not in {"me", "a", "an", "this", "that", "it", "more", "on", "up"}
