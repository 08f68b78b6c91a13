"""TUI benchmark (not a test): first paint, resume of a long session, streaming with typing.

Every figure comes from real processes on a pseudo-terminal of fixed size (COLS x ROWS): the
script forks the program onto a pty, reads everything it writes, and takes the moment a marker
text first appears in that output as the moment it was painted. Printed side by side with targets:

a. time to first paint of `co-tui` (the prompt's placeholder is on screen) versus a bare Textual
   app (Header, three Statics, an Input) started the same way; interleaved runs, medians, ratio
   (target <= 1.5x: co-tui paints before pydantic-ai loads). Also when the model is ready (the
   OFFLINE badge), which is after pydantic-ai loaded.
b. `co-tui --resume ID` of a 1,000-turn session built with the real SessionStore (tool outputs
   from the shared corpus and large generated ones, the context governed by the real zero-LLM
   policy at the offline model's budget, one ledger entry per cut): time until the conversation
   is on screen (the "Resumed" notice) (target <= 1 s), and VmRSS / VmHWM from /proc at that
   moment (target <= 250 MB).
c. streaming 20,000 tokens at 1,000 tokens/s: the real CoTuiApp and ChatSession, with a
   FunctionModel whose stream yields one token per event on a fixed schedule. While it streams, the
   script types a letter into the prompt every 0.3 s and times key -> letter painted on the
   terminal (target <= 50 ms), then erases it. Every tenth token is a numbered word (`w120`), so
   the script also sees which token is on screen: tokens produced minus tokens painted ("backlog")
   early versus late in the stream (target: not growing).

Run: `.venv/bin/python benchmarks/tui.py` (a few minutes; `--runs N` for part a).
The host is shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CO_TUI = Path(sys.executable).with_name("co-tui")
COLS, ROWS = 120, 36

PROMPT_MARKER = b"Ask anything"  # both apps' prompt placeholder: the first frame with the prompt
READY_MARKER = b" OFFLINE "  # co-tui's title-bar badge, shown once the session (and pydantic-ai) loaded
RESUMED_MARKER = "Resumed “".encode()  # the notice after the saved conversation is mounted

RESUME_TURNS = 1000
STREAM_TOKENS = 20_000
STREAM_RATE = 1000.0  # tokens per second
MARKER_EVERY = 10  # every tenth token is a numbered word the script can read back off the screen
KEY_INTERVAL_S = 0.3
KEYS = "αβγδεζηθικλμνξοπρστυφχψω"  # never in the streamed text nor in the app's chrome
STREAM_LOG_ENV = "CO_TUI_BENCH_STREAM_LOG"
WORDS = ("the", "model", "reads", "a", "file", "and", "then", "keeps", "context", "small")

TARGETS = {"paint_ratio": 1.5, "resume_s": 1.0, "resume_rss_mb": 250.0, "key_ms": 50.0}


# --- a program on a pseudo-terminal ------------------------------------------------------------


class Terminal:
    """A child process on a COLS x ROWS pty. `started` is `time.monotonic()` just before the fork."""

    def __init__(self, argv: list[str], *, env: dict[str, str], cwd: Path) -> None:
        self.started = time.monotonic()
        pid, fd = pty.fork()
        if pid == 0:  # the child: size the terminal before the program can ask for it
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
                os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.eof = False

    def read(self, timeout: float) -> bytes:
        """What the program wrote within `timeout` seconds (b"" if nothing; sets `eof` at exit)."""
        if self.eof:
            return b""
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not ready:
            return b""
        try:
            data = os.read(self.fd, 1 << 16)
        except OSError:  # EIO: the program closed the terminal
            data = b""
        if not data:
            self.eof = True
        return data

    def wait_for(self, marker: bytes, timeout: float) -> float | None:
        """Seconds since start when `marker` first appears in the output; None after `timeout`."""
        deadline = time.monotonic() + timeout
        tail = b""
        while time.monotonic() < deadline and not self.eof:
            chunk = self.read(deadline - time.monotonic())
            now = time.monotonic()
            if marker in tail + chunk:
                return now - self.started
            tail = (tail + chunk)[-len(marker):]
        return None

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    def memory_mb(self) -> tuple[float, float]:
        """(VmRSS, VmHWM) of the program in MB, from /proc/<pid>/status."""
        fields = {}
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
        return fields["VmRSS"], fields["VmHWM"]

    def close(self) -> int:
        """Quit with ctrl+q (the app's binding); kill it if it is still there after 5 s."""
        try:
            self.send(b"\x11")
        except OSError:
            pass
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not self.eof:
            self.read(0.05)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            os.kill(self.pid, sig)
            time.sleep(0.5)
        else:
            _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


class Sandbox:
    """A temp workspace, data dir and config file, and the environment every program runs in."""

    def __init__(self, base: Path) -> None:
        self.workspace = base / "workspace"
        self.workspace.mkdir()
        (self.workspace / "README.md").write_text("# Bench\n\nA workspace for the TUI benchmark.\n")
        self.data_dir = base / "data"
        env = {k: v for k, v in os.environ.items()
               if not (k.startswith("CO_TUI_") or k.endswith("_API_KEY") or k.startswith("TMUX"))}
        env.update(TERM="xterm-256color", COLORTERM="truecolor", LANG="C.UTF-8", LC_ALL="C.UTF-8",
                   CO_TUI_DATA_DIR=str(self.data_dir), CO_TUI_CONFIG_FILE=str(base / "config.toml"))
        self.env = env

    def start(self, argv: list[str], **extra_env: str) -> Terminal:
        return Terminal(argv, env={**self.env, **extra_env}, cwd=self.workspace)


def _self(*args: str) -> list[str]:
    """argv that runs this script in one of its child modes."""
    return [sys.executable, str(Path(__file__).resolve()), *args]


# --- a. first paint -------------------------------------------------------------------------------


def first_paint(box: Sandbox, runs: int) -> dict[str, list[float]]:
    """Interleaved runs of co-tui and the bare app (alternating who goes first); one warm-up each."""
    times: dict[str, list[float]] = {"co-tui": [], "bare": [], "ready": []}
    for round_ in range(runs + 1):
        order = ("co-tui", "bare") if round_ % 2 else ("bare", "co-tui")
        for which in order:
            term = box.start([str(CO_TUI)] if which == "co-tui" else _self("--child", "bare"))
            painted = term.wait_for(PROMPT_MARKER, 30)
            ready = term.wait_for(READY_MARKER, 30) if which == "co-tui" else None
            term.close()
            if painted is None or (which == "co-tui" and ready is None):
                raise SystemExit(f"{which} did not paint within 30 s")
            if round_:  # round 0 warms the page cache and bytecode
                times[which].append(painted)
                if ready is not None:
                    times["ready"].append(ready)
    return times


def run_bare_app() -> None:
    """The baseline: a plain Textual app of about the same shape as the chat screen."""
    from textual.app import App, ComposeResult
    from textual.widgets import Header, Input, Static

    class Bare(App[None]):
        BINDINGS = [("ctrl+q", "quit", "Quit")]

        def compose(self) -> ComposeResult:
            yield Header()
            yield Static("A bare Textual app", id="one")
            yield Static("with a few Static widgets", id="two")
            yield Static("and an Input", id="three")
            yield Input(placeholder="Ask anything")

    Bare().run()


# --- b. resume of a long session ------------------------------------------------------------------


def build_long_session(box: Sandbox, turns: int) -> str:
    """A `turns`-turn session saved turn by turn as ChatSession saves it; returns its id."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from sessions import build_turn, corpus_outputs, generated_outputs  # the store benchmark's turns

    from co_tui.config import load_settings
    from co_tui.governance.trim import fit_to_budget
    from co_tui.session.chat import ChatSession
    from co_tui.session.store import SessionStore

    os.environ.update(CO_TUI_DATA_DIR=box.env["CO_TUI_DATA_DIR"], CO_TUI_CONFIG_FILE=box.env["CO_TUI_CONFIG_FILE"])
    settings = load_settings()
    budget = ChatSession(settings, workspace=box.workspace).policy.budget_tokens  # the offline model's
    outputs = corpus_outputs() + generated_outputs()
    store = SessionStore.open(box.data_dir)
    sid = store.create_session(model="offline", workspace=box.workspace, title="A long refactoring session")
    context: list = []
    for i in range(1, turns + 1):
        turn = build_turn(i, outputs)
        fitted = fit_to_budget(context + turn, budget, tool_output_trim_chars=settings.tool_output_trim_chars)
        context = list(fitted.messages)
        store.save_turn(sid, new_transcript=turn, context=context, new_events=fitted.events)
    meta = store.list_sessions()[0]
    store.close()
    return f"{sid}:{meta.messages}"


def resume(box: Sandbox, session_id: str, runs: int) -> dict[str, list[float]]:
    """`co-tui --resume ID`: first frame, conversation on screen, memory at that moment."""
    figures: dict[str, list[float]] = {"frame": [], "visible": [], "rss": [], "hwm": []}
    for round_ in range(runs + 1):
        term = box.start([str(CO_TUI), "--resume", session_id])
        frame = term.wait_for(PROMPT_MARKER, 30)
        visible = term.wait_for(RESUMED_MARKER, 60)
        rss, hwm = term.memory_mb() if visible is not None else (0.0, 0.0)
        term.close()
        if frame is None or visible is None:
            raise SystemExit("the resumed session did not show within 60 s")
        if round_:
            for key, value in zip(figures, (frame, visible, rss, hwm)):
                figures[key].append(value)
    return figures


# --- c. streaming with typing -------------------------------------------------------------------


def token_text(i: int) -> str:
    """Token `i` of the streamed answer: short words in paragraphs, every tenth one numbered."""
    word = f"w{i}" if i % MARKER_EVERY == 0 else WORDS[i % len(WORDS)]
    if i and i % 600 == 0:
        return f"\n\n## Part {i // 600}\n\n{word}"
    if i and i % 60 == 0:
        return f"\n\n{word}"
    return f" {word}" if i else word


def run_stream_app() -> None:
    """The real CoTuiApp and ChatSession; the model streams STREAM_TOKENS at STREAM_RATE."""
    import asyncio

    from pydantic_ai.models.function import FunctionModel

    from co_tui.config import load_settings
    from co_tui.session.chat import ChatSession
    from co_tui.tui.app import CoTuiApp

    log_path = Path(os.environ[STREAM_LOG_ENV])

    async def stream(messages, info):  # noqa: ANN001, ANN202 - FunctionModel's stream_function
        produced: list[tuple[float, int]] = []
        start = time.monotonic()
        try:
            for i in range(STREAM_TOKENS):
                delay = start + i / STREAM_RATE - time.monotonic()
                if delay > 0:  # like a socket read: waits only until the token is due; when the app
                    await asyncio.sleep(delay)  # is behind, due tokens are already buffered
                if i % MARKER_EVERY == 0:
                    produced.append((time.monotonic(), i))
                yield token_text(i)
            produced.append((time.monotonic(), STREAM_TOKENS))
        finally:  # also when the benchmark quits the app mid-stream
            log_path.write_text(json.dumps(produced))

    def factory(settings, workspace, **kw):  # noqa: ANN001, ANN003, ANN202 - open_session's shape
        model = FunctionModel(stream_function=stream, model_name="bench-stream")
        return ChatSession(settings, workspace=workspace, model=model, approver=kw.get("approver"))

    CoTuiApp(load_settings(), Path.cwd(), session_factory=factory).run()


def streaming(box: Sandbox) -> dict[str, object]:
    """Type during the stream; track the newest numbered token on screen."""
    log_path = box.data_dir.parent / "stream-log.json"
    term = box.start(_self("--child", "stream"), **{STREAM_LOG_ENV: str(log_path)})
    if term.wait_for(b"bench-stream", 30) is None:  # the title bar names the model once it is ready
        raise SystemExit("the streaming app did not start")
    term.send(b"write a long answer\r")
    marker = re.compile(rb"w(\d+)")
    painted: list[tuple[float, int]] = []  # (time, newest numbered token seen on screen)
    latencies: list[float] = []
    misses = 0
    pending: tuple[bytes, float] | None = None  # (letter, when typed)
    next_key = time.monotonic() + 1.0
    last = (STREAM_TOKENS - 1) // MARKER_EVERY * MARKER_EVERY  # the last numbered token
    tail, newest, presses = b"", -1, 0
    deadline = time.monotonic() + STREAM_TOKENS / STREAM_RATE + 60
    while time.monotonic() < deadline and not term.eof:
        chunk = term.read(0.005)
        now = time.monotonic()
        data = tail + chunk
        tail = data[-16:]
        if chunk:
            seen = [int(m) for m in marker.findall(data)]
            if seen and max(seen) > newest:
                newest = max(seen)
                painted.append((now, newest))
        if pending is not None:
            letter, typed = pending
            if letter in data:
                latencies.append(now - typed)
                term.send(b"\x7f")  # erase it again: the prompt stays one line
                pending = None
            elif now - typed > 2.0:
                misses += 1
                pending = None
        if newest >= last:
            break
        if pending is None and newest >= 0 and now >= next_key:
            letter = KEYS[presses % len(KEYS)].encode()
            presses += 1
            pending = (letter, time.monotonic())
            term.send(letter)
            next_key = pending[1] + KEY_INTERVAL_S
    finished = time.monotonic()
    term.close()
    produced = [tuple(p) for p in json.loads(log_path.read_text())] if log_path.exists() else []
    return {"painted": painted, "produced": produced, "latencies": latencies, "misses": misses,
            "finished": finished, "complete": newest >= last}


def backlog_series(painted: list[tuple[float, int]], start: float) -> list[tuple[float, int]]:
    """(seconds into the stream, tokens arrived but not yet on screen), every 0.25 s of the schedule.

    Tokens arrive on the schedule (a provider does not wait for the terminal); `painted` holds the
    newest numbered token seen on screen over time.
    """
    series = []
    p, shown = 0, -1
    for step in range(1, int(STREAM_TOKENS / STREAM_RATE * 4) + 1):
        t = start + step / 4
        while p < len(painted) and painted[p][0] <= t:
            shown = painted[p][1]
            p += 1
        arrived = min(STREAM_TOKENS, int((t - start) * STREAM_RATE))
        series.append((t - start, max(0, arrived - (shown + 1))))
    return series


# --- the report -----------------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def _verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def report(paint: dict, resumed: dict, messages: int, stream: dict) -> list[tuple[str, str, str, str]]:
    rows: list[tuple[str, str, str, str]] = []
    co, bare = statistics.median(paint["co-tui"]), statistics.median(paint["bare"])
    ratio = co / bare
    rows += [
        (f"a. first paint, bare Textual app (median of {len(paint['bare'])})", _ms(bare), "", ""),
        (f"a. first paint, co-tui (median of {len(paint['co-tui'])})", _ms(co), "", ""),
        ("a. co-tui / bare", f"{ratio:.2f}x", f"<= {TARGETS['paint_ratio']}x", _verdict(ratio <= TARGETS["paint_ratio"])),
        ("a. co-tui model ready (pydantic-ai loaded), median", _ms(statistics.median(paint["ready"])),
         "after paint", _verdict(statistics.median(paint["ready"]) > co)),
    ]
    visible = statistics.median(resumed["visible"])
    rss, hwm = max(resumed["rss"]), max(resumed["hwm"])
    rows += [
        (f"b. resume {RESUME_TURNS:,} turns ({messages:,} msgs): first frame", _ms(statistics.median(resumed["frame"])), "", ""),
        (f"b. resume: conversation on screen (median of {len(resumed['visible'])})", _ms(visible),
         f"<= {_ms(TARGETS['resume_s'])}", _verdict(visible <= TARGETS["resume_s"])),
        ("b. resume: VmRSS / VmHWM at that moment (max)", f"{rss:.0f} / {hwm:.0f} MB",
         f"<= {TARGETS['resume_rss_mb']:.0f} MB", _verdict(hwm <= TARGETS["resume_rss_mb"])),
    ]
    produced, lat = stream["produced"], sorted(stream["latencies"])
    if len(produced) < 2:
        return [*rows, ("c. stream", "the model stream never started", "", "MISSED")]
    start, duration = produced[0][0], STREAM_TOKENS / STREAM_RATE
    rate = (produced[-1][1] - produced[0][1]) / (produced[-1][0] - start)
    rows.append((f"c. stream {STREAM_TOKENS:,} tokens: taken from the model at", f"{rate:,.0f} tok/s",
                 f"{STREAM_RATE:,.0f} tok/s", _verdict(rate >= 0.95 * STREAM_RATE)))
    if lat:
        p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))]
        rows.append((f"c. key -> painted, median / p95 / max ({len(lat)} keys, {stream['misses']} lost)",
                     f"{statistics.median(lat) * 1000:.0f} / {p95 * 1000:.0f} / {lat[-1] * 1000:.0f} ms",
                     f"<= {TARGETS['key_ms']:.0f} ms", _verdict(p95 * 1000 <= TARGETS["key_ms"] and not stream["misses"])))
    series = backlog_series(stream["painted"], start)
    quarter = max(1, len(series) // 4)
    early = statistics.mean(b for _, b in series[:quarter])
    late = statistics.mean(b for _, b in series[-quarter:])
    rows.append(("c. backlog (arrived - on screen), 1st vs 4th quarter", f"{early:,.0f} -> {late:,.0f} tokens",
                 "not growing", _verdict(late <= max(2 * early, STREAM_RATE * 0.1))))
    shown_at, shown = stream["painted"][-1] if stream["painted"] else (start, -1)
    if stream["complete"]:
        rows.append(("c. whole answer on screen after", f"{shown_at - start:.1f} s", f"{duration:.1f} s", ""))
    else:
        rows.append(("c. on screen when the benchmark gave up", f"{shown + 1:,} of {STREAM_TOKENS:,} tokens",
                     f"all after {duration:.0f} s", f"MISSED ({stream['finished'] - start:.0f} s)"))
    return rows


def print_table(rows: list[tuple[str, str, str, str]]) -> None:
    header = ("figure", "measured", "target", "")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", choices=("bare", "stream"), help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=7, help="runs of each app for first paint (default 7)")
    args = parser.parse_args()
    if args.child == "bare":
        run_bare_app()
        return 0
    if args.child == "stream":
        run_stream_app()
        return 0
    load = os.getloadavg()
    print(f"co-tui TUI benchmark · {COLS}x{ROWS} pty · {os.cpu_count()} cpus · load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    with tempfile.TemporaryDirectory(prefix="co-tui-bench-") as tmp:
        base = Path(tmp)
        (base / "a").mkdir()
        (base / "b").mkdir()
        (base / "c").mkdir()
        print("a. first paint …", flush=True)
        paint = first_paint(Sandbox(base / "a"), args.runs)
        print(f"b. building a {RESUME_TURNS:,}-turn session …", flush=True)
        box = Sandbox(base / "b")
        sid, _, messages = build_long_session(box, RESUME_TURNS).partition(":")
        print("b. resuming it …", flush=True)
        resumed = resume(box, sid, max(3, args.runs // 2))
        print(f"c. streaming {STREAM_TOKENS:,} tokens at {STREAM_RATE:,.0f}/s while typing …", flush=True)
        stream = streaming(Sandbox(base / "c"))
    print()
    print_table(report(paint, resumed, int(messages), stream))
    print(f"(load average after: {os.getloadavg()[0]:.2f}; a shared host adds noise to every figure)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
