"""Running the user's compaction hooks (`[hooks]` in config.toml): a command (an argv list, no
shell) gets a JSON object on stdin; its stdout is read up to a cap; past the timeout its process
group is killed. Never raises: every outcome is a `HookRun`. docs/configuration.md, "Hooks"."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from co_tui.governance.hook_port import CompactHooks, PreCompactResult

__all__ = ["HookRun", "MAX_STDOUT_BYTES", "VETO_EXIT", "compact_hooks_of", "run_hook"]

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


async def run_hook(name: str, argv: Sequence[str], payload: dict[str, Any], timeout_s: float) -> HookRun:
    """Run `argv` with `payload` as JSON on stdin, in its own session (process group), without a shell."""
    data = json.dumps(payload, default=str).encode()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
    except (OSError, ValueError) as exc:
        return HookRun("missing", line=f"{name} hook not run: {getattr(exc, 'strerror', None) or exc}")

    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    async def feed() -> None:
        try:
            stdin.write(data)
            await stdin.drain()
            stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass  # a hook that does not read its stdin

    async def collect() -> bytes:
        out = await stdout.read(MAX_STDOUT_BYTES)
        await _drain(stdout)
        return out

    async def talk() -> bytes:
        # Written and read at once, to EOF: a hook that writes before it reads (or writes more than
        # the cap) would otherwise block on a full pipe.
        out, _ = await asyncio.gather(collect(), feed())
        await proc.wait()
        return out

    try:
        out = await asyncio.wait_for(talk(), timeout_s)
    except TimeoutError:
        _kill_group(proc.pid)
        await asyncio.gather(_drain(stdout), proc.wait())  # read to EOF, or a paused pipe keeps it waiting
        return HookRun("timeout", line=f"{name} hook timed out after {timeout_s:g}s (killed)")
    except asyncio.CancelledError:  # Esc on `/compact`, or the app closing: the hook goes with it
        _kill_group(proc.pid)
        raise
    text = out.decode("utf-8", errors="replace").strip()
    if proc.returncode == 0:
        return HookRun("ok", text)
    if proc.returncode == VETO_EXIT:
        return HookRun("veto", text)
    return HookRun("failed", line=f"{name} hook failed (exit {proc.returncode})")


def _kill_group(pid: int) -> None:
    """Kill the hook's process group: its children too (it ran in its own session)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


async def _drain(stdout: asyncio.StreamReader) -> None:
    """Read what is left and drop it (only the first `MAX_STDOUT_BYTES` are used)."""
    while await stdout.read(65_536):
        pass


def compact_hooks_of(settings: Any) -> CompactHooks | None:
    """The hooks `settings.hooks` configures (None: neither is set, nothing ever runs)."""
    config = settings.hooks
    if not config.pre_compact and not config.post_compact:
        return None
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
