"""MCP settings and `.mcp.json`: bad values are one line naming the setting or the file, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_process import call_co_tui

from co_tui.agent.mcp_config import load_mcp_servers
from co_tui.config import SettingsError, load_settings
from mcp_servers.conftest import demo_entry


def write_config(text: str) -> Path:
    path = Path(os.environ["CO_TUI_CONFIG_FILE"])
    path.write_text(text, encoding="utf-8")
    return path


def co_tui(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`co-tui args…` in `cwd`, called in this process (what it says and exits with is the point)."""
    return call_co_tui(*args, cwd=cwd)


def test_servers_and_approvals_are_read_from_config_toml() -> None:
    write_config(
        'mcp_approve = ["files"]\n\n[mcp_servers.docs]\nurl = "https://example.test/mcp"\nheaders = { Authorization = "Bearer x" }\n\n'
        '[mcp_servers.files]\ncommand = "npx"\nargs = ["-y", "files-server"]\nenv = { ROOT = "/tmp" }\n'
    )
    s = load_settings()
    assert s.mcp_servers["docs"].url == "https://example.test/mcp"
    assert s.mcp_servers["files"].args == ["-y", "files-server"] and s.mcp_servers["files"].env == {"ROOT": "/tmp"}
    assert s.mcp_approve == ["files"] and s.mcp_project_config is False


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('[mcp_servers.x]\nargs = ["a"]\n', "setting mcp_servers.x: .*needs either `command`"),
        ('[mcp_servers.x]\ncommand = "a"\nurl = "http://h"\n', "setting mcp_servers.x: .*not both"),
        ('[mcp_servers.x]\nurl = "ftp://h"\n', "setting mcp_servers.x: .*http:// or https://"),
        ('[mcp_servers.x]\ncommand = "a"\nport = 3\n', "unknown setting 'mcp_servers.x.port'"),
        ('[mcp_servers."a b"]\ncommand = "a"\n', "setting mcp_servers: .*server name 'a b'"),
        ('mcp_approve = "files"\n', "setting mcp_approve: invalid value 'files' from config file"),
        ('mcp_project_config = "maybe"\n', "setting mcp_project_config: invalid value 'maybe' from config file"),
    ],
)
def test_a_bad_mcp_setting_is_one_line_naming_it(toml: str, expected: str) -> None:
    path = write_config(toml)
    with pytest.raises(SettingsError, match=expected) as info:
        load_settings()
    assert len(str(info.value).splitlines()) == 1
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            '{"x": {"command": "a", "port": 3}}',
            "environment variable CO_TUI_MCP_SERVERS: unknown setting 'mcp_servers.x.port'",
        ),
        ('{"x": {"args": ["a"]}}', "setting mcp_servers.x: invalid value from environment variable CO_TUI_MCP_SERVERS"),
        ('{"x": ', "environment variable CO_TUI_MCP_SERVERS: not valid JSON"),
    ],
)
def test_a_bad_mcp_servers_variable_is_blamed_not_the_config_file(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: str
) -> None:
    write_config('model = "offline"\n')
    monkeypatch.setenv("CO_TUI_MCP_SERVERS", value)
    with pytest.raises(SettingsError) as info:
        load_settings()
    message = str(info.value)
    assert message.startswith(expected) or expected in message, message
    assert "config file" not in message and len(message.splitlines()) == 1


def test_servers_from_the_variable_say_where_they_came_from(monkeypatch: pytest.MonkeyPatch, workspace: Path) -> None:
    monkeypatch.setenv("CO_TUI_MCP_SERVERS", json.dumps({"demo": demo_entry()}))
    [server] = load_mcp_servers(load_settings(), workspace).servers
    assert server.source == "environment variable CO_TUI_MCP_SERVERS"


def test_the_project_file_is_read_only_when_allowed(workspace: Path) -> None:
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": demo_entry()}}))
    assert not load_mcp_servers(load_settings(), workspace)
    servers = load_mcp_servers(load_settings(mcp_project_config=True), workspace)
    assert [s.name for s in servers.servers] == ["proj"] and servers.config_error is None
    assert servers.servers[0].source == str(workspace / ".mcp.json")


@pytest.mark.parametrize(
    "text",
    ['{"mcpServers": {"x": {"command": "a",}}}', '{"mcpServers": {"x": {"args": ["a"]}}}', '{"servers": {}}', "[]"],
)
def test_a_malformed_project_file_is_one_line_naming_it(workspace: Path, text: str) -> None:
    (workspace / ".mcp.json").write_text(text)
    write_config('[mcp_servers.demo]\ncommand = "true"\n')
    servers = load_mcp_servers(load_settings(mcp_project_config=True), workspace)
    assert servers.config_error is not None
    assert servers.config_error.startswith(f"{workspace / '.mcp.json'}: ")
    assert len(servers.config_error.splitlines()) == 1
    assert [s.name for s in servers.servers] == ["demo"]  # config.toml's servers still load


def test_print_mode_exits_2_on_a_malformed_project_file(workspace: Path) -> None:
    (workspace / ".mcp.json").write_text('{"mcpServers": ')
    write_config("mcp_project_config = true\n")
    proc = co_tui("-p", "hello", cwd=workspace)
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"co-tui: {workspace / '.mcp.json'}: ") and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_print_mode_exits_2_on_a_bad_mcp_setting(workspace: Path) -> None:
    write_config('[mcp_servers.x]\nurl = "nope"\n')
    proc = co_tui("-p", "hello", cwd=workspace)
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert "setting mcp_servers.x:" in line


@pytest.mark.slow  # co-tui starts the demo MCP server, a Python process, for each run
@pytest.mark.parametrize("yes", [False, True])
def test_a_destructive_tool_needs_yes_in_print_mode(workspace: Path, yes: bool) -> None:
    entry = demo_entry()
    write_config(f"[mcp_servers.demo]\ncommand = {json.dumps(entry['command'])}\nargs = {json.dumps(entry['args'])}\n")
    flags = ["--yes"] if yes else []
    proc = co_tui(*flags, "-p", "use demo_wipe path=notes.txt", "--output-format", "jsonl", cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    [result] = [e for e in events if e["type"] == "tool_result"]
    if yes:
        assert result["content"] == "wiped notes.txt"
        assert "refused" not in proc.stderr
    else:
        # Nobody was asked: the model is told print mode could not ask, not that a user declined.
        assert "print mode cannot ask for approval" in result["content"] and "declined" not in result["content"]
        assert "co-tui: demo_wipe refused" in proc.stderr and "pass --yes" in proc.stderr
    # A tool the server does not mark destructive never asks.
    proc = co_tui("-p", "use demo_echo text=hi", "--output-format", "jsonl", cwd=workspace)
    assert "refused" not in proc.stderr
    assert any(json.loads(line).get("content") == "echo: hi" for line in proc.stdout.splitlines())


def test_a_project_server_name_a_terminal_could_act_on_is_sanitised(workspace: Path) -> None:
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"x\u001b]0;pwned\u0007y": demo_entry()}}))
    servers = load_mcp_servers(load_settings(mcp_project_config=True), workspace)
    [server] = servers.servers
    assert server.name == "x__0_pwned_y" and servers.config_error is None
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"a\nb": {"args": ["no command"]}}}))
    error = load_mcp_servers(load_settings(mcp_project_config=True), workspace).config_error
    assert error is not None and "'a\\nb'" in error and "\n" not in error
