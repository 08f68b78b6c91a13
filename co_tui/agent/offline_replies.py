"""The offline model's words: canned but input-aware replies, and answers built from tool results.

Pure text functions (no pydantic-ai), deterministic: the same input always gives the same text.
The tool answers read the headers `workspace.py` writes ("README.md: lines 1-40 of 40 (…)").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from co_tui.agent.extractive import inline_code_safe
from co_tui.agent.offline_intents import OFFLINE_NOTICE, SETUP_HINT, TRIGGERS, Intent
from co_tui.text import plural

QUOTE_CHARS = 120
SLOW_WORDS = 60


@dataclass(frozen=True)
class ToolOutcome:
    """One finished tool call as the offline model sees it."""

    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    content: str = ""
    outcome: str = "success"  # pydantic-ai's ToolReturnPart.outcome, or "retry" for a RetryPromptPart


def canned_reply(intent: Intent, prompt: str, tool_names: Sequence[str]) -> str:
    """The reply to a prompt that needs no tool (greeting, help, question, chat, …)."""
    said = _quote(prompt)
    if intent.kind == "help":
        return help_text(tool_names)
    if intent.kind == "greeting":
        return (
            f"Hello! {OFFLINE_NOTICE} I can still work with this workspace: try `list .`, "
            f"`search TODO` or `write hello to notes.txt`. Type `help` for everything I understand.\n\n{SETUP_HINT}"
        )
    if intent.kind == "thanks":
        return "You're welcome. (Offline stand-in model: for real answers, configure a model; `help` says how.)"
    if intent.kind == "empty":
        return "I received an empty message. Type `help` to see what the offline model can do."
    if intent.kind == "slow":
        words = " ".join(f"word{n}" for n in range(1, SLOW_WORDS + 1))
        return (
            f"Streaming slowly, as asked ({said}), so you can try interrupting with Esc: {words}. "
            f"Done: that was {SLOW_WORDS} words."
        )
    if intent.kind == "question":
        return (
            f"You asked {said}. {OFFLINE_NOTICE} I cannot answer open questions, but I can look things up "
            f"in this workspace: `read <file>`, `list <dir>`, `search <pattern> in <dir>`.\n\n{SETUP_HINT}"
        )
    return (
        f"You said {said} ({plural(len(prompt.split()), 'word')}). {OFFLINE_NOTICE} "
        f"Type `help` to see the requests I understand.\n\n{SETUP_HINT}"
    )


def help_text(tool_names: Sequence[str]) -> str:
    """What the offline model understands, and how to switch to a real model."""
    lines = [OFFLINE_NOTICE, "", "Requests I understand:"]
    for example, what in TRIGGERS:
        if example.startswith("run") and "run_shell" not in tool_names:
            what += " — shell is off now: set allow_shell = true (CO_TUI_ALLOW_SHELL=1) to enable it"
        if example.startswith(("write", "replace")) and "write_file" not in tool_names:
            what += " — file edits are off now: set allow_edits = true to enable them"
        lines.append(f"- `{example}` — {what}")
    lines += [
        "",
        "Summaries and /compact work offline too: I write extractive summaries (key lines picked from "
        "the conversation).",
        "",
        SETUP_HINT,
    ]
    return "\n".join(lines)


def unavailable_tool_reply(tool: str, tool_names: Sequence[str]) -> str:
    """The reply when a request needs a tool this agent does not have."""
    if tool == "run_shell":
        return (
            "I can't run shell commands: the run_shell tool is off. Start co-tui with allow_shell enabled "
            "(CO_TUI_ALLOW_SHELL=1 or `allow_shell = true` in config.toml); every command still needs your "
            "approval."
        )
    available = ", ".join(tool_names) or "none"
    return f"I would need the {tool} tool for that, but this agent has no such tool (tools: {available})."


def answer_from_results(results: Sequence[ToolOutcome]) -> str:
    """The final answer after the tool calls: one paragraph per call, built from its output."""
    return "\n\n".join(_answer_one(r) for r in results) or "The tools returned nothing."


def _answer_one(r: ToolOutcome) -> str:
    target = r.args.get("path") or r.args.get("command") or ""
    if r.outcome == "denied":
        return r.content if r.content.startswith("Not run") else f"Not run: {r.content}"
    if r.outcome in ("failed", "retried", "retry"):
        where = f" for `{target}`" if target else ""
        return f"{r.tool} could not do that{where}: {_first_line(r.content)}"
    if r.outcome == "interrupted":
        return f"{r.tool} was interrupted before it finished."
    if r.tool == "read_file":
        return _describe_read(r.content)
    if r.tool == "list_dir":
        return _describe_listing(r.content)
    if r.tool == "search_text":
        return _describe_search(r.content)
    if r.tool == "run_shell":
        return _describe_shell(r.content)
    if r.tool in ("write_file", "edit_file"):  # the tool's own first line says what changed
        return f"Done: {_first_line(r.content)}."
    if r.tool == "recall":
        return _describe_recall(r.content)
    if r.tool == "delegate":
        return _describe_delegate(r.content)
    return f"{r.tool} returned {len(r.content):,} chars, starting: {_quote(r.content)}"


def _describe_delegate(content: str) -> str:
    """A subagent's result: who worked on it, in its own context, and what it returned."""
    header, _, body = content.partition("\n")
    who = re.match(r"\[subagent (\S+) (.*?);", header)
    if who is None:
        return f"The subagent returned: {_quote(content)}"
    agent, how = who[1], who[2]
    lead = f"A subagent ({agent}) did that in a context of its own"
    if how != "answered":
        return f"{lead}, but it {how}. {body.strip()}"
    return f'{lead}; only its answer is in mine (recall("{agent}") shows its work):\n\n{body.strip()}'


