"""Agent definitions (docs/subagents.md, "Defined agents"): Claude Code's format read as is,
untrusted files capped and refused with a reason, the model offered the list, `/agents`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from co_tui.agent.agent_defs import EXPLORE, MAX_FILE_BYTES, AgentDefError, load_agents, parse_agent
from co_tui.agent.delegate_tool import delegate_description
from co_tui.config import Settings
from co_tui.session.subagents import agents_listing

# As Claude Code writes them (.claude/agents/code-reviewer.md).
CLAUDE_AGENT = """---
name: code-reviewer
description: Expert code review specialist. Proactively reviews code for quality, security, and maintainability.
tools: Read, Grep, Glob, Bash, WebFetch
model: sonnet
---

You are a senior code reviewer ensuring high standards of code quality and security.
"""


def test_claude_codes_format_is_read_as_is() -> None:
    agent = parse_agent(CLAUDE_AGENT, "/p/code-reviewer.md")
    assert agent.name == "code-reviewer" and agent.description.startswith("Expert code review")
    assert agent.tools == ("read_file", "search_text", "list_dir", "run_shell")
    assert agent.ignored_tools == ("WebFetch",)
    assert agent.model == "sonnet" and agent.instructions.startswith("You are a senior code reviewer")
    assert not agent.read_only and agent.source == "/p/code-reviewer.md"


def test_a_definition_without_tools_inherits_and_inherit_means_the_main_model() -> None:
    agent = parse_agent("---\nname: helper\ndescription: d\nmodel: inherit\nbudget: 30000\n---\nDo it.", "x")
    assert agent.tools is None and agent.model is None and agent.budget_tokens == 30_000


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("no front matter", "no YAML front matter"),
        ("---\nname: x\n", "not closed"),
        ("---\nname: [unclosed\n---\nbody", "not valid YAML"),
        ("---\nname: ../etc\ndescription: d\n---\nbody", "name:"),
        ("---\nname: explore\ndescription: d\n---\nbody", "built in"),
        ("---\nname: a\n---\nbody", "description: required"),
        ("---\nname: a\ndescription: d\n---\n", "no instructions"),
        ("---\nname: a\ndescription: d\ntools: Read, Teleport\n---\nbody", "unknown tool 'Teleport'"),
        ("---\nname: a\ndescription: d\nbudget: 12\n---\nbody", "budget: between"),
        ("---\nname: a\ndescription: d\ntools: {x: 1}\n---\nbody", "tools:"),
        ("---\n!!python/object:os.system ls\n---\nbody", "not valid YAML"),  # safe_load builds no objects
    ],
)
def test_a_bad_definition_says_why_in_one_line(text: str, why: str) -> None:
    with pytest.raises(AgentDefError, match=why) as caught:
        parse_agent(text, "x.md")
    assert "\n" not in str(caught.value)


def test_files_are_capped_confined_and_refused_with_a_reason(tmp_path: Path) -> None:
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "good.md").write_text(CLAUDE_AGENT)
    (folder / "huge.md").write_text("---\nname: huge\ndescription: d\n---\n" + "x" * MAX_FILE_BYTES)
    (folder / "broken.md").write_text("---\nname: broken\n---\nbody")
    outside = tmp_path / "secret.md"
    outside.write_text(CLAUDE_AGENT.replace("code-reviewer", "leaked"))
    os.symlink(outside, folder / "link.md")
    (folder / "notes.txt").write_text("not a definition")
    catalog = load_agents([folder, tmp_path / "absent"])
    assert list(catalog.agents) == ["explore", "code-reviewer"]
    refused = {Path(r.path).name: r.reason for r in catalog.refused}
    assert set(refused) == {"huge.md", "broken.md", "link.md"}
    assert "over 64 KB" in refused["huge.md"] and "symlink" in refused["link.md"]
    assert "description" in refused["broken.md"]


def test_the_model_is_offered_every_agent_by_name_and_description(tmp_path: Path) -> None:
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "r.md").write_text(CLAUDE_AGENT)
    text = delegate_description(list(load_agents([folder]).agents.values()))
    assert f"- explore: {EXPLORE.description}" in text
    assert "- code-reviewer: Expert code review specialist." in text
    assert "needs no approval" in EXPLORE.description and "never changes anything" in EXPLORE.description


def test_agents_lists_where_each_came_from_and_the_refusals(
    tmp_path: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.claude/agents of the host's
    workspace = tmp_path / "ws"
    (workspace / ".co-tui" / "agents").mkdir(parents=True)
    (workspace / ".co-tui" / "agents" / "r.md").write_text(CLAUDE_AGENT)
    (workspace / ".co-tui" / "agents" / "bad.md").write_text("nothing")
    from co_tui.session.subagents import session_agents

    off = session_agents(Settings(), workspace)
    assert list(off.agents) == ["explore"]  # the workspace's are untrusted: read only when enabled
    lines = agents_listing(off, workspace, project=False)
    assert lines[0].startswith("explore (built-in) — read_file, list_dir, search_text, recall:")
    assert any(line.startswith("not read: ") and "agents_project_config" in line for line in lines)
    on = session_agents(Settings(agents_project_config=True), workspace)
    lines = agents_listing(on, workspace, project=True)
    assert any(
        line.startswith(f"code-reviewer ({workspace / '.co-tui' / 'agents' / 'r.md'} · model sonnet)") for line in lines
    )
    assert any(line.startswith("refused ") and "bad.md: no YAML front matter" in line for line in lines)
