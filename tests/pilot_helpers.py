"""Pilot helpers shared by every test folder: wait for a condition, never for a time.

`tests/` is on sys.path (its conftest.py is loaded first), so any test imports these as
`from pilot_helpers import wait_until`.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

TIMEOUT_S = 60.0  # only a failing test waits this long: the lines-while-streaming tests took >30 s on a host at load ~8


async def wait_until(
    pilot: Pilot,
    predicate: Callable[[], object],
    what: str | Callable[[], str] = "condition",
    *,
    timeout: float = TIMEOUT_S,
) -> None:
    """Pause the pilot until `predicate()` is truthy; fail the test after `timeout` seconds, naming
    `what` (called then, when it is a callable: the state as it was at the failure)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what() if callable(what) else what}")
        # The app runs on this loop: a sleep lets it go on. (`pilot.pause` posted a callback to every
        # widget of the screen and forced a layout and paint, 100 times a second: ~5% of the TUI
        # tests' CPU time.)
        await asyncio.sleep(0.01)
    # What the app had queued when the condition came true is handled before the test goes on (a
    # screen just pushed has had its resume), as when every poll waited for the screen's queues.
    await pilot._wait_for_screen()


async def wait_ready(pilot: Pilot) -> None:
    """Wait until the app's session exists, a resumed conversation is all mounted (the entries above
    its first screen follow the session: `ChatScreen.mount_earlier`), what the chat screen held
    until then is on it (the footer's keys, the prompt's popups: `ChatScreen.finish_start_up`) and
    the first paint settled."""
    await wait_until(pilot, lambda: getattr(pilot.app, "session", None) is not None, what="session ready")
    await wait_until(pilot, lambda: not _earlier_pending(pilot.app), what="resumed entries mounted")
    await wait_until(pilot, lambda: _start_up_finished(pilot.app), what="the chat screen's start-up finished")
    await pilot.pause()


async def dialog_armed(pilot: Pilot, name: str, what: str = "the dialog, armed") -> None:
    """Wait until the screen on top is a dialog of class `name` whose answers are armed (it sets
    `armed`: co_tui/tui/screens/arming.py); before that its keys and buttons do nothing."""
    await wait_until(
        pilot,
        lambda: type(pilot.app.screen).__name__ == name and getattr(pilot.app.screen, "armed", False),
        what=what,
    )


async def inspector_loaded(pilot: Pilot) -> None:
    """Wait until the history inspector on top has drawn the rows it reads in a thread."""
    await wait_until(pilot, lambda: getattr(pilot.app.screen, "loaded", False), what="the inspector's rows")


def _start_up_finished(app: Any) -> bool:
    chat = next((s for s in getattr(app, "screen_stack", ()) if hasattr(s, "start_up_finished")), None)
    return chat.start_up_finished if chat is not None else True


def _earlier_pending(app: Any) -> int:
    chat = next((s for s in getattr(app, "screen_stack", ()) if hasattr(s, "earlier_pending")), None)
    return chat.earlier_pending if chat is not None else 0


def layout_settled(pilot: Pilot) -> bool:
    """Every tool row's title has the width of its text (a title just changed is laid out on a
    later frame: a snapshot taken before then shows it cut, e.g. `· 1.3k` for `· 1.3k chars`)."""
    from textual.widgets._collapsible import CollapsibleTitle

    for title in pilot.app.screen.query(CollapsibleTitle):
        parent = title.parent
        room = parent.content_region.width if parent is not None else title.content_region.width
        if title.content_region.width < min(title.visual.get_optimal_width(title.styles, room), room):
            return False
    return True


async def wait_idle(pilot: Pilot) -> None:
    """Wait until no turn or compaction runs, all posted events are rendered and laid out."""
    app = pilot.app
    await wait_until(pilot, lambda: not app.busy, what="turn finished")
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    await wait_until(pilot, lambda: layout_settled(pilot), what="the layout settled")


async def paste(pilot: Pilot, text: str) -> None:
    """Put `text` into the focused prompt as a terminal paste does (one `Paste` event), and wait
    until the prompt shows it. For the text a test only needs sent: Textual's pilot types a key
    in 40-90 ms (it waits for the app to idle twice a key), most of the TUI suite's time when every
    filler prompt was typed. How keys are typed is tested key by key (test_key_echo.py, the tmux
    tests, test_type_ahead.py)."""
    from textual import events

    prompt = pilot.app.screen.focused
    assert prompt is not None, "nothing has the focus to paste into"
    before = getattr(prompt, "text", "")
    pilot.app.post_message(events.Paste(text))  # as the terminal's driver sends it: to the focused widget
    await wait_until(
        pilot,
        lambda: getattr(prompt, "text", None) == before + text,
        what=lambda: f"the paste {text!r} in {prompt!r}: {getattr(prompt, 'text', None)!r}",
    )