_PAGE = re.compile(
    r"chars (?P<start>[\d,]+)-(?P<end>[\d,]+) of (?P<total>[\d,]+)(?:; next page: (?P<next>recall\(.*\)))?"
)
_SOURCE = re.compile(r"the output of (?P<call>.+?) from turn")
_SEARCHED = re.compile(r'^\[recall\(search="(?P<pattern>.*?)"\): (?P<hits>\d+) hits')
_HIT = re.compile(r"^- turn (?P<turn>\d+), (?:(?P<call>.+?) → )?(?P<source>[^:]*?): (?P<snippet>.*)$")


def _describe_recall(content: str) -> str:
    """A recall's page, honestly: which output (the call that made it) or which search, and which
    part of it the page is; then the original as its own tool would be described."""
    header, _, body = content.partition("\n")
    if child := re.search(r"subagent (\S+)'s transcript", header):
        calls = len(re.findall(r"^tool output \(", body, re.M))
        return (
            f"I read subagent {child[1]}'s transcript back with recall ({len(body):,} chars, "
            f"{calls} tool output{'' if calls == 1 else 's'}). It starts: {_quote(body)}"
        )
    if searched := _SEARCHED.match(header):
        return _describe_search_recall(searched["pattern"], int(searched["hits"]), body)
    turn = re.search(r"from turn (\d+)", header)
    source = _SOURCE.search(header)
    page = _PAGE.search(header)
    partial = page is not None and (page["start"] != "0" or page["end"] != page["total"])
    lead = f"That had been cut from my view{f' (turn {turn[1]})' if turn else ''}, so I read it back with recall"
    if source:
        lead += f": the output of {source['call']}"
    if page is not None and partial:
        lead += f", characters {page['start']}-{page['end']} of {page['total']} (one page"
        lead += f"; {page['next']} reads on)" if page["next"] else ", the last)"
    lead += ". "
    if _READ_HEADER.match(body.partition("\n")[0]):
        return lead + _describe_read(body, partial=partial)
    if body.startswith("--- turn"):
        return lead + f"Those turns as they happened ({len(body):,} chars) start: {_quote(body)}"
    return lead + f"It returned {len(body):,} chars, starting: {_quote(body)}"


def _describe_search_recall(pattern: str, count: int, body: str) -> str:
    """A `recall(search=…)`: where each hit is (whose output it is), so text that only mentions a
    file is never passed off as that file's."""
    lead = f'I searched what had been cut from my view for "{pattern}"'
    hits = [m for line in body.splitlines() if (m := _HIT.match(line))]
    if not count or not hits:
        return f"{lead}: no hits, so I cannot tell you what it said; it may never have been read in this session."
    own = [h for h in hits if h["call"] and pattern in h["call"]]
    lines = [f"{lead}: {plural(count, 'hit')}."]
    if not own:
        lines[0] += f" None is in an output of {pattern} itself: each is in other text that mentions it."
    for hit in hits[:3]:
        whose = f"the output of {hit['call']}" if hit["call"] else f"the {hit['source'].split(',')[0]}"
        lines.append(f"- turn {hit['turn']}, {whose}: {_quote(hit['snippet'])}")
    if len(hits) > 3:
        lines.append(f"- … {plural(len(hits) - 3, 'more hit')}")
    return "\n".join(lines)


_READ_HEADER = re.compile(
    r"^(?P<path>.+?): lines (?P<first>[\d,]+)-(?P<last>[\d,]+) of (?P<total>[\d,?]+) "
    r"\((?P<size>[\d,]+) bytes\)$"
)
_HEADING = re.compile(r"^(#{1,6})\s+(.+)$")
_DEFINITION = re.compile(r"^(?:async\s+def|def|class)\s+(\w+)|^(?:export\s+)?(?:function|const|interface|type)\s+(\w+)")


