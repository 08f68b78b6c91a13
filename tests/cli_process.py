"""The real `co-tui` command, or a Python snippet, in a subprocess, for every test folder
(`from cli_process import run_co_tui, run_python`): the same interpreter and package as the tests,
stdin closed (it would join -p's prompt), `env` on top of the test's environment. `call_co_tui` runs
the same command in the test's own process, for tests where the process is not the point.

A co-tui process costs ~1 s of CPU before it answers (a fresh interpreter importing pydantic-ai):
a test about what co-tui prints, exits with or saves calls it in-process (`call_co_tui`); a test
about the process itself (its start-up and imports, signals, a closed pipe, a real terminal, two
processes on one session) starts it (docs/performance.md, "The test suite")."""

from __future__ import annotations

import contextlib
import gc
import io
import os
import subprocess
import sys
from collections.abc import Iterator
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


def call_co_tui(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, stdin: bytes = b""
) -> subprocess.CompletedProcess[str]:
    """`co-tui args…` called in this process: the `co-tui` script's entry (`co_tui.cli.main`, as
    `python -m co_tui` runs it) with `cwd` as the working directory, `env` on top of the test's
    environment (both restored after), `stdin` as standard input (empty: as `run_co_tui`'s closed
    stdin) and standard output and error captured as a process's are (UTF-8; what stdout cannot
    encode fails as it would on a pipe) and read back as `run_co_tui` reads them (text, universal
    newlines). The result is `run_co_tui`'s: the exit status (argparse's exit included) and both
    outputs. An exception co-tui lets out is raised here (a process would print its traceback and
    exit 1). Only from a test that is not itself async (print mode runs its own event loop)."""
    from co_tui.cli import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    with working_dir(cwd), environment(env or {}), _standard_streams(stdin, out, err):
        try:
            code: object = main(list(args))
        except SystemExit as exc:  # argparse: --help, --version, a usage error
            code = exc.code
        finally:
            gc.collect()  # what the run left that a process exit would close is closed
    if code is None:
        code = 0
    elif not isinstance(code, int):  # SystemExit("message"): the message on stderr, status 1
        err.write(f"{code}\n")
        code = 1
    return subprocess.CompletedProcess(["co-tui", *args], code, _text(out), _text(err))


def _text(stream: io.TextIOWrapper) -> str:
    """What was written to `stream`, as `subprocess.run(text=True)` reads a pipe."""
    stream.flush()
    data = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


@contextlib.contextmanager
def working_dir(path: Path) -> Iterator[None]:
    """`path` as the process's working directory for the block (as `cwd=` gives a process)."""
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


@contextlib.contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    """`env` on top of the environment for the block (as `env=` gives a process), then as it was."""
    before = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def _standard_streams(stdin: bytes, out: io.TextIOWrapper, err: io.TextIOWrapper) -> Iterator[None]:
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
