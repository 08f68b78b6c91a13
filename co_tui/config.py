"""Settings: CLI > env `CO_TUI_*` > TOML config file > defaults (docs/configuration.md).

`load_settings()` is the only entry point; any bad value becomes a `SettingsError` whose message is
one line naming the setting and where the value came from. Callers print it and exit 2.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from co_tui.governance.defaults import DEFAULT_COMPACT_TARGET, DEFAULT_MAX_HISTORY_MESSAGES, DEFAULT_TOOL_OUTPUT_CLEAR
from co_tui.paths import default_config_file, default_data_dir

ENV_PREFIX = "CO_TUI_"


class SettingsError(Exception):
    """A bad setting. `str(err)` is the one line shown to the user."""


_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class McpServerConfig(BaseModel):
    """One `[mcp_servers.NAME]` table: `command` (+ `args`, `env`, `cwd`) for stdio, or `url` (+ `headers`)."""

    model_config = ConfigDict(extra="forbid")

    command: str | None = Field(None, min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] | None = None

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        # Same shape as a `.mcp.json` entry (docs/configuration.md, "MCP servers").
        if (self.command is None) == (self.url is None):
            raise ValueError("needs either `command` (a stdio server) or `url` (an HTTP server), not both")
        if self.url is not None:
            if not self.url.startswith(("http://", "https://")):
                raise ValueError("`url` must start with http:// or https://")
            if self.args or self.env or self.cwd:
                raise ValueError("`args`, `env` and `cwd` are for stdio servers (with `command`), not `url`")
        elif self.headers:
            raise ValueError("`headers` are for HTTP servers (with `url`), not `command`")
        return self


class HooksConfig(BaseModel):
    """The `[hooks]` table: commands run around a compaction (argv lists, no shell) and their timeout.
    Only the user's config, env and CLI set it: the workspace has no say (docs/configuration.md, "Hooks")."""

    model_config = ConfigDict(extra="forbid")

    pre_compact: list[str] = Field(default_factory=list)
    post_compact: list[str] = Field(default_factory=list)
    timeout_s: float = Field(10.0, gt=0.0, le=600.0)


