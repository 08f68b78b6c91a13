"""Agent definitions: what a subagent is told and may use (docs/subagents.md, "Defined agents").

A definition is a Markdown file with YAML front matter, Claude Code's `.claude/agents/*.md` format
read as is::

    ---
    name: reviewer
    description: Reviews a diff for bugs; use after an edit.
    tools: Read, Grep, Glob        # optional: omitted = every tool the main agent has but delegate
    model: inherit                 # optional: a pydantic-ai model string, or inherit (the default)
    budget: 30000                  # optional (co-tui's): the child's context budget in tokens
    ---
    You review code. ...           # the body: the child's instructions

Definition files are untrusted (a workspace's may come from anyone): each is capped in size, a
symlink leading out of its directory's root is refused, the name must be a short identifier, the
description is one capped line, unknown tools are refused by name. A file refused says why
(`Refusal`), listed by `/agents`. The built-in `explore` is always there and cannot be replaced.
Parsing is pure; `load_agents` reads the directories.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "EXPLORE",
    "AgentCatalog",
    "AgentDef",
    "AgentDefError",
    "Refusal",
    "agent_dirs",
    "load_agents",
    "parse_agent",
]

MAX_FILE_BYTES = 64_000  # a definition is instructions, not a corpus
MAX_FILES = 50  # per directory
MAX_DESCRIPTION = 300
MAX_INSTRUCTIONS = 20_000
_NAME = re.compile(r"\A[a-z][a-z0-9_-]{0,39}\Z")
MIN_BUDGET, MAX_BUDGET = 2_000, 1_000_000

# Claude Code's tool names -> co-tui's (a definition may use either).
TOOL_ALIASES = {
    "read": "read_file",
    "grep": "search_text",
    "glob": "list_dir",
    "ls": "list_dir",
    "bash": "run_shell",
    "edit": "edit_file",
    "multiedit": "edit_file",
    "write": "write_file",
}
KNOWN_TOOLS = ("read_file", "list_dir", "search_text", "recall", "run_shell", "edit_file", "write_file")
READ_ONLY_TOOLS = ("read_file", "list_dir", "search_text", "recall")
# Claude Code tools co-tui has no counterpart for: left out of the child's tools, without refusing the file.
IGNORED_TOOLS = frozenset({"webfetch", "websearch", "todowrite", "notebookedit", "task", "agent", "notebookread"})


class AgentDefError(ValueError):
    """A definition that cannot be used; the message says why in one line."""


@dataclass(frozen=True)
class AgentDef:
    """One agent a `delegate` call can run. `tools`: co-tui tool names (None: every tool the main
    agent has, `delegate` excepted); `model`: a model string (None: the main agent's);
    `budget_tokens`: its context budget (None: the `subagent_budget_tokens` setting); `source`:
    where it came from (`built-in`, or the file's path)."""

    name: str
    description: str
    instructions: str
    tools: tuple[str, ...] | None = READ_ONLY_TOOLS
    model: str | None = None
    budget_tokens: int | None = None
    source: str = "built-in"
    ignored_tools: tuple[str, ...] = ()

    @property
    def read_only(self) -> bool:
        """Whether every tool it has only reads (no approval is ever asked for it)."""
        return self.tools is not None and all(tool in READ_ONLY_TOOLS for tool in self.tools)


EXPLORE = AgentDef(
    name="explore",
    description=(
        "Read-only explorer: reads, lists and searches the workspace (read_file, list_dir, search_text, "
        "recall), never changes anything, needs no approval. Use it to look through many files and "
        "get back only the answer."
    ),
    instructions="""\
You are a read-only exploration subagent of co-tui, working for another agent that gave you one task. \
Use read_file, list_dir and search_text to find what the task asks; you cannot change anything. \
Read only what you need. When you are done, answer with what the task asked for and nothing else: \
the facts, the file paths and line numbers that support them, concise. Your answer is all the other \
agent will see of your work.""",
)


@dataclass(frozen=True)
class Refusal:
    """A definition file not used, and why (one line)."""

    path: str
    reason: str


@dataclass(frozen=True)
class AgentCatalog:
    """The agents a session can delegate to, by name (the built-in first), and the files refused."""

    agents: dict[str, AgentDef] = field(default_factory=lambda: {EXPLORE.name: EXPLORE})
    refused: tuple[Refusal, ...] = ()

    def get(self, name: str) -> AgentDef | None:
        """The agent called `name` (case-insensitive), or None."""
        return self.agents.get(name.strip().lower())


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    import yaml

    if not text.startswith("---"):
        raise AgentDefError("no YAML front matter (the file must start with ---)")
    end = re.search(r"^---[ \t]*$", text[3:], flags=re.MULTILINE)
    if end is None:
        raise AgentDefError("the front matter is not closed by a --- line")
    head, body = text[3 : 3 + end.start()], text[3 + end.end() :]
    try:
        data = yaml.safe_load(head)  # safe_load: no Python objects from an untrusted file
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise AgentDefError(f"the front matter is not valid YAML{where}") from None
    if not isinstance(data, dict):
        raise AgentDefError("the front matter is not a table of fields")
    return data, body.strip()


def _tools(value: Any) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    if value is None:
        return None, ()
    names = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else None
    if names is None or not all(isinstance(n, str) for n in names):
        raise AgentDefError("tools: a comma-separated list or a YAML list of tool names")
    tools: list[str] = []
    ignored: list[str] = []
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        key = name.lower()
        if key in IGNORED_TOOLS or key.startswith("mcp__"):
            ignored.append(name)
            continue
        tool = TOOL_ALIASES.get(key, key)
        if tool not in KNOWN_TOOLS:
            raise AgentDefError(f"tools: unknown tool {name[:40]!r} (known: {', '.join(KNOWN_TOOLS)})")
        if tool not in tools:
            tools.append(tool)
    return tuple(tools), tuple(ignored)


def parse_agent(text: str, source: str) -> AgentDef:
    """The definition in `text` (a Markdown file's content, from `source`). Raises `AgentDefError`."""
    data, body = _front_matter(text)
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name.strip().lower()):
        raise AgentDefError("name: 1-40 letters, digits, '-' or '_', starting with a letter")
    name = name.strip().lower()
    if name == EXPLORE.name:
        raise AgentDefError("name: explore is built in and cannot be replaced")
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise AgentDefError("description: required (the main agent chooses by it)")
    description = " ".join(description.split())[:MAX_DESCRIPTION]
    if not body:
        raise AgentDefError("no instructions after the front matter")
    if len(body) > MAX_INSTRUCTIONS:
        raise AgentDefError(f"instructions over {MAX_INSTRUCTIONS} characters")
    tools, ignored = _tools(data.get("tools"))
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise AgentDefError("model: a model string, or inherit")
    model = None if model is None or model.strip().lower() in ("", "inherit") else model.strip()
    budget = data.get("budget", data.get("budget_tokens"))
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool)):
        raise AgentDefError("budget: a number of tokens")
    if budget is not None and not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise AgentDefError(f"budget: between {MIN_BUDGET} and {MAX_BUDGET} tokens")
    return AgentDef(
        name=name,
        description=description,
        instructions=body,
        tools=tools,
        model=model,
        budget_tokens=budget,
        source=source,
        ignored_tools=ignored,
    )


