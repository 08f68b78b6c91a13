"""Running the user's compaction hooks (`[hooks]` in config.toml): a command (an argv list, no
shell) gets a JSON object on stdin and an allow-listed environment (no API keys); its stdout is
read up to a cap; past the timeout, on a cancel and when it ends, every process it started is
killed, background children that left its group included. Never raises: every outcome is a `HookRun`. docs/configuration.md, "Hooks"."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from co_tui.agent.process_tree import kill_run, kill_run_soon, new_run, run_env, started

if TYPE_CHECKING:
    from co_tui.governance.hook_port import CompactHooks, PreCompactResult

__all__ = ["HOOK_ENV_NAMES", "HookRun", "MAX_STDOUT_BYTES", "VETO_EXIT", "compact_hooks_of", "hook_env", "run_hook"]

MAX_STDOUT_BYTES = 8_000
VETO_EXIT = 2


@dataclass(frozen=True)
class HookRun:
    """One run: `ok` (exit 0), `veto` (exit 2), `failed` (another exit code), `timeout` or `missing`
    (could not be started). `stdout` is its capped output (ok/veto only); `line` the one line to show
    when it did not go well."""

    status: Literal["ok", "veto", "failed", "timeout", "missing"]
    stdout: str = ""
    line: str | None = None


# What a hook's environment keeps of co-tui's: no API keys, tokens or MCP credentials reach it.
HOOK_ENV_NAMES = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TMPDIR", "TZ")
HOOK_ENV_PREFIXES = ("LC_",)
DRAIN_S = 1.0  # after the hook exits, how long a background child may keep its stdout open


def hook_env(run: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a hook gets: the allow-listed variables of `environ` (this process's by
    default) and the run's tag (`process_tree.RUN_ENV`), nothing else."""
    source = os.environ if environ is None else environ
    kept = {k: v for k, v in source.items() if k in HOOK_ENV_NAMES or k.startswith(HOOK_ENV_PREFIXES)}
    return run_env(run, kept)


class _Head(asyncio.Protocol):
    """A pipe's first `MAX_STDOUT_BYTES` (the rest is read and dropped); `closed` at its end."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.data = bytearray()
        self.closed: asyncio.Future[None] = loop.create_future()

    def data_received(self, data: bytes) -> None:
        self.data.extend(data[: MAX_STDOUT_BYTES - len(self.data)])

    def eof_received(self) -> None:
        self.connection_lost(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


async def run_hook(name: str, argv: Sequence[str], payload: dict[str, Any], timeout_s: float) -> HookRun:
    """Run `argv` with `payload` as JSON on stdin, in its own session (process group), without a
    shell, with an allow-listed environment (`hook_env`). It has `timeout_s` in all, plus `DRAIN_S`
    for a background child still holding its stdout after it exited; when it ends, however it ends
    (a timeout, a cancel), every process it started is killed (`process_tree.kill_run`), those that
    left its group included: no hook outlives its run or keeps it waiting."""
    data = json.dumps(payload, default=str).encode()
    loop = asyncio.get_running_loop()
    run = new_run()
    # stdout is a pipe of our own, not asyncio's: `Process.wait()` would wait for every holder of
    # one it owns to let go, a background child included.
    read_fd, write_fd = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=write_fd,
            stderr=asyncio.subprocess.DEVNULL,
            env=hook_env(run),
            start_new_session=True,
        )
    except (OSError, ValueError) as exc:
        os.close(read_fd)
        kill_run(run, 0)
        return HookRun("missing", line=f"{name} hook not run: {getattr(exc, 'strerror', None) or exc}")
    except BaseException:  # cancelled while starting: asyncio kills the hook alone; its children too
        os.close(read_fd)
        kill_run(run, 0)
        raise
    finally:
        os.close(write_fd)
    started(run, proc.pid)
    assert proc.stdin is not None
    stdin = proc.stdin
    head = _Head(loop)
    pipe: asyncio.BaseTransport | None = None

    async def feed() -> None:
        try:
            stdin.write(data)
            await stdin.drain()
            stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass  # a hook that does not read its stdin

    feeding = loop.create_task(feed())
    try:
        pipe, _ = await loop.connect_read_pipe(lambda: head, os.fdopen(read_fd, "rb", buffering=0))
        try:
            await asyncio.wait_for(proc.wait(), timeout_s)
        except TimeoutError:
            return HookRun("timeout", line=f"{name} hook timed out after {timeout_s:g}s (killed)")
        # Its output to its end, but not for long: a background child may hold it.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(head.closed), timeout=DRAIN_S)
    finally:  # a timeout, a cancel (Esc on `/compact`, the app closing) or the end: nothing stays
        feeding.cancel()
        kill_run_soon(run, proc.pid)
        if pipe is not None:
            pipe.close()
        else:
            with contextlib.suppress(OSError):
                os.close(read_fd)
        if proc.returncode is None:
            with contextlib.suppress(Exception):
                stdin.close()
    text = bytes(head.data).decode("utf-8", errors="replace").strip()
    if proc.returncode == 0:
        return HookRun("ok", text)
    if proc.returncode == VETO_EXIT:
        return HookRun("veto", text)
    return HookRun("failed", line=f"{name} hook failed (exit {proc.returncode})")


def compact_hooks_of(settings: Any) -> CompactHooks | None:
    """The hooks `settings.hooks` configures (None: neither is set, nothing ever runs)."""
    config = settings.hooks
    if not config.pre_compact and not config.post_compact:
        return None
    from co_tui.governance.hook_port import CompactHooks, PreCompactResult  # hooks set: their port

    timeout = config.timeout_s

    async def pre(payload: dict[str, Any]) -> PreCompactResult:
        if not config.pre_compact:
            return PreCompactResult()
        run = await run_hook("pre_compact", config.pre_compact, {"hook": "pre_compact", **payload}, timeout)
        return PreCompactResult(
            instructions=run.stdout,
            veto=run.status == "veto",
            notice=f"{run.line}; the cut goes on" if run.line else None,
        )

    async def post(payload: dict[str, Any]) -> str | None:
        if not config.post_compact:
            return None
        run = await run_hook("post_compact", config.post_compact, {"hook": "post_compact", **payload}, timeout)
        return run.line

    return CompactHooks(pre=pre, post=post)
