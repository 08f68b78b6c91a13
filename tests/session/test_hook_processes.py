"""Hooks are bounded and kept apart (issue 40, item 9), with real processes: a hook that leaves a
background child holding its stdout (`setsid sleep 40 &`) held its run for 43.5 s against a 3 s
timeout; a cancelled hook's `setsid` child outlived it; a hook saw every API key of co-tui's."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest
from support.processes import kill_running, running
from support.waits import until

from co_tui.session.compact_hooks import run_hook

# What docs/configuration.md ("Hooks") says a hook's environment keeps.
ALLOWED = {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TMPDIR", "TZ", "CO_TUI_RUN"}

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.fixture(autouse=True)
def no_leftovers():
    """Whatever a failing run left behind is killed by pid after the test (never by name)."""
    yield
    kill_running("sleep 40.0517", "sleep 41.0517")


async def test_a_background_child_holding_stdout_does_not_hold_the_run(tmp_path: Path) -> None:
    """The hook answers and exits; its `setsid` child keeps stdout open for 40 s. The run ends with
    the hook's answer (it used to wait for the child, past the 5 s timeout, and report a timeout
    after 40 s), and the child is gone."""
    run = await run_hook("pre_compact", ["sh", "-c", "setsid sleep 40.0517 & echo keep the paths"], {}, 5)
    assert (run.status, run.stdout) == ("ok", "keep the paths")
    await until(lambda: not running("sleep 40.0517"), "the background child to be killed", timeout=10)


async def test_a_timed_out_hook_takes_its_setsid_child_with_it(tmp_path: Path) -> None:
    run = await run_hook("pre_compact", ["sh", "-c", "setsid sleep 40.0517 >/dev/null 2>&1 & sleep 41.0517"], {}, 0.5)
    assert run.status == "timeout" and run.line == "pre_compact hook timed out after 0.5s (killed)"
    await until(
        lambda: not running("sleep 40.0517") and not running("sleep 41.0517"),
        "the command and its child to be killed",
        timeout=10,
    )


async def test_a_cancelled_hook_takes_its_setsid_child_with_it(tmp_path: Path) -> None:
    task = asyncio.create_task(
        run_hook("pre_compact", ["sh", "-c", "setsid sleep 40.0517 >/dev/null 2>&1 & sleep 41.0517"], {}, 60)
    )
    await until(lambda: running("sleep 40.0517") and running("sleep 41.0517"), "the hook and its child to start")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(
        lambda: not running("sleep 40.0517") and not running("sleep 41.0517"),
        "the command and its child to be killed",
        timeout=10,
    )


@pytest.mark.slow
async def test_a_hook_gets_an_allow_listed_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak-0123456789")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-must-not-leak")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    dump = [sys.executable, "-c", "import json, os; print(json.dumps(dict(os.environ)))"]
    run = await run_hook("post_compact", dump, {}, 20)
    seen = json.loads(run.stdout)
    assert "OPENAI_API_KEY" not in seen and "ANTHROPIC_API_KEY" not in seen
    assert "must-not-leak" not in run.stdout
    assert seen["PATH"] == os.environ["PATH"] and seen["LC_ALL"] == "C.UTF-8"
    assert {k for k in seen if not k.startswith("LC_")} <= ALLOWED and "CO_TUI_RUN" in seen