def agent_dirs(workspace: Path, config_dir: Path, *, project: bool) -> list[Path]:
    """Where definitions are read, later ones winning a name: the user's (`<config dir>/agents`,
    `~/.claude/agents`), then, with `project` (the `agents_project_config` setting), the
    workspace's (`.claude/agents`, `.co-tui/agents`)."""
    dirs = [Path.home() / ".claude" / "agents", config_dir / "agents"]
    if project:
        dirs += [workspace / ".claude" / "agents", workspace / ".co-tui" / "agents"]
    return dirs


def _read_capped(path: Path, root: Path) -> str:
    resolved = path.resolve()
    if not resolved.is_relative_to(root.resolve()):
        raise AgentDefError("a symlink leading out of its directory: refused")
    if not resolved.is_file():
        raise AgentDefError("not a regular file")
    with resolved.open("rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise AgentDefError(f"over {MAX_FILE_BYTES // 1000} KB: refused")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise AgentDefError("not UTF-8 text") from None


def load_agents(dirs: Iterable[Path]) -> AgentCatalog:
    """Every definition in `dirs` (`*.md`, sorted, at most `MAX_FILES` per directory) beside the
    built-in `explore`; a later directory's agent replaces an earlier one of the same name. Never
    raises: an unreadable directory is skipped, a bad file is a `Refusal`."""
    agents: dict[str, AgentDef] = {EXPLORE.name: EXPLORE}
    refused: list[Refusal] = []
    for directory in dirs:
        try:
            if not directory.is_dir():
                continue
            files = sorted(p for p in directory.iterdir() if p.suffix == ".md")
        except OSError:
            continue
        for index, path in enumerate(files):
            if index >= MAX_FILES:
                refused.append(Refusal(str(path), f"more than {MAX_FILES} definitions in {directory}"))
                continue
            try:
                agent = parse_agent(_read_capped(path, directory), str(path))
            except AgentDefError as exc:
                refused.append(Refusal(str(path), str(exc)))
                continue
            except OSError as exc:
                refused.append(Refusal(str(path), f"unreadable: {exc.strerror or exc}"))
                continue
            agents[agent.name] = agent
    return AgentCatalog(agents=agents, refused=tuple(refused))


def describe_agents(agents: Sequence[AgentDef]) -> str:
    """The list the `delegate` tool's description offers: one line per agent, name and description."""
    return "\n".join(f"- {agent.name}: {agent.description}" for agent in agents)
