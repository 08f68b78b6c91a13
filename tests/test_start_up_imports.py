"""What the TUI imports before its first frame and before the session is ready, against allow-lists
(issue 44): start-up is held at its floor by import lists, not timings, so these cannot flake.

One real start-up (`cli.main`, headless, offline model) records `sys.modules` when the first frame
has been drawn (the start-up worker is launched after it: `CoTuiApp._start_session`) and when the
session is ready; one real `co-tui -p hello` (`python -m co_tui`) lists `sys.modules` as it exits. A module outside the lists fails here with its name: import it later (lazily, in
the start-up thread, at first use), or add it to the list in the same change with the measurement
that says it costs nothing (`benchmarks/start_up.py`; docs/performance.md, "Start-up").
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from cli_process import run_python

pytestmark = pytest.mark.slow  # each test starts a real co-tui or Python process

# Third-party packages (top-level names) allowed before the first frame: Textual and what it needs.
PAINT_PACKAGES = {"textual", "rich", "platformdirs", "typing_extensions"}
# co-tui's own before the first frame: the UI, and these few light modules of the other layers
# (the front end imports only `co_tui.session`: its command table).
PAINT_OWN_PREFIXES = ("co_tui.tui",)
PAINT_OWN = {
    "co_tui",
    "co_tui.cli",
    "co_tui.daemon_threads",  # the loop's executor, set when the app starts (standard library only)
    "co_tui.terminal_echo",  # the echo off first thing, so early keys are not echoed (standard library only)
    "co_tui.text",
    "co_tui.print_input",
    "co_tui.session",
    "co_tui.session.note_prompt",  # `#note` told from a prompt (standard library only)
    # The slash commands the prompt completes and the keys bind (standard library only; main moved
    # them behind `co_tui.session`, the front ends' one import).
    "co_tui.session.command_handlers",
    "co_tui.session.commands",
}
# The UI's own modules that the first frame does not need: the log's entries (drawn once there is a
# conversation), the replay of a resumed one, the steering intents and the slash commands' actions
# (built at their first use) and the palette's provider (loaded when the palette opens). Each was
# imported before the first frame until 2026-11-29 (docs/performance.md, "Start-up in tmux").
PAINT_UI_DENIED = {
    "co_tui.tui.command_actions",
    "co_tui.tui.export_command",
    "co_tui.tui.palette",
    "co_tui.tui.steering_intents",
    "co_tui.tui.transcript_view",
    "co_tui.tui.widgets.assistant_message",
    "co_tui.tui.widgets.error_block",
    "co_tui.tui.widgets.subagent_block",
    "co_tui.tui.widgets.tool_call_block",
    "co_tui.tui.widgets.trim_banner",
    "co_tui.tui.widgets.user_message",
}
# Standard-library packages that have no business before the first frame (each costs a few to
# tens of ms and none is needed to draw it); the rest of the standard library is allowed.
PAINT_STDLIB_DENIED = {
    "argparse",  # plain `co-tui` builds no parser (cli.build_parser imports it)
    "calendar",
    "csv",
    "email",
    "hashlib",
    "html",
    "http",
    "multiprocessing",
    "pkgutil",
    "pprint",
    "sqlite3",
    "sysconfig",
    "unittest",
    "xml",
    "zipfile",
    "zoneinfo",
}
# Before ready, the third-party packages the offline model's session needs: pydantic-ai and what it
# imports, pydantic-settings, genai-prices (cost), the HTTP client pydantic-ai builds on. No
# provider SDK (openai, anthropic, …: imported when a model of theirs is built) and no Markdown
# (at the first answer).
READY_PACKAGES = PAINT_PACKAGES | {
    "annotated_types",
    "anyio",
    "dotenv",
    "genai_prices",
    "griffe",
    "h11",
    "httpcore",
    "httpcore2",
    "httpx",
    "httpx2",
    "idna",
    "logfire_api",
    "opentelemetry",
    "pydantic",
    "pydantic_ai",
    "pydantic_core",
    "pydantic_graph",
    "pydantic_settings",
    "sniffio",
    "truststore",
    "typing_inspection",
}
# co-tui's own that ready has no use for: the policy's cutting steps (and the modules only they
# import; the truncation mark lives in markers.py), loaded by the first pass that cuts or the first
# /compact with a hook. A session opens with a Governor and no cut; until 2026-11-29 they were
# imported with it (issue 44 item 4, docs/performance.md, "Start-up: what stays between the first
# frame and ready").
READY_OWN_DENIED = {
    "co_tui.governance.dedup",
    "co_tui.governance.step_shrink",
    "co_tui.governance.summary_check",
    "co_tui.governance.summary_step",
    "co_tui.governance.trim",
    "co_tui.governance.truncation",
    "co_tui.session.replay_items",  # a resume's replay (`ChatSession.replay`), not a new session's
}
# The agent layer's (readyagent, 2026-11-29): what answers, not what is built. The offline model's
# reply planner, its intents, canned replies and extractive summariser load at its first request; an
# approval's text (escaped, diffs folded) when the first approval or `/permissions` shows a call.
READY_OWN_DENIED |= {
    "co_tui.agent.approval_text",
    "co_tui.agent.extractive",
    "co_tui.agent.offline_intents",
    "co_tui.agent.offline_plan",
    "co_tui.agent.offline_replies",
    # The /history inspector (and its turn states): `preview_next_cut` loads it once a cut is coming.
    "co_tui.governance.inspect",
    "co_tui.governance.turn_states",
    "co_tui.governance.recall",  # the `recall` tool's lookups: at its first call (every agent holds the tool)
}
# Print mode (`co-tui -p`): what the offline session needs, nothing of a screen (Textual, Rich) and
# no provider, ACP or MCP SDK (imported when a model, `co-tui acp` or an MCP server asks for one).
PRINT_PACKAGES = (READY_PACKAGES - PAINT_PACKAGES) | {"typing_extensions"}
# co-tui's own that print mode has no use for: the TUI, the ACP front end, --list-sessions/--export.
PRINT_OWN_DENIED = ("co_tui.tui", "co_tui.acp", "co_tui.cli_sessions")
# Not third-party code: the interpreter's own start-up and the editable install's finder.
ALWAYS = {"__main__", "_distutils_hack", "_sysconfigdata__linux_x86_64-linux-gnu"}

_PROBE = (
    "import sys, json\n"
    "from co_tui import cli\n"
    "from co_tui.tui import app as app_module\n"
    "seen = {}\n"
    "class Probe(app_module.CoTuiApp):\n"
    "    def _start_session(self):\n"
    "        seen['paint'] = sorted(sys.modules)\n"
    "        super()._start_session()\n"
    "    async def on_session_ready(self, message):\n"
    "        seen['ready'] = sorted(sys.modules)\n"
    "        self.exit(0)\n"
    "    def run(self, **kwargs):\n"
    "        return super().run(headless=True)\n"
    "app_module.CoTuiApp = Probe\n"
    "cli._no_terminal = lambda: None  # headless: no terminal needed\n"
    "seen['code'] = cli.main(sys.argv[1:])\n"
    "print(json.dumps(seen))\n"
)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """`sys.modules` at the first frame and at ready, of one real start-up."""
    tmp = tmp_path_factory.mktemp("start-up")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CO_TUI_")}
    env.update(CO_TUI_DATA_DIR=str(tmp / "data"), CO_TUI_CONFIG_FILE=str(tmp / "config.toml"), HOME=str(tmp))
    out = run_python(_PROBE, cwd=tmp, env=env, inherit_env=False)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["code"] == 0
    return seen  # type: ignore[no-any-return]


def _third_party(modules: list[str]) -> set[str]:
    tops = {m.split(".")[0] for m in modules}
    return {t for t in tops if t not in sys.stdlib_module_names and t != "co_tui" and not t.startswith("__editable__")}


def paint_violations(modules: list[str]) -> set[str]:
    """What of `modules` (`sys.modules` at the first frame) is outside the first frame's lists."""
    third = _third_party(modules) - PAINT_PACKAGES - ALWAYS
    own = {m for m in modules if m.startswith("co_tui.") and not m.startswith(PAINT_OWN_PREFIXES)} - PAINT_OWN
    own |= set(modules) & PAINT_UI_DENIED
    stdlib = {m.split(".")[0] for m in modules} & PAINT_STDLIB_DENIED
    return third | own | stdlib


