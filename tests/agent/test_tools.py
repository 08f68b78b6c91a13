"""The workspace tools as the model sees them (through a real Agent), and the shell approval flow."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from pilot_helpers import poll_until
from support.processes import children, processes_in, running
from support.waits import finishes_within, until

from co_tui.agent.output_limit import cap_output
from co_tui.agent.shell import _Output, run_command, shell_outcome


async def test_refused_path_is_a_failed_result_and_the_run_goes_on(run_turn, offline_agent, workspace: Path) -> None:
    turn = await run_turn(offline_agent(), "read ../../../../etc/passwd")
    (result,) = turn.tool_results
    assert result.tool_name == "read_file"
    assert result.outcome == "failed"  # the provider's error channel, not a retry
    assert "outside the workspace" in result.content
    assert "root:" not in result.content
    assert "outside the workspace" in turn.output  # the model answered from the failure


async def test_symlink_escape_through_the_agent(run_turn, offline_agent, workspace: Path, outside: Path) -> None:
    (workspace / "notes.txt").symlink_to(outside / "secret.txt")
    turn = await run_turn(offline_agent(), "read notes.txt")
    (result,) = turn.tool_results
    assert result.outcome == "failed" and "symlink" in result.content
    assert "TOP SECRET" not in turn.output


async def test_repeated_refusals_do_not_exhaust_retries(run_turn, offline_agent) -> None:
    agent = offline_agent()
    history: list = []
    for _ in range(4):  # ModelRetry would fail the run after the tool's retry budget
        turn = await run_turn(agent, "read /etc/shadow", history)
        history = turn.messages
        assert turn.tool_results[0].outcome == "failed"


async def test_tool_set_without_and_with_shell(run_turn, offline_agent) -> None:
    no_shell = await run_turn(offline_agent(), "run ls")
    assert not no_shell.tool_results
    assert "run_shell tool is off" in no_shell.output
    assert "CO_TUI_ALLOW_SHELL" in no_shell.output


async def test_shell_runs_after_approval(run_turn, offline_agent, workspace: Path) -> None:
    asked: list[tuple[str, str, str | None]] = []

    async def approve(command: str, *, tool: str, tool_call_id: str | None = None, **_: object) -> bool:
        asked.append((command, tool, tool_call_id))
        return True

    turn = await run_turn(offline_agent(allow_shell=True, approver=approve), "run ls pkg && echo done")
    (result,) = turn.tool_results
    # The approval names the call it is about: a front end ties its question to the call's row.
    assert asked == [("ls pkg && echo done", "run_shell", result.tool_call_id)] and result.tool_call_id
    assert result.outcome == "success"
    assert result.content.splitlines() == ["$ ls pkg && echo done", "__init__.py", "core.py", "done", "[exit code 0]"]
    assert "exit code 0" in turn.output


async def test_shell_declined_is_not_run(run_turn, offline_agent, workspace: Path) -> None:
    async def decline(command: str, **_: object) -> bool:
        return False

    marker = workspace / "created.txt"
    turn = await run_turn(offline_agent(allow_shell=True, approver=decline), f"run touch {marker}")
    (result,) = turn.tool_results
    assert result.outcome == "denied"
    assert "The user declined to run" in result.content
    assert not marker.exists()
    assert "declined" in turn.output


async def test_shell_without_approver_refuses(run_turn, offline_agent, workspace: Path) -> None:
    marker = workspace / "created.txt"
    turn = await run_turn(offline_agent(allow_shell=True, approver=None), f"run touch {marker}")
    (result,) = turn.tool_results
    assert result.outcome == "denied" and "no one can approve" in result.content
    assert not marker.exists()


async def test_shell_approver_that_raises_counts_as_declined(run_turn, offline_agent, workspace: Path) -> None:
    async def broken(command: str, **_: object) -> bool:
        raise RuntimeError("dialog crashed")

    marker = workspace / "created.txt"
    turn = await run_turn(offline_agent(allow_shell=True, approver=broken), f"run touch {marker}")
    (result,) = turn.tool_results
    assert result.outcome == "denied" and "dialog crashed" in result.content
    assert not marker.exists()


async def test_shell_exit_code_and_cwd(workspace: Path) -> None:
    out = await run_command("pwd; exit 3", workspace)
    assert out.splitlines() == ["$ pwd; exit 3", str(workspace), "[exit code 3]"]
    assert shell_outcome(out) == "exit 3"


async def test_the_outcome_is_read_from_the_status_line_only(workspace: Path) -> None:
    """A success says nothing; an exit status the command printed itself is not its own."""
    assert shell_outcome(await run_command("echo done", workspace)) is None
    printed = await run_command(
        "echo '[exit code 9]'; echo '[interrupted by the user: the command was killed]'", workspace
    )
    assert printed.endswith("[exit code 0]") and shell_outcome(printed) is None
    assert shell_outcome("[exit code 9]\nand more") is None and shell_outcome("") is None


async def test_a_command_killed_by_a_signal_says_which(workspace: Path) -> None:
    out = await run_command("kill -9 $$", workspace)
    assert out.endswith("[exit code -9]") and shell_outcome(out) == "killed (signal 9)"


async def test_shell_timeout_kills_the_command(workspace: Path) -> None:
    # The scenario: a 3 s limit on a 60 s command; "after" missing shows it was killed, not waited for.
    # (3 s, not less: `echo before` must have run by then on a loaded host.)
    out = await run_command("echo before; sleep 60; echo after", workspace, timeout_s=3)
    assert out.splitlines()[1:] == ["before", "[timed out after 3 s: the command was killed]"]
    assert out.endswith("[timed out after 3 s: the command was killed]")
    assert shell_outcome(out) == "timed out"


async def test_a_cancel_while_the_command_starts_kills_its_whole_group_at_once(workspace: Path) -> None:
    """The cancel lands while the process is still being set up (the event loop busy until the
    command's first child runs, as when the TUI paints). asyncio's own clean-up there killed
    /bin/sh alone and then waited for the output pipe, which `sleep` held for its 30 s."""
    task = asyncio.create_task(run_command("touch started; sleep 30; echo done", workspace))
    await until(lambda: processes_in(workspace), "/bin/sh to start", every=0)
    poll_until(lambda: (workspace / "started").exists(), "the command's first child")  # blocks the loop: on purpose
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await finishes_within(task, 2.0, "the cancelled command")
    await until(lambda: not processes_in(workspace), "every process of the command to be killed")


async def test_stop_kills_the_group_and_keeps_the_output_so_far(workspace: Path) -> None:
    """A `!command` the user interrupts: the command and its children are killed, what it printed
    before is kept, and the status says who stopped it (a cancel would lose the output)."""
    stop = asyncio.Event()
    task = asyncio.create_task(run_command("echo before; sleep 30 & sleep 30; echo after", workspace, stop=stop))
    await until(lambda: len(processes_in(workspace)) >= 2, "the shell and its children to start")
    stop.set()
    out = await finishes_within(task, 10.0, "the stopped command")
    assert out.splitlines()[1:] == ["before", "[interrupted by the user: the command was killed]"]
    assert shell_outcome(out) == "stopped"
    await until(lambda: not processes_in(workspace), "every process of the command to be killed")


async def test_a_child_left_holding_the_output_does_not_hold_the_command(workspace: Path) -> None:
    """`sleep` keeps the output pipe open after /bin/sh exits: the command ended when the pipe
    closed, 30 s later. Now it ends shortly after the shell, the output so far kept, the child killed."""
    command = "echo hi; sleep 30 &"
    out = await finishes_within(asyncio.ensure_future(run_command(command, workspace)), 10.0, "the command")
    assert out.splitlines() == [f"$ {command}", "hi", "[exit code 0]"]
    await until(lambda: not processes_in(workspace), "the background child to be killed")


async def test_shell_output_memory_is_bounded(workspace: Path) -> None:
    out = await run_command("seq 1 300000", workspace, max_chars=2000)
    total = sum(len(f"{i}\n") for i in range(1, 300001))
    assert f"of {total:,} chars omitted — co-tui keeps at most 2,000 chars of one output]" in out
    assert out.splitlines()[-2] == "300000" and len(out) < 2200


async def test_shell_output_held_while_streaming_is_bounded_by_the_cap() -> None:
    # What streams between the head and the tail is counted, not held: 2 x the cap at most, however long.
    held = _Output(asyncio.get_running_loop(), keep=1000)
    for _ in range(5000):
        held.data_received(b"x" * 999 + b"\n")
    assert len(held.head) == len(held.tail) == 1000 and held.dropped == 5_000_000 - 2000


async def test_shell_output_is_capped(workspace: Path) -> None:
    out = await run_command("seq 1 20000", workspace, max_chars=5000)
    lines = out.splitlines()
    assert lines[1] == "1" and lines[-2] == "20000"  # head and tail both kept
    assert any(line.startswith("[capped:") and "chars omitted" in line for line in lines)
    assert len(out) < 5200


def test_cap_output_leaves_short_text_alone() -> None:
    assert cap_output("short", 100) == "short"
    capped = cap_output("a" * 3000 + "b" * 3000, 4000)
    assert capped.startswith("a" * 2000) and capped.endswith("b" * 2000)
    assert "[capped: 2,000 of 6,000 chars omitted — co-tui keeps at most 4,000 chars of one output]" in capped


async def test_a_shell_output_far_over_the_old_16k_cap_is_kept_whole(workspace: Path) -> None:
    # Governance previews a big output to the model and keeps it whole for recall: the tool keeps it all.
    out = await run_command("seq 1 40000", workspace)
    lines = out.splitlines()
    assert len(out) > 200_000 and "[capped" not in out
    assert lines[1:-1] == [str(i) for i in range(1, 40001)] and lines[-1] == "[exit code 0]"


@pytest.mark.parametrize("prompt", ["list docs", "search TODO in docs", "read README.md"])
async def test_tool_results_reach_the_model_uncapped_when_small(run_turn, offline_agent, prompt: str) -> None:
    turn = await run_turn(offline_agent(), prompt)
    (result,) = turn.tool_results
    assert result.outcome == "success"
    assert "[capped" not in result.content


# --- a catastrophic regex: bounded, interruptible, a failed result the model sees ------------------

EVIL_PATTERN = "(a+)+$"
EVIL_LINE = "a" * 40 + "!\n"  # `re` needs ~2**40 steps on this line


def _search_children() -> set[int]:
    """The live search child processes (co_tui.agent.search_process) this test process started."""
    return set(children(os.getpid())) & set(running(" -m co_tui.agent.search_process", anywhere=True))


async def test_catastrophic_regex_is_a_failed_result_after_the_deadline(
    run_turn, offline_agent, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "data.txt").write_text(EVIL_LINE)
    monkeypatch.setenv("CO_TUI_SEARCH_TIMEOUT_S", "0.5")
    turn = await run_turn(offline_agent(), f"search {EVIL_PATTERN} in .")
    (result,) = turn.tool_results
    assert result.tool_name == "search_text"
    assert result.outcome == "failed"
    assert "search stopped after 0.5 s" in result.content and "backtracking" in result.content
    assert "search stopped" in turn.output  # the model answered from the failure
    assert not _search_children()  # the child was killed, not left spinning


async def test_search_through_the_child_process_finds_and_refuses(run_turn, offline_agent, outside: Path) -> None:
    found = await run_turn(offline_agent(), "search TODO in docs")
    (result,) = found.tool_results
    assert result.outcome == "success"
    assert result.content.splitlines()[0] == "2 matches for 'TODO' in 1 file under docs"
    refused = await run_turn(offline_agent(), f"search TOP in {outside}")
    assert refused.tool_results[0].outcome == "failed"
    assert "outside the workspace" in refused.tool_results[0].content


async def test_cancelling_a_search_kills_its_child(workspace: Path) -> None:
    import asyncio

    from co_tui.agent.search_process import search_in_child

    (workspace / "data.txt").write_text(EVIL_LINE)
    task = asyncio.create_task(search_in_child(workspace, EVIL_PATTERN, ".", timeout_s=600))
    await until(_search_children, "the search's child process to start")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(lambda: not _search_children(), "the search's child to be killed (it would spin for minutes)")
