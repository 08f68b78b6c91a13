"""The real `co-tui` command, or a Python snippet, in a subprocess, for every test folder
(`from cli_process import run_co_tui, run_python`): the same interpreter and package as the tests,
stdin closed (it would join -p's prompt), `env` on top of the test's environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A bound for a process that hangs, never met by one that works: a print-mode run took up to 160 s
# beside the suite's four workers, other suites and two CPU hogs on two cores (a 90 s bound failed).
PROCESS_TIMEOUT_S = 300.0


def _command(args: tuple[str, ...]) -> list[str]:
    return [sys.executable, "-m", "co_tui", *args]


def _env(env: dict[str, str] | None, *, inherit: bool = True) -> dict[str, str]:
    return {**(os.environ if inherit else {}), "PYTHONPATH": str(ROOT), **(env or {})}


def run_co_tui(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, timeout: float = PROCESS_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """Run `co-tui args…` to its end; its output captured as text."""
    return subprocess.run(
        _command(args),
        cwd=cwd,
        capture_output=True,
        text=True,
        env=_env(env),
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def run_python(
    code: str,
    *args: str,
    cwd: Path = ROOT,
    env: dict[str, str] | None = None,
    inherit_env: bool = True,
    timeout: float = PROCESS_TIMEOUT_S,
) -> subprocess.CompletedProcess[str]:
    """Run `python -c code args…` (a fresh interpreter: what a module import loads, a second process)
    to its end; its output captured as text. `inherit_env=False`: `env` alone (plus PYTHONPATH)."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=_env(env, inherit=inherit_env),
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def start_co_tui(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start `co-tui args…` and return at once; its stdout and stderr are text pipes to read."""
    return subprocess.Popen(
        _command(args),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=_env(env),
    )