async def send_prompt(pilot: Pilot, text: str) -> None:
    """Paste `text` into the prompt, press Enter, as a user does; wait until the turn (or command)
    is done and drawn (`wait_idle`)."""
    await paste(pilot, text)
    await pilot.press("enter")
    await wait_idle(pilot)


def poll_until(
    predicate: Callable[[], object], what: str | Callable[[], str] = "condition", *, timeout: float = 60.0
) -> None:
    """`wait_until` for tests without a pilot (a real process, tmux): block until `predicate()` is
    truthy, checking every 0.1 s; fail naming `what` (called at the failure, when it is a callable:
    e.g. the screen as it was then) after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what() if callable(what) else what}")
        time.sleep(0.1)


class Tmux:
    """A private tmux server for one test (its own socket, no user config): `tmux(*args)` runs a
    tmux command on it and returns its stdout; the session the tests drive is named `t`."""

    def __init__(self, name: str) -> None:
        import os

        self.socket = f"co-tui-{name}-{os.getpid()}"

    def __call__(self, *args: str) -> str:
        import subprocess

        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True, check=False
        ).stdout

    def pane(self) -> str:
        """The visible screen of session `t`, as text."""
        return self("capture-pane", "-p", "-t", "t")

    def focused_row(self) -> str | None:
        """The captured line (escape codes kept) of the row drawn focused, or None (the prompt has
        it). A row is drawn focused when its `▸` starts a background; the gutter `▌` before it may
        have a background of its own, so only the styles right before `▸` count."""
        import re

        for line in self("capture-pane", "-e", "-p", "-t", "t").splitlines():
            if "▸" in line:
                codes = re.search(r"(?:\x1b\[[0-9;]*m)*$", line[: line.index("▸")])
                if codes is not None and "[48;" in codes.group():
                    return line
        return None

    def row_focused(self, title: str) -> bool:
        """Whether the row drawn focused has `title` (no styles inside it) on its line."""
        return title in (self.focused_row() or "")

    def wait_for(self, text: str, *, gone: bool = False, timeout: float = 60) -> None:
        """Block until `text` is on the screen (or, `gone`, off it); fail showing the screen."""
        poll_until(
            lambda: (text in self.pane()) != gone, lambda: f"{text!r} (gone={gone}):\n{self.pane()}", timeout=timeout
        )

    def wait_turn_over(self, *, timeout: float = 60) -> None:
        """Block until no turn, command or compaction runs: the activity line (`⠹ … · esc to
        interrupt`) is off the screen. Call it once something of the job has shown (an answer's
        text), since the line is off before the job starts too. An answer can show before its turn
        ends (on a loaded host, by seconds): keys that need the turn over (a `/compact`, `/sessions`,
        `/branches`, Shift+Tab onto a row the turn's end may take the focus from) wait for this."""
        self.wait_for("esc to interrupt", gone=True, timeout=timeout)

    def submit(self, text: str) -> None:
        """Type `text` into session `t`'s prompt and press Enter once the text shows: keys typed
        while co-tui starts are held and put into the prompt as one paste, an Enter among them as
        a line break (tui/early_input.py), so the first line of a test must show before its Enter."""
        self("send-keys", "-t", "t", "-l", text)
        self.wait_for(text)
        self("send-keys", "-t", "t", "Enter")

    def start_co_tui(
        self,
        co_tui: Path,
        tmp_path: Path,
        *,
        data: Path,
        config: Path,
        cwd: Path,
        leader: bool = False,
        detached: bool = False,
        **env: str,
    ) -> Path:
        """Run `co_tui` in session `t` (100×30) in a clean environment (HOME=`tmp_path`, its own data
        dir and config file, `env` added as CO_TUI_… variables); returns the file its exit code goes to.
        `leader`: co-tui is the pane's own process, as a terminal window runs it (the session leader,
        which the kernel sends SIGHUP and SIGCONT when the terminal closes); `detached`: co-tui is the
        child of `setsid -w`, in a session of its own with no controlling terminal (no signal comes when
        the terminal closes). With either, no exit code is written."""
        variables = [f"PATH={os.environ['PATH']}", f"HOME={tmp_path}", "LANG=C.UTF-8", "TERM=tmux-256color"]
        variables += [f"CO_TUI_DATA_DIR={data}", f"CO_TUI_CONFIG_FILE={config}"]
        variables += [f"{name}={value}" for name, value in env.items()]
        done = tmp_path / "exit-code"
        command = " ".join(["env", "-i", *variables]) + f" {co_tui}; echo $? > {done}"
        if leader or detached:
            command = " ".join(["exec", *(["setsid", "-w"] if detached else []), "env", "-i", *variables, str(co_tui)])
        self("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", "-c", str(cwd), command)
        return done