def ready_violations(modules: list[str]) -> set[str]:
    """What of `modules` (`sys.modules` at ready) is outside the ready lists."""
    return (_third_party(modules) - READY_PACKAGES - ALWAYS) | (set(modules) & READY_OWN_DENIED)


def print_violations(modules: list[str]) -> set[str]:
    """What of `modules` (every import of a print-mode run) is outside print mode's lists."""
    own = {m for m in modules if m.startswith(PRINT_OWN_DENIED)}
    return (_third_party(modules) - PRINT_PACKAGES - ALWAYS) | own


# `python -m co_tui ARGS`, listing `sys.modules` as a JSON line on stderr when it exits.
_PRINT_PROBE = (
    "import atexit, json, runpy, sys\n"
    "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
    "sys.argv = ['co-tui', *sys.argv[1:]]\n"
    "runpy.run_module('co_tui', run_name='__main__', alter_sys=True)\n"
)


def test_before_the_first_frame_only_textual_and_the_ui(imported: dict[str, list[str]]) -> None:
    assert paint_violations(imported["paint"]) == set()


def test_before_ready_only_what_the_offline_session_needs(imported: dict[str, list[str]]) -> None:
    ready = imported["ready"]
    assert ready_violations(ready) == set()
    assert "pydantic_ai" in ready and "co_tui.session.chat" in ready  # the probe did reach ready
    assert set(imported["paint"]) <= set(ready)