class Settings(BaseSettings):
    """Every co-tui setting. Field names are a contract: docs/configuration.md lists them."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        extra="forbid",
        validate_default=True,
        protected_namespaces=(),
    )

    model: str = Field("offline", min_length=1, description="pydantic-ai model string, or `offline`.")
    summarization_model: str | None = Field(None, description="Model for summaries; default: `model`.")
    tool_output_trim_chars: int = Field(2000, ge=0, description="Cap on old tool outputs in context; 0 disables.")
    tool_output_clear: Literal["stub", "head"] = Field(
        DEFAULT_TOOL_OUTPUT_CLEAR,
        description="Old outputs `recall` can bring back: `stub` clears them to a one-line note, "
        "`head` keeps their first `tool_output_trim_chars` characters.",
    )
    tool_output_preview_chars: int = Field(
        50_000,
        ge=0,
        description="An output longer than this is kept whole in the transcript; the model gets its head, tail, "
        "size and `recall` handle. 0 disables.",
    )
    max_answer_chars: int = Field(
        500_000,
        ge=0,
        description="A streamed answer is stopped at this many characters, and says so. 0 disables.",
    )
    max_history_messages: int = Field(
        DEFAULT_MAX_HISTORY_MESSAGES,
        ge=0,
        description="Cuts trigger above this many messages; 0 disables the message-count trigger.",
    )
    context_budget_tokens: int = Field(0, ge=0, description="Token budget; 0 derives it from the model window.")
    compact_threshold: float = Field(0.8, gt=0.0, le=1.0, description="Budget as a fraction of the window.")
    compact_target: float = Field(
        DEFAULT_COMPACT_TARGET,
        ge=0.2,
        le=0.95,
        description="A cut goes down to this fraction of the budget (the low-water mark).",
    )
    context_strategy: Literal["summarize", "trim"] = Field("summarize", description="How old turns leave context.")
    summary_instructions: str = Field(
        "", description="Your instructions for summaries and /compact: added to co-tui's (or replacing them)."
    )
    summary_instructions_mode: Literal["add", "replace"] = Field(
        "add", description="add: your summary instructions follow co-tui's; replace: they stand instead of its format."
    )
    compact_project_file: bool = Field(False, description="Also read the workspace's COMPACT.md (untrusted).")
    compact_mode: Literal["auto", "ask", "off"] = Field(
        "auto",
        description="auto: cut when the context reaches its budget; ask: ask before a send that would cut "
        "(print mode: auto); off: never cut automatically.",
    )
    hooks: HooksConfig = Field(
        HooksConfig(timeout_s=10.0), description="Commands run before and after a compaction ([hooks])."
    )
    summarizer_cooldown_s: float = Field(600.0, ge=0.0, description="After a failed summary, only trim this long.")
    fallback_context_window: int = Field(32_768, ge=1024, description="Window assumed for unknown models.")
    prompt_cache: bool = Field(True, description="Ask the provider to cache the prompt prefix (Anthropic breakpoints).")
    data_dir: Path | None = Field(None, description="Where sessions.db lives; default: platformdirs data dir.")
    project_instructions: bool = Field(
        True, description="Send AGENTS.md (else CLAUDE.md) of the workspace and of the config dir with every request."
    )
    allow_shell: bool = Field(False, description="Offer the `run_shell` tool (every call needs approval).")
    allow_edits: bool = Field(True, description="Offer `write_file` and `edit_file` (every edit needs approval).")
    checkpoint_max_bytes: int = Field(
        20_000_000, ge=0, description="Previous file content a session keeps for its edits; an edit beyond is refused."
    )
    max_retries: int = Field(2, ge=0, le=10, description="Provider retries on 429/5xx/connection errors.")
    request_timeout_s: float = Field(120.0, gt=0, description="Per-request timeout for provider HTTP calls.")
    search_timeout_s: float = Field(10.0, gt=0, description="search_text is stopped (a failed tool result) after this.")
    mcp_servers: dict[str, McpServerConfig] = Field(
        default_factory=dict, description="MCP servers by name (`[mcp_servers.NAME]` tables); tools become NAME_tool."
    )
    mcp_project_config: bool = Field(False, description="Also start the servers of the workspace's `.mcp.json`.")
    mcp_call_timeout_s: float = Field(
        300.0, gt=0, description="An MCP tool call with no answer after this is a failed tool result."
    )
    mcp_approve: list[str] = Field(
        default_factory=list, description="MCP servers whose every tool call needs approval (as run_shell)."
    )
    # Subagents (docs/subagents.md): each child's limits, and how many run at once.
    subagent_budget_tokens: int = Field(
        40_000, ge=2_000, description="A subagent's own context budget (capped by the parent's budget)."
    )
    subagent_max_requests: int = Field(30, ge=1, le=500, description="A subagent stops after this many requests.")
    subagent_timeout_s: float = Field(300.0, gt=0, description="A subagent is stopped after this long (wall clock).")
    subagent_max_concurrent: int = Field(3, ge=1, le=16, description="Most subagents running at once.")
    agents_project_config: bool = Field(
        False, description="Also read the workspace's agent definitions (`.co-tui/agents/`, `.claude/agents/`)."
    )

    @field_validator("mcp_servers")
    @classmethod
    def _server_names(cls, value: dict[str, McpServerConfig]) -> dict[str, McpServerConfig]:
        # The name prefixes the server's tools, and providers accept only these characters in tool names.
        for name in value:
            if not _SERVER_NAME.match(name):
                raise ValueError(f"server name {name!r}: use 1-32 letters, digits, '_' or '-'")
        return value

    @field_validator("data_dir", mode="before")
    @classmethod
    def _data_dir_is_absolute(cls, value: Any) -> Any:
        # An empty value would be the workspace itself (".") and a relative one a database of
        # prompts inside every project: both are refused (docs/configuration.md).
        if value is None:
            return None
        if not str(value).strip():
            raise ValueError("must not be empty (unset it to use the default location)")
        if not Path(str(value)).expanduser().is_absolute():
            raise ValueError("must be an absolute path")
        return value

    @field_validator("max_history_messages")
    @classmethod
    def _message_limit(cls, value: int) -> int:
        # Below 8 the summary window between the first and the recent turns is always empty.
        if 0 < value < 8:
            raise ValueError("must be 0 (no message limit) or at least 8")
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """pydantic-settings hook: the sources, highest priority first — the init arguments (`load_settings`
        passes the command line's), `CO_TUI_*` environment variables, the TOML file at
        `default_config_file()`; no dotenv, no secrets dir."""
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=default_config_file()))

    @property
    def resolved_data_dir(self) -> Path:
        """`data_dir` or the platformdirs default (not created here; see `paths.ensure_private_dir`)."""
        return (self.data_dir or default_data_dir()).expanduser()


def _source_of(field: str, cli: dict[str, Any], toml_data: dict[str, Any], config_file: Path) -> str:
    if field in cli:
        return f"--{field.replace('_', '-')} on the command line"
    env_name = ENV_PREFIX + field.upper()
    if any(k.upper() == env_name for k in os.environ):
        return f"environment variable {env_name}"
    if field in toml_data:
        return f"config file {config_file}"
    return "default"


def load_settings(**cli: Any) -> Settings:
    """Build `Settings` from CLI overrides (None values ignored), env, the TOML file and defaults.

    Raises `SettingsError` with a single line naming the bad setting and its source.
    """
    cli = {k: v for k, v in cli.items() if v is not None}
    config_file = default_config_file()
    toml_data: dict[str, Any] = {}
    if config_file.exists() and not config_file.is_file():
        raise SettingsError(f"config file {config_file}: is a directory (or not a regular file), not a TOML file")
    if config_file.is_file():
        import tomllib  # only with a file to read (~6 ms): pydantic-settings imports it only then too

        try:
            toml_data = tomllib.loads(config_file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SettingsError(f"config file {config_file}: not valid TOML ({exc})") from None
        except OSError as exc:
            raise SettingsError(f"config file {config_file}: cannot be read ({exc.strerror})") from None
    from pydantic_settings import SettingsError as SourceError

    try:
        return Settings(**cli)
    except SourceError as exc:  # a structured setting's environment variable is not JSON
        named = re.search(r'field "(\w+)"', str(exc))
        where = f"environment variable {ENV_PREFIX}{named.group(1).upper()}" if named else "the environment"
        raise SettingsError(f"{where}: not valid JSON (a list or table setting is given as JSON)") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else "?"
        # A nested setting (an MCP server's table) is named down to the key: mcp_servers.docs.url.
        where = ".".join(str(part) for part in err["loc"]) or "?"
        source = _source_of(field, cli, toml_data, config_file)
        if err["type"] == "extra_forbidden":  # a key in a table: the table's source (CO_TUI_MCP_SERVERS…)
            where_from = source if source != "default" else f"config file {config_file}"
            raise SettingsError(f"{where_from}: unknown setting '{where}'") from None
        value = err.get("input")
        shown = f" {value!r}" if isinstance(value, (str, int, float, bool)) else ""
        raise SettingsError(f"setting {where}: invalid value{shown} from {source}: {err['msg']}") from None
