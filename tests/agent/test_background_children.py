"""Background children of a shell command are killed (issue 40, item 10): one that left the process
group (`setsid sleep 205 &`) and one that let go of the output (`sleep 104 >/dev/null 2>&1 &`)
outlived the command before. Real `/bin/sh`, real processes, found in `/proc` by their command line
(each test uses durations no other test does)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from support.processes import kill_running, running
from support.waits import until

from co_tui.agent.shell import run_command

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (the kill is Linux-only)")


@pytest.fixture(autouse=True)
def no_leftovers():
    """Whatever a failing run left behind is killed by pid after the test (never by name)."""
    yield
    kill_running("sleep 104.04", "sleep 205.04", "sleep 305.04")


async def test_a_child_that_let_go_of_the_output_is_killed_when_the_command_ends(tmp_path: Path) -> None:
    out = await run_command("sleep 104.0417 >/dev/null 2>&1 & echo x", tmp_path)
    assert out.splitlines()[1:] == ["x", "[exit code 0]"]
    await until(lambda: not running("sleep 104.0417"), "the background child to be killed", timeout=10)


async def test_a_child_that_left_the_group_is_killed_when_the_command_ends(tmp_path: Path) -> None:
    out = await run_command("setsid sleep 205.0417 >/dev/null 2>&1 & echo started", tmp_path)
    assert out.splitlines()[-1] == "[exit code 0]"
    await until(lambda: not running("sleep 205.0417"), "the background child to be killed", timeout=10)


async def test_an_interrupt_kills_the_command_and_its_setsid_child(tmp_path: Path) -> None:
    stop = asyncio.Event()
    task = asyncio.create_task(run_command("setsid sleep 205.0419 & sleep 305.0419", tmp_path, stop=stop))
    await until(lambda: running("sleep 205.0419") and running("sleep 305.0419"), "the command and its child to start")
    stop.set()
    out = await task
    assert out.splitlines()[-1] == "[interrupted by the user: the command was killed]"
    await until(
        lambda: not running("sleep 205.0419") and not running("sleep 305.0419"),
        "the command and its child to be killed",
        timeout=10,
    )


async def test_a_cancel_kills_the_command_and_its_setsid_child(tmp_path: Path) -> None:
    task = asyncio.create_task(run_command("setsid sleep 205.0421 & sleep 305.0421", tmp_path))
    await until(lambda: running("sleep 205.0421") and running("sleep 305.0421"), "the command and its child to start")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(
        lambda: not running("sleep 205.0421") and not running("sleep 305.0421"),
        "the command and its child to be killed",
        timeout=10,
    )


@pytest.mark.slow
async def test_a_run_alive_when_co_tui_exits_is_killed_then(tmp_path: Path) -> None:
    """Quitting or losing the terminal while a command (or a hook) still runs: the process exits,
    and the command's processes, a `setsid` child included, go with it (`atexit`)."""
    from cli_process import run_python

    code = """
import subprocess, sys, time
from pathlib import Path
from co_tui.agent.process_tree import new_run, run_env, started
run = new_run()
proc = subprocess.Popen(["sh", "-c", "setsid sleep 205.0423 >/dev/null 2>&1 & exec sleep 305.0423"],
                        env=run_env(run), start_new_session=True)
started(run, proc.pid)
def up(marker):
    return any(marker in p.joinpath("cmdline").read_bytes().decode(errors="replace").replace("\\0", " ")
               for p in Path("/proc").iterdir() if p.name.isdigit() and p.joinpath("cmdline").exists())
while not (up("sleep 205.0423") and up("sleep 305.0423")):  # a wait on both processes, not on time
    time.sleep(0.01)
sys.exit(0)
"""
    proc = await asyncio.to_thread(run_python, code)
    assert proc.returncode == 0, proc.stderr
    await until(
        lambda: not running("sleep 205.0423") and not running("sleep 305.0423"), "the run to be killed", timeout=10
    )
