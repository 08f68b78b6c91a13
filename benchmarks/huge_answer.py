"""A huge streamed answer in the TUI (not a test): how long Esc takes to stop it, and the whole
stream's time and memory when it is left to run (issue 40, item 7: at 10 MB, Esc took 29 s).

The real app under Textual's pilot at 100×30, the real ChatSession, the real OpenAI client over HTTP
to the loopback server of tests/providers, streaming an answer of S MB in 2,000-character deltas
(plain paragraphs, the shape that segments the Markdown). For each size:

- `Esc → idle`: with no cap (`max_answer_chars = 0`, the worst case), Esc is pressed once 1 MB (or
  half the answer) has reached the chat; the time runs from the key until the turn has ended and
  the app is idle again;
- `whole stream`: no Esc, the default cap; the time until the turn has ended, how much text reached
  the chat (the cap stops the stream) and the process's peak RSS.

The server runs in a process of its own. Run: `.venv/bin/python benchmarks/huge_answer.py [--mb 1
10] [--esc-only]`. The host is shared: the load average is printed (figures move with it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

DELTA = 2_000
PARAGRAPH = ("The model keeps talking about the context and the files it read. " * 6).strip() + "\n\n"


SERVER = """
import sys
sys.path.insert(0, {tests!r})
from providers.loopback import LoopbackServer, Reply
text = {text_expr}
server = LoopbackServer().start()
server.script(Reply(text=text, chunks=max(1, len(text) // {delta})))
print(server.openai_base_url, flush=True)
sys.stdin.read()
server.stop()
"""


def serve(mb: float) -> tuple[subprocess.Popen[str], str]:
    """The loopback server in a process of its own (in this one, its thread would compete with the
    app for the interpreter lock, as no real provider does); returns it and its base URL."""
    code = SERVER.format(
        tests=str(ROOT / "tests"),
        text_expr=f"({PARAGRAPH!r} * ({int(mb * 1_000_000) // len(PARAGRAPH) + 1}))[: {int(mb * 1_000_000)}]",
        delta=DELTA,
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


async def one(mb: float, cap: int, *, esc: bool) -> tuple[float, int]:
    """(seconds, characters that reached the chat) for one run."""
    from pilot_helpers import wait_until
    from quiet_app import QuietApp
    from textual import events

    from co_tui.config import Settings

    server, url = serve(mb)
    os.environ.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
    settings: dict[str, Any] = {"model": "openai-chat:gpt-4o", "request_timeout_s": 600.0, "max_retries": 0}
    if cap >= 0:  # -1: the default
        settings["max_answer_chars"] = cap
    app = QuietApp(Settings(**settings), Path(tempfile.mkdtemp()))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.session is not None, "the session", timeout=600)
            _count_text(app)
            app.chat.prompt.load_text("talk")
            started = time.monotonic()
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.busy, "the turn to start", timeout=600)
            if esc:
                at = min(1_000_000, int(mb * 500_000))  # 1 MB in, or half the answer
                await wait_until(pilot, lambda: _received(app) >= at or not app.busy, "the answer", timeout=600)
                started = time.monotonic()
                # As the terminal's driver hands a key over (`pilot.press` waits for the app to idle).
                app.post_message(events.Key("escape", None))
            await wait_until(pilot, lambda: not app.busy, "the turn to end", timeout=900)
            took = time.monotonic() - started
            return took, _received(app)
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait()


def _received(app: Any) -> int:
    """Characters of answer text the chat has been handed so far (`_count_text` adds them up)."""
    return getattr(app, "_bench_chars", 0)


def _count_text(app: Any) -> None:
    """Count the text deltas the chat screen is given (the widgets of a long answer are pruned)."""
    show = app.chat.show_event

    async def counted(event: Any) -> None:
        if getattr(event, "type", "") == "text_delta":
            app._bench_chars = _received(app) + len(event.text)
        await show(event)

    app.chat.show_event = counted


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument(
        "--esc-only", action="store_true", help="only the Esc run (the whole stream takes minutes uncapped)"
    )
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; deltas of {DELTA:,} chars")
    print(f"{'size':>8}  {'Esc → idle':>11}  {'whole stream':>13}  {'chars shown':>12}  {'peak RSS':>9}")
    for mb in args.mb:
        esc_s, _ = asyncio.run(one(mb, 0, esc=True))
        whole_s, shown = (float("nan"), 0) if args.esc_only else asyncio.run(one(mb, -1, esc=False))
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{mb:>6.1f}MB  {esc_s:>10.2f}s  {whole_s:>12.2f}s  {shown:>12,}  {rss:>7.0f}MB")


if __name__ == "__main__":
    main()
