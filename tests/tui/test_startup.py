"""Start-up of the TUI: nothing heavy before the first frame; settings and pydantic-ai load after
it, in the start-up thread (never on the UI thread); a resumed conversation shows before either;
a bad setting still ends the program with one line and exit 2.

Timing lives in benchmarks/tui.py; these tests pin the order (what is imported when), not speed.
"""

from __future__ import annotations

import json
import os
import pty
import re
import sys
from pathlib import Path

import pytest
from cli_process import call_co_tui, run_python
from damaged_db import damage_workspace_index

from co_tui.store.session_store import SessionStore

ROOT = Path(__file__).resolve().parents[2]
# Not before the first frame: pydantic-settings/pydantic (~150 ms) and pydantic-ai (~1 s).
HEAVY = ("pydantic", "pydantic_settings", "pydantic_ai", "pydantic_core")


@pytest.mark.slow
def test_importing_the_start_up_path_loads_no_pydantic(tmp_path: Path) -> None:
    code = (
        "import sys, json\n"
        "import co_tui.cli, co_tui.tui.app, co_tui.tui.messages, co_tui.tui.screens.chat\n"
        f"heavy = {HEAVY!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    out = run_python(code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


@pytest.mark.slow
def test_the_start_up_path_loads_no_markdown(tmp_path: Path) -> None:
    """Textual's Markdown widgets and markdown-it wait for a first answer or a resumed conversation."""
    code = (
        "import sys, json\n"
        "import co_tui.cli, co_tui.tui.app, co_tui.tui.messages, co_tui.tui.screens.chat\n"
        "print(json.dumps(sorted(m for m in sys.modules if 'markdown' in m.lower())))\n"
    )
    out = run_python(code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


# Records, for each heavy package, whether its first import ran on the main (UI) thread and whether
# the first frame had been drawn by then (`painted`, set when the start-up worker is launched:
# `CoTuiApp.on_mount` schedules it after the first refresh).
_PROBE = (
    "import sys, json, threading, gc\n"
    "from co_tui import cli\n"
    "from co_tui.tui import app as app_module\n"
    f"heavy = {HEAVY!r}\n"
    "state = {'painted': False}\n"
    "seen = {}\n"
    "class Watch:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name in heavy and name not in seen:\n"
    "            seen[name] = {'main_thread': threading.current_thread() is threading.main_thread(),\n"
    "                          'after_first_frame': state['painted']}\n"
    "        return None\n"
    "sys.meta_path.insert(0, Watch())\n"
    "class Probe(app_module.CoTuiApp):\n"
    "    def _start_session(self):\n"
    "        state['painted'] = True\n"
    "        state['prompt'] = bool(self.chat.query('PromptInput'))\n"
    "        state['gc_on_before_ready'] = gc.isenabled()\n"
    "        super()._start_session()\n"
    "    async def on_session_preview(self, message):\n"
    "        state['at_preview'] = sorted(m for m in sys.modules if m.split('.')[0] in heavy)\n"
    "    async def on_session_ready(self, message):\n"
    "        state['ready'] = True\n"
    "        self.exit(0)\n"
    "    def run(self, **kwargs):\n"
    "        return super().run(headless=True)\n"
    "app_module.CoTuiApp = Probe\n"
    "cli._no_terminal = lambda: None  # headless: no terminal needed\n"
    "code = cli.main(sys.argv[1:])\n"
    "print(json.dumps({'seen': seen, 'gc_on_after': gc.isenabled(), **state, 'code': code}))\n"
)


def _run_probe(tmp_path: Path, *args: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CO_TUI_")}
    env.update(CO_TUI_DATA_DIR=str(tmp_path / "data"), CO_TUI_CONFIG_FILE=str(tmp_path / "config.toml"))
    out = run_python(_PROBE, *args, cwd=tmp_path, env=env, inherit_env=False)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.slow
def test_pydantic_ai_loads_off_the_ui_thread_after_the_first_frame(tmp_path: Path) -> None:
    """The real `co-tui` start-up (`cli.main`) to a ready session: the chat screen is drawn first;
    then settings (pydantic, pydantic-settings) and pydantic-ai are imported by the start-up
    thread, never on the UI thread, which stays free for keys while they load. The collector,
    held during start-up, is back on once the session is ready."""
    result = _run_probe(tmp_path)
    assert result["code"] == 0 and result["ready"] and result["prompt"]
    assert set(result["seen"]) == set(HEAVY), result["seen"]  # type: ignore[arg-type]
    for name, where in result["seen"].items():  # type: ignore[attr-defined]
        assert where == {"main_thread": False, "after_first_frame": True}, (name, where)
    assert result["gc_on_before_ready"] is False and result["gc_on_after"] is True


@pytest.mark.slow
def test_a_resumed_conversation_shows_before_pydantic_loads(tmp_path: Path) -> None:
    """`co-tui --continue`: the saved conversation is read from the store and shown before the
    settings are built (pydantic-settings) and before pydantic-ai loads; the session then opens."""
    # The conversation is saved by a print-mode run (called in-process: the probe below is the process).
    store = {"CO_TUI_DATA_DIR": str(tmp_path / "data"), "CO_TUI_CONFIG_FILE": str(tmp_path / "config.toml")}
    saved = call_co_tui("-p", "hello there", cwd=tmp_path, env=store)
    assert saved.returncode == 0, saved.stderr
    result = _run_probe(tmp_path, "--continue")
    assert result["code"] == 0 and result["ready"]
    assert result["at_preview"] == []
    for name, where in result["seen"].items():  # type: ignore[attr-defined]
        assert where == {"main_thread": False, "after_first_frame": True}, (name, where)


def _run_on_a_pty(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run `argv` with a pseudo-terminal as its stdin/stdout/stderr; (exit code, all output)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child
        try:
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode("utf-8", errors="replace")


ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "env", "line"),
    [
        (
            (),
            {"CO_TUI_TOOL_OUTPUT_TRIM_CHARS": "lots"},
            "co-tui: setting tool_output_trim_chars: invalid value 'lots' from environment variable "
            "CO_TUI_TOOL_OUTPUT_TRIM_CHARS: ",
        ),
        (("--continue",), {}, "co-tui: no saved session in "),
        (("--continue",), {"damaged": "index"}, "co-tui: session database "),
    ],
    ids=["bad-setting", "nothing-to-continue", "damaged-index"],
)
def test_the_tui_exits_2_with_one_line(tmp_path: Path, args: tuple[str, ...], env: dict[str, str], line: str) -> None:
    """Through a real terminal: the app opens, cannot go on, restores the terminal, then prints one
    line (no traceback) and the process exits 2 — as `co-tui -p` does before anything starts.
    `damaged` (not an environment variable): a saved session whose workspace index is damaged."""
    env = dict(env)  # the parameter is shared between runs
    if env.pop("damaged", None):
        with SessionStore.open(tmp_path / "data") as store:
            store.create_session(model="offline", workspace=tmp_path, title="kept")
        damage_workspace_index(tmp_path / "data" / "sessions.db", tmp_path)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CO_TUI_")}
    clean.update(
        TERM="xterm-256color",
        PYTHONPATH=str(ROOT),
        CO_TUI_DATA_DIR=str(tmp_path / "data"),
        CO_TUI_CONFIG_FILE=str(tmp_path / "config.toml"),
        **env,
    )
    code, output = _run_on_a_pty([sys.executable, "-m", "co_tui", *args], clean, tmp_path)
    assert code == 2, output
    # What stays on the terminal once the app has left the alternate screen: that one line.
    after = output.rsplit("\x1b[?1049l", 1)[-1]
    lines = [text.strip() for text in ANSI.sub("", after).splitlines() if text.strip()]
    assert len(lines) == 1 and lines[0].startswith(line), lines
    assert "Traceback" not in output
