"""The agent factory: one pydantic-ai `Agent` with co-tui's instructions and workspace tools.

Instructions go in `instructions=` (re-sent on every request), never `system_prompt=`: context
trimming may drop old messages, and a system prompt stored in history would go with them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.agent.recall_tool import RecallSource, recall_toolset
from co_tui.agent.tools import Approver, workspace_toolset

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.models import Model

    from co_tui.agent.agent_defs import AgentDef
    from co_tui.agent.file_edits import FileEdits
    from co_tui.config import Settings


def agent_instructions(workspace: Path, *, allow_shell: bool, allow_edits: bool = False) -> str:
    """The agent's standing instructions: who it is, where it works, and how to read context markers."""
    edits = (
        " You can change files with write_file (a whole file; read an existing one first) and edit_file "
        "(one exact, unique piece of text); the user approves every change as a diff."
        if allow_edits
        else ""
    )
    shell = (
        "You can also run shell commands in the workspace root with run_shell; the user approves or declines "
        "every command, and a declined command must not be retried without asking."
        if allow_shell
        else "You cannot run shell commands (run_shell is disabled in this session)."
    )
    return f"""\
You are co-tui, a coding assistant in a terminal chat. The user's workspace is {workspace}.
Use your tools to look before you answer: read_file, list_dir and search_text take paths relative to \
the workspace root, and anything outside it is refused. Tool outputs are capped and say so when they are.{edits} {shell}
Be concise; quote file paths and line numbers when they help.

{CONTEXT_NOTE}"""


CONTEXT_NOTE = """\
About your context: to stay within the model's context window, co-tui may trim or summarise older \
parts of this conversation, and it always leaves a marker where it did:
- "[Earlier conversation trimmed …]" means earlier turns happened and were removed from your view;
- "[Summary of N earlier messages]" or "[Compacted conversation summary]" is a summary of earlier work;
- an old tool output ending in "[…truncated, N chars total]" was shortened.
That earlier work really happened: never deny having done it because you can no longer see it. Nothing \
cut is lost: each note names what left and the exact call that returns it verbatim, recall("r12") for a \
tool output, recall(turns="3-5") for turns, recall(search="text") to find something out of view. Use \
recall when you need a detail that is no longer in view, rather than guessing or running a tool again."""
"""How to read the markers governance leaves: every governed agent is told, a subagent too."""


def child_instructions(agent_def: AgentDef, workspace: Path) -> str:
    """A subagent's standing instructions: its definition's, where it works, and how to read markers."""
    return f"{agent_def.instructions}\n\nThe workspace is {workspace}; tool paths are relative to it.\n\n{CONTEXT_NOTE}"


def instructions_for(settings: Settings, root: Path, agent_def: AgentDef | None) -> str:
    """The standing instructions of the main agent (`agent_def` None) or of a subagent."""
    if agent_def is not None:
        return child_instructions(agent_def, root)
    return agent_instructions(root, allow_shell=settings.allow_shell, allow_edits=settings.allow_edits)


def _allows(agent_def: AgentDef | None, tool: str) -> bool:
    return agent_def is None or agent_def.tools is None or tool in agent_def.tools


def tool_schema_tokens(tool_defs: Iterable[Any]) -> int:
    """Estimated tokens the given pydantic-ai `ToolDefinition`s add to every request.

    Each definition counts as the JSON a provider receives for it (name, description, parameter
    schema). One estimator for every view that prices tools: the meter's overhead, `/mcp` and
    `/context`.
    """
    import json

    from co_tui.governance import estimate_text_tokens

    schemas = [
        {"name": d.name, "description": d.description, "parameters": d.parameters_json_schema} for d in tool_defs
    ]
    return estimate_text_tokens(json.dumps(schemas)) if schemas else 0


def known_tool_defs(toolset: Any) -> list[Any]:
    """The `ToolDefinition`s of `toolset` known without asking anyone: a `FunctionToolset`'s (the
    workspace tools). A toolset whose tools come from elsewhere (an MCP server) has none here until
    its list is known."""
    tools = getattr(toolset, "tools", None)
    if isinstance(tools, dict):
        return [tool.tool_def for tool in tools.values()]
    return []


def toolset_source(toolset: Any) -> str:
    """The name a toolset's schemas are counted under in `/context`: `workspace` for co-tui's own
    function tools, else the toolset's id (an MCP server's name) or label."""
    from pydantic_ai.toolsets import FunctionToolset

    if isinstance(toolset, FunctionToolset) and toolset.id is None:
        return "workspace"
    return str(getattr(toolset, "id", None) or getattr(toolset, "label", None) or type(toolset).__name__)


def tool_schema_costs(toolsets: Iterable[Any]) -> list[tuple[str, int, int]]:
    """(source, schema tokens, tools) for `toolsets` (e.g. `agent.toolsets`), grouped by
    `toolset_source` in first-seen order; a source with no known tool is left out."""
    grouped: dict[str, list[Any]] = {}
    for toolset in toolsets:
        grouped.setdefault(toolset_source(toolset), []).extend(known_tool_defs(toolset))
    return [(source, tool_schema_tokens(defs), len(defs)) for source, defs in grouped.items() if defs]


