"""`search_text` run in a child process with a deadline, so a pathological pattern cannot freeze co-tui.

The pattern comes from the model, and so possibly from a prompt injection in a file it read. Python's
`re` backtracks: `(a+)+$` on a line of 40 `a`s and a `!` runs for minutes inside one C call that holds
the interpreter lock, so neither Esc, Ctrl+Q nor SIGINT would get through. Running the search in a
child process keeps the parent free: the child is killed when the deadline passes or when the tool
call is cancelled (Esc, Ctrl+C, quitting), and the model gets a failed tool result saying why.
The child also caps its own CPU time, so it dies even if its parent was SIGKILLed.

Run as `python -m co_tui.agent.search_process` with one JSON request on stdin:
`{"root": …, "pattern": …, "path": …}`; it writes one JSON object: `{"ok": text}` or `{"error": line}`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path

from co_tui.agent.workspace import Workspace, WorkspaceError

SEARCH_TIMEOUT_S = 10.0


async def search_in_child(root: Path, pattern: str, path: str = ".", *, timeout_s: float = SEARCH_TIMEOUT_S) -> str:
    """`Workspace(root).search_text(pattern, path)` in a child process, bounded by `timeout_s`.

    Returns the search output. Raises `WorkspaceError` (one line for the model) for a refused path,
    a search that outlived its deadline, or a child that failed. Cancelling the awaiting task kills
    the child before the cancellation propagates.
    """
    request = json.dumps({"root": str(root), "pattern": pattern, "path": path, "cpu_s": timeout_s + 2})
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "co_tui.agent.search_process",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(proc.communicate(request.encode("utf-8")), timeout_s)
    except TimeoutError:
        raise WorkspaceError(
            f"search stopped after {timeout_s:g} s: the pattern {pattern!r} is too slow on these files "
            "(probably catastrophic backtracking, e.g. nested quantifiers like (a+)+); "
            "use a simpler pattern or a narrower path"
        ) from None
    finally:
        if proc.returncode is None:  # timed out or cancelled (Esc, Ctrl+C, quit): asyncio's child watcher reaps it
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
    try:
        reply = json.loads(stdout.decode("utf-8"))
    except ValueError:
        last = (stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
        raise WorkspaceError(f"search failed (exit {proc.returncode}): {last}") from None
    if "error" in reply:
        raise WorkspaceError(str(reply["error"]))
    return str(reply["ok"])


def _main() -> int:
    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    try:
        import resource

        cpu = int(request.get("cpu_s", SEARCH_TIMEOUT_S + 2)) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))  # an orphan still dies
    except (ImportError, ValueError, OSError):
        pass
    try:
        reply = {"ok": Workspace(Path(request["root"])).search_text(request["pattern"], request["path"])}
    except WorkspaceError as exc:
        reply = {"error": str(exc)}
    sys.stdout.write(json.dumps(reply))
    return 0


if __name__ == "__main__":
    sys.exit(_main())