def _outside_fences(lines: list[str]) -> list[str]:
    """The Markdown lines outside fenced code blocks: a `# comment` in a ```sh block is no heading."""
    kept, fence = [], ""
    for line in lines:
        marker = line.lstrip()[:3]
        if marker in ("```", "~~~") and (not fence or marker == fence):
            fence = "" if fence else marker
        elif not fence:
            kept.append(line)
    return kept


def _describe_read(content: str, *, partial: bool = False) -> str:
    """A `read_file` output described; `partial`: `content` is one recalled page of it (the lines
    it holds are said, not the lines the read covered)."""
    lines = content.splitlines()
    header = _READ_HEADER.match(lines[0]) if lines else None
    if header is None:  # binary, empty, past the end: the tool already said it in one line
        return f"The file could not be shown as text: {_first_line(content)}"
    body = [line for line in lines[1:] if not (line.startswith("[capped") or line.startswith("["))]
    path, total = header["path"], header["total"]
    noun = "line" if total == "1" else "lines"
    if partial:
        start = int(header["first"].replace(",", ""))
        held = f"{start:,}-{start + max(0, len(lines) - 2):,}"  # the last line of a page may be cut short
        read = f"the read covered lines {header['first']}-{header['last']}; this page holds lines {held} of them"
    else:
        read = f"I read lines {header['first']}-{header['last']}"
    parts = [f"`{path}` has {total} {noun} ({header['size']} bytes); {read}."]
    first = [line.strip() for line in body if line.strip()][:3]
    if first:
        parts.append("It starts with: " + " / ".join(_quote(line, 80) for line in first) + ".")
    headings = [m.group(2).strip() for line in _outside_fences(body) if (m := _HEADING.match(line))]
    if headings:
        parts.append(
            f"Headings{' in this page' if partial else ''} ({len(headings)}): "
            + "; ".join(headings[:8])
            + ("; …" if len(headings) > 8 else ".")
        )
    names = [m.group(1) or m.group(2) for line in body if (m := _DEFINITION.match(line.strip()))]
    if names and not headings:
        parts.append(f"It defines {len(names)} names: " + ", ".join(names[:10]) + (", …" if len(names) > 10 else "."))
    if any(line.startswith("[capped") for line in lines):
        parts.append("The output was capped; ask me to read on with an offset for the rest.")
    return " ".join(parts)


def _describe_listing(content: str) -> str:
    lines = content.splitlines()
    if not lines:
        return "The directory listing was empty."
    entries = [line.split("  (")[0] for line in lines[1:] if not line.startswith("[") and line != "(empty)"]
    shown = ", ".join(entries[:15]) + (", …" if len(entries) > 15 else "")
    where, _, counts = lines[0].partition(": ")
    text = f"`{where}` holds {counts}" + (f": {shown}." if entries else ".")
    if any(line.startswith("[capped") for line in lines):
        text += " (The listing was capped.)"
    return text


def _describe_search(content: str) -> str:
    lines = content.splitlines()
    if not lines:
        return "The search returned nothing."
    hits = [line for line in lines[1:] if not line.startswith("[capped")]
    per_file: dict[str, int] = {}
    for hit in hits:
        per_file[hit.split(":", 1)[0]] = per_file.get(hit.split(":", 1)[0], 0) + 1
    text = lines[0] + "."
    # Every figure said must be true: per-file counts come from the matches shown, which a capped
    # search limits to its first ones (the header's totals count them all).
    shown_only = any(line.startswith("[capped: showing") for line in lines)
    if per_file:
        top = sorted(per_file.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        most = f"Of the first {len(hits):,} shown, most are in: " if shown_only else "Most in: "
        text += " " + most + ", ".join(f"{name} ({n})" for name, n in top) + "."
        text += " First: " + _quote(hits[0], 160) + "."
    files_cap = next((line for line in lines if line.startswith("[capped: searched the first")), None)
    if files_cap is not None:
        text += f" Only the first {files_cap.split()[4]} files were searched: there may be more."
    if shown_only:
        text += " The output was capped (a large tool result: older ones get trimmed in context)."
    return text


def _describe_shell(content: str) -> str:
    lines = content.splitlines()
    command = lines[0][2:] if lines and lines[0].startswith("$ ") else "the command"
    status = lines[-1] if lines else ""
    output = [line for line in lines[1:-1] if line.strip()]
    text = f"I ran `{command}`: {status.strip('[]') or 'no status'}."
    if output and output != ["(no output)"]:
        tail = output[-5:]
        text += f" Output ({plural(len(output), 'line')}), last lines:\n" + "\n".join(f"    {line}" for line in tail)
    else:
        text += " It printed nothing."
    return text


def _quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` on one line, cut to `limit`, in quotes, safe as Markdown (`inline_code_safe`)."""
    text = " ".join(text.split())
    return f'"{inline_code_safe(text if len(text) <= limit else text[: limit - 1] + "…")}"'


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0]
