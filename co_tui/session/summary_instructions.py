"""The user's summary instructions from files: `COMPACT.md` beside the config file, and the
workspace's `COMPACT.md` only when `compact_project_file` allows it (a repository is untrusted
input, as with `.mcp.json`). Read with the project-instructions reader (regular files only, the
workspace's confined to it, capped), joined after the `summary_instructions` setting
(docs/configuration.md, "Summary instructions")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from co_tui.config import Settings
    from co_tui.governance.policy_settings import GovernancePolicy

__all__ = ["COMPACT_FILE", "with_summary_files"]

COMPACT_FILE = "COMPACT.md"
MAX_CHARS = 8_000


def with_summary_files(
    policy: GovernancePolicy, settings: Settings, workspace: Path
) -> tuple[GovernancePolicy, list[str]]:
    """`policy` with the COMPACT.md files' text added to its summary instructions (and named in
    `summary_instructions_from`), and one line for each file that exists but could not be used."""
    from co_tui.agent.project_instructions import default_global_dir, read_instructions

    candidates: list[tuple[Path, Path | None]] = [(default_global_dir() / COMPACT_FILE, None)]
    if settings.compact_project_file:
        candidates.append((workspace / COMPACT_FILE, workspace))
    texts, names, errors = [policy.summary_instructions.strip()], list(policy.summary_instructions_from), []
    for path, confine in candidates:
        if not path.exists():
            continue
        file = read_instructions(path, "project" if confine else "global", max_chars=MAX_CHARS, workspace=confine)
        if file.error:
            errors.append(f"summary instructions not used: {file.error}")
        elif file.text.strip():
            texts.append(file.text.strip())
            names.append(file.label if confine is None else f"the workspace's {COMPACT_FILE}")
    text = "\n\n".join(t for t in texts if t)
    return replace(policy, summary_instructions=text, summary_instructions_from=tuple(names)), errors