def overhead_tokens(
    settings: Settings,
    *,
    workspace: Path,
    project_text: str | None = None,
    agent: Any = None,
    agent_def: AgentDef | None = None,
) -> int:
    """Estimated tokens each request carries besides the messages: instructions (co-tui's own and
    `project_text`, the project instructions' part) plus the workspace tools' schemas.

    `agent` (from `build_agent`): its workspace tools are priced, so none are built here — building
    their schemas is a few milliseconds of a session's start; without it they are built once.
    The meter uses it until the first provider report shows the real figure. The `recall` tool's
    schema is not counted: a request offers it only once something was cut (governance/recall_offer.py).
    `agent_def`: a subagent's definition (its instructions stand for co-tui's); the `delegate`
    tool's schema counts with the workspace tools'.
    """
    from co_tui.governance import estimate_text_tokens

    root = Path(workspace).expanduser().resolve()
    if agent is not None:
        defs = [
            d for ts in agent.toolsets if toolset_source(ts) in ("workspace", "delegate") for d in known_tool_defs(ts)
        ]
    else:
        defs = known_tool_defs(
            workspace_toolset(root, allow_shell=settings.allow_shell, allow_edits=settings.allow_edits)
        )
    own = estimate_text_tokens(instructions_for(settings, root, agent_def))
    project = estimate_text_tokens(project_text) if project_text else 0
    return own + project + tool_schema_tokens(defs)


def prompt_cache_capabilities(settings: Settings) -> list[Any]:
    """`[Caching()]` when `settings.prompt_cache` is on, else `[]` (docs/context-governance.md, "Prompt cache").

    pydantic-ai's `Caching` sets the unified `cache` model setting: Anthropic requests get
    `cache_control` breakpoints on the instructions, the tool definitions and the newest message
    (the moving tail), so each request reads the previous one's prefix back at a tenth of the input
    price; OpenAI-style providers cache prefixes on their own and ignore it.
    """
    if not settings.prompt_cache:
        return []
    from pydantic_ai.capabilities import Caching

    return [Caching()]


def build_agent(
    settings: Settings,
    *,
    workspace: Path,
    model: Model,
    capabilities: Sequence[Any] = (),
    approver: Approver | None = None,
    file_edits: FileEdits | None = None,
    toolsets: Sequence[Any] = (),
    project_instructions: Callable[[], str | None] | None = None,
    recall: RecallSource | None = None,
    agent_def: AgentDef | None = None,
    delegate: Any = None,
    remember: Any = None,
) -> Agent[None, str]:
    """An `Agent` for `model` with the workspace tools (run_shell only if `settings.allow_shell`).

    `MendText` comes first (surrogates mended where model and tool text arrives, mend_text.py);
    `capabilities` (e.g. the governance capability) are passed through in order, followed by
    pydantic-ai's `Caching` when `settings.prompt_cache` is on; `approver` is awaited before every
    shell command and file edit (none → every one is refused); `file_edits` holds the session's view
    of the files and where edits are checkpointed (`file_edits.py`). `project_instructions` is called
    for every request and its text (AGENTS.md …, see `project_instructions.py`) follows co-tui's own
    instructions; None from it adds nothing. `toolsets` come after the workspace tools (the MCP
    servers' toolsets, `mcp_servers.McpServers.toolsets`). `recall` adds the `recall` tool over that
    source (agent/recall_tool.py), offered once a request's context carries a cut note
    (governance/recall_offer.py). `agent_def`: build a subagent (agent_defs.py): its instructions
    stand for co-tui's and only its tools are offered (shell and edits still only when the settings
    allow them; MCP tools only to a definition that names no tools). `delegate`: the `delegate`
    toolset (delegate_tool.py), the main agent's only: a subagent never gets one (depth 1).
    `remember`: the `remember` toolset (remember_tool.py), the main agent's only.
    """
    import pydantic_ai
    from pydantic_ai import Agent

    # pydantic-ai prints a first-run banner on a terminal: it would land in print mode's output.
    pydantic_ai.BANNER_ENABLED = False
    from co_tui.agent.mend_text import MendText
    from co_tui.agent.stream_locks import quicken_stream_locks

    quicken_stream_locks()  # a streamed token no longer waits three event-loop turns (stream_locks.py)
    root = Path(workspace).expanduser().resolve()
    toolset: Any = workspace_toolset(
        root,
        allow_shell=settings.allow_shell and _allows(agent_def, "run_shell"),
        approver=approver,
        search_timeout_s=settings.search_timeout_s,
        allow_edits=settings.allow_edits and (_allows(agent_def, "edit_file") or _allows(agent_def, "write_file")),
        edits=file_edits,
    )
    if agent_def is not None and agent_def.tools is not None:
        allowed = set(agent_def.tools)
        toolset.tools = {name: tool for name, tool in toolset.tools.items() if name in allowed}
    instructions: list[Any] = [instructions_for(settings, root, agent_def)]
    if project_instructions is not None:
        # A function: pydantic-ai evaluates it per request, so a reloaded file needs no new agent.
        instructions.append(project_instructions)
    own: list[Any] = [toolset]
    if recall is not None and _allows(agent_def, "recall"):
        own.append(recall_toolset(recall))
    if delegate is not None and agent_def is None:
        own.append(delegate)
    if remember is not None and agent_def is None:
        own.append(remember)
    if agent_def is not None and agent_def.tools is not None:
        toolsets = ()  # a definition that names its tools gets those only
    return Agent(
        model,
        instructions=instructions,
        toolsets=[*own, *toolsets],
        capabilities=[MendText(), *capabilities, *prompt_cache_capabilities(settings)],
        name="co-tui" if agent_def is None else f"co-tui:{agent_def.name}",
    )