def test_an_import_outside_the_lists_is_named(imported: dict[str, list[str]]) -> None:
    """What each check would say of the real lists with one import too many."""
    paint, ready = imported["paint"], imported["ready"]
    assert paint_violations([*paint, "pydantic", "pydantic.main"]) == {"pydantic"}
    assert paint_violations([*paint, "co_tui.governance.trim"]) == {"co_tui.governance.trim"}
    assert paint_violations([*paint, "email", "email.parser"]) == {"email"}
    assert paint_violations([*paint, "co_tui.tui.steering_intents"]) == {"co_tui.tui.steering_intents"}
    assert paint_violations([*paint, "co_tui.session.events"]) == {"co_tui.session.events"}
    assert paint_violations([*paint, "sqlite3", "sqlite3.dbapi2"]) == {"sqlite3"}
    assert ready_violations([*ready, "openai", "openai.types"]) == {"openai"}
    assert ready_violations([*ready, "markdown_it"]) == {"markdown_it"}
    assert ready_violations([*ready, "co_tui.governance.trim"]) == {"co_tui.governance.trim"}
    assert paint_violations([*paint, "argparse"]) == {"argparse"}


# A resumed conversation's tool rows, as the store's rows give them (JSON, before pydantic-ai loads).
_RESUMED_ROWS_PROBE = (
    "import json, sys\n"
    "from co_tui.session import transcript_items\n"
    "from co_tui.tui.widgets.tool_call_block import ToolCallBlock\n"
    "call = lambda name, cid: {'part_kind': 'tool-call', 'tool_name': name, 'tool_call_id': cid, 'args': '{}'}\n"
    "ret = lambda name, cid, text: {'part_kind': 'tool-return', 'tool_name': name, 'tool_call_id': cid, 'content': text}\n"
    "rows = [\n"
    "    {'kind': 'response', 'parts': [call('read_file', 'a'), call('run_shell', 'b')]},\n"
    "    {'kind': 'request', 'parts': [ret('read_file', 'a', 'x'), ret('run_shell', 'b', '$ make\\n[exit code 2]')]},\n"
    "]\n"
    "titles = []\n"
    "for item in transcript_items(rows):\n"
    "    row = ToolCallBlock(item.tool_name, item.tool_call_id, item.args)\n"
    "    row.set_result(item.tool_result())\n"
    "    titles.append(row.title.plain)\n"
    "print(json.dumps({'titles': titles, 'pydantic_ai': 'pydantic_ai' in sys.modules}))\n"
)


def test_a_resumed_tool_row_is_shown_before_pydantic_ai_loads(tmp_path: Path) -> None:
    """A resume mounts its newest rows before the session (and pydantic-ai) loads: a tool row's
    facts come from the session without it. The row parsed them itself before, importing the
    policy's preview module (pydantic-ai) on the UI thread for every row: the conversation was on
    screen ~2 s later on a 1,000-turn resume (benchmarks/tui.py, part b)."""
    out = run_python(_RESUMED_ROWS_PROBE, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["titles"] == ["⚙ read_file() · 1 char", "⚙ run_shell() · 20 chars · exit 2"]
    assert seen["pydantic_ai"] is False


def test_print_mode_imports_no_screen_and_no_provider_sdk(tmp_path: Path) -> None:
    """`co-tui -p hello` as a user runs it (`python -m co_tui`, the offline model): every module
    loaded by its exit, against print mode's lists."""
    out = run_python(_PRINT_PROBE, "-p", "hello", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "offline" in out.stdout.lower()
    modules = json.loads(out.stderr.strip().splitlines()[-1])
    assert "pydantic_ai" in modules and "co_tui.print_mode" in modules  # the log is the run's
    assert print_violations(modules) == set()
    # What the check would say of one import too many.
    assert print_violations([*modules, "textual", "textual.app"]) == {"textual"}
    assert print_violations([*modules, "openai", "openai.types"]) == {"openai"}
    assert print_violations([*modules, "co_tui.tui.app"]) == {"co_tui.tui.app"}
