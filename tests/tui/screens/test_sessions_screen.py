"""Sessions picker over a real SQLite store: resume, delete after confirm, damaged sessions, cancel."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timezone
from pathlib import Path

import pytest
from pilot_helpers import dialog_armed, wait_until
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.usage import RequestUsage
from screen_host import TERMINAL, make_host, screen_env  # (fixtures)
from textual.widgets import DataTable, Input, Static
from textual.widgets._footer import FooterKey

from co_tui.store import database as store_module
from co_tui.store.session_store import SessionStore
from co_tui.tui.screens.confirm_delete import ConfirmDeleteScreen
from co_tui.tui.screens.sessions import SessionsScreen

IDS = {name: name[0] * 32 for name in ("abc", "bcd", "cde", "def")}
# (title, model, turns, minutes after T0 of the last save)
PLAN = {
    IDS["abc"]: ("Refactor the request handler and add tests", "openai:gpt-4o", 3, 50),
    IDS["bcd"]: ("Why does the build fail on CI?", "offline", 1, 20),
    IDS["cde"]: ("Summarise the design doc", "anthropic:claude-sonnet-4-5", 2, 10),
    IDS["def"]: ("Explore the corpus", "offline", 1, 5),
}
T0 = datetime(2025, 3, 14, 9, 0, tzinfo=UTC).timestamp()


def _turn(i: int) -> list:
    call = f"call_{i}"
    return [
        ModelRequest(parts=[UserPromptPart(f"read file_{i}.py")]),
        ModelResponse(
            parts=[ToolCallPart("read_file", {"path": f"file_{i}.py"}, tool_call_id=call)],
            usage=RequestUsage(input_tokens=120, output_tokens=10),
        ),
        ModelRequest(parts=[ToolReturnPart("read_file", "def handler(): ...\n" * 20, tool_call_id=call)]),
        ModelResponse(
            parts=[TextPart(f"file_{i}.py defines a handler.")], usage=RequestUsage(input_tokens=300, output_tokens=12)
        ),
    ]


@pytest.fixture
def workspace_name() -> str:
    return "project"  # the picker's title names it ("Sessions in project"), in the snapshots


@pytest.fixture
def store(tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SessionStore]:
    """Four saved sessions with fixed ids and a frozen clock; the third one damaged on disk."""
    clock = [T0]
    monkeypatch.setattr(store_module, "now", lambda: clock[0])
    opened = SessionStore.open(tmp_path / "data")
    for sid, (title, model, turns, minutes) in PLAN.items():
        clock[0] = T0 + minutes * 60
        opened.create_session(model=model, workspace=workspace, title=title, session_id=sid)
        messages = [m for i in range(turns) for m in _turn(i)]
        opened.save_turn(sid, new_transcript=messages, context=messages, new_events=[], tokens=900 * turns)
    other = opened.create_session(model="offline", workspace=tmp_path, title="another workspace")
    opened.save_turn(other, new_transcript=_turn(0), context=_turn(0), new_events=[])
    db = sqlite3.connect(tmp_path / "data" / "sessions.db")
    db.execute('UPDATE transcript SET body = \'{"kind": "nonsense"}\' WHERE session_id = ? AND seq = 1', (IDS["cde"],))
    db.commit()
    db.close()
    yield opened
    opened.close()


NOW = datetime.fromtimestamp(T0 + 3600, UTC)  # ages are counted from 10:00


def _picker(make_host, store: SessionStore, workspace: Path):
    return make_host(lambda: SessionsScreen(store, workspace, current_id=IDS["bcd"], now=NOW))


def _titles(table: DataTable) -> list[str]:
    """The title column without its preview."""
    return [str(table.get_row_at(i)[2]).split("  › ")[0] for i in range(table.row_count)]


async def _ask_delete(pilot) -> None:
    """Delete, then wait until the confirm's answers are armed (screens/arming.py)."""
    await pilot.press("delete")
    await dialog_armed(pilot, "ConfirmDeleteScreen")


async def _keys(pilot, *keys: str) -> None:
    """Press `keys`, then let the screens settle (the resume check runs in a worker)."""
    await pilot.press(*keys)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _listed(pilot) -> None:
    """Wait until the picker has shown the list it reads in a thread, and its footer the keys that
    list enables (the footer rebuilds after a refresh: a dialog pushed before that froze it without
    Delete in a snapshot)."""
    screen = pilot.app.screen
    await wait_until(pilot, lambda: getattr(screen, "loaded", False), what="the list")
    if screen.query_one("#sessions-table", DataTable).row_count:
        await wait_until(
            pilot, lambda: any(key.action == "delete" for key in screen.query(FooterKey)), what="Delete in the footer"
        )


def _status(app) -> str:
    return str(app.screen.query_one("#sessions-status", Static).render())


async def test_lists_this_workspace_newest_first(make_host, store, workspace):
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        table = app.screen.query_one("#sessions-table", DataTable)
        assert _titles(table) == [PLAN[IDS[k]][0] for k in ("abc", "bcd", "cde", "def")]
        assert str(table.get_row_at(0)[1]) == "aaaaaaaa"  # the id, as --resume takes it
        assert str(table.get_row_at(0)[3]) == "10 min ago"
        assert str(table.get_row_at(0)[4]) == "12"  # 3 turns of 4 messages
        # The preview: the newest prompt of a session with several, the answer of a one-prompt one.
        assert str(table.get_row_at(0)[2]).endswith("  › read file_2.py")
        assert str(table.get_row_at(1)[2]).endswith("  › file_0.py defines a handler.")
        assert _status(app).startswith(f"{IDS['abc']} · 2025-03-14 ")


@pytest.mark.parametrize(
    ("keys", "result"),
    [
        (("down", "enter"), IDS["bcd"]),  # enter resumes the highlighted session
        (("escape",), None),  # escape cancels
    ],
)
async def test_enter_resumes_escape_cancels(make_host, store, workspace, keys, result):
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        await _keys(pilot, *keys)
        assert not isinstance(app.screen, SessionsScreen)
        assert app.results == [result]


async def test_a_damaged_session_shows_its_error_and_the_picker_stays(make_host, store, workspace):
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        await _keys(pilot, "down", "down", "enter")
        assert isinstance(app.screen, SessionsScreen)
        assert app.results == []
        status = _status(app)
        assert "is damaged" in status and "transcript message 1" in status and "\n" not in status.strip()
        table = app.screen.query_one("#sessions-table", DataTable)
        assert str(table.get_row_at(2)[0]) == "⚠"
        # The others still resume.
        await _keys(pilot, "down", "enter")
        assert app.results == [IDS["def"]]


async def test_delete_asks_first_and_no_keeps_the_session(make_host, store, workspace):
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        await _ask_delete(pilot)
        await _keys(pilot, "n")
        assert isinstance(app.screen, SessionsScreen)
        assert len(store.list_sessions(workspace)) == 4
        # Enter on the dialog's focused button is the safe answer too.
        await _ask_delete(pilot)
        await _keys(pilot, "enter")
        assert len(store.list_sessions(workspace)) == 4


async def test_delete_after_yes_removes_it_from_store_and_list(make_host, store, workspace):
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        await _ask_delete(pilot)
        await _keys(pilot, "y")
        assert isinstance(app.screen, SessionsScreen)
        assert [m.id for m in store.list_sessions(workspace)] == [IDS["bcd"], IDS["cde"], IDS["def"]]
        table = app.screen.query_one("#sessions-table", DataTable)
        assert _titles(table) == [PLAN[IDS[k]][0] for k in ("bcd", "cde", "def")]


async def test_the_open_session_cannot_be_deleted(make_host, store, workspace):
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        await _keys(pilot, "down", "delete")
        assert isinstance(app.screen, SessionsScreen)
        assert "open session" in _status(app)
        assert len(store.list_sessions(workspace)) == 4


async def test_an_unusable_store_is_one_line_not_a_crash(make_host, store, workspace):
    store.close()
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        assert isinstance(app.screen, SessionsScreen)
        assert _status(app).strip()
        await _keys(pilot, "enter", "delete", "escape")
        assert app.results == [None]


async def test_an_empty_workspace_says_so(make_host, store, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    app = make_host(lambda: SessionsScreen(store, empty))
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        assert "No saved sessions" in _status(app)
        await pilot.press("enter", "delete")
        assert isinstance(app.screen, SessionsScreen)


def test_sessions_snapshot(snap_compare, make_host, store, workspace):
    async def mark_damaged(pilot):
        await _listed(pilot)
        # Try to open the damaged one: the picker flags it and shows why.
        await _keys(pilot, "down", "down", "enter")

    assert snap_compare(_picker(make_host, store, workspace), terminal_size=TERMINAL, run_before=mark_damaged)


def test_confirm_delete_snapshot(snap_compare, make_host, store, workspace):
    async def ask_to_delete(pilot):
        await _listed(pilot)
        await _ask_delete(pilot)

    assert snap_compare(_picker(make_host, store, workspace), terminal_size=TERMINAL, run_before=ask_to_delete)


async def test_the_resume_check_runs_off_the_ui_thread(make_host, store, workspace, monkeypatch):
    """Reading a large session takes a while: the picker says so and stays live meanwhile."""
    import threading

    release, calls = threading.Event(), []
    real_check = store.check

    def slow_check(session_id):
        calls.append(session_id)
        release.wait(5)
        return real_check(session_id)

    monkeypatch.setattr(store, "check", slow_check)
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen) and app.screen.opening == IDS["bcd"]
        assert _status(app).startswith("Opening “")
        await pilot.press("enter")  # a second Enter while the first is checked: nothing more
        await pilot.pause()
        release.set()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert calls == [IDS["bcd"]]
        assert app.results == [IDS["bcd"]]


async def test_four_hello_sessions_can_be_told_apart(make_host, tmp_path, workspace, monkeypatch):
    """Same title, same answer: the id and the age tell them apart, and the id is what --resume takes."""
    clock = [T0]
    monkeypatch.setattr(store_module, "now", lambda: clock[0])
    with SessionStore.open(tmp_path / "hello-data") as hello_store:
        for n, minutes in enumerate((1, 7, 90, 3000)):
            clock[0] = T0 - minutes * 60
            sid = hello_store.create_session(
                model="offline", workspace=workspace, title="hello", session_id=f"{n}" * 32
            )
            turn = [ModelRequest(parts=[UserPromptPart("hello")]), ModelResponse(parts=[TextPart("Hello!")])]
            hello_store.save_turn(sid, new_transcript=turn, context=turn, new_events=[])
        now = datetime.fromtimestamp(T0, UTC)
        app = make_host(lambda: SessionsScreen(hello_store, workspace, now=now))
        async with app.run_test(size=TERMINAL) as pilot:
            await _listed(pilot)
            table = app.screen.query_one("#sessions-table", DataTable)
            rows = [tuple(str(cell) for cell in table.get_row_at(i)) for i in range(table.row_count)]
    assert [r[1] for r in rows] == ["00000000", "11111111", "22222222", "33333333"]
    assert [r[3] for r in rows] == ["1 min ago", "7 min ago", "1 h ago", "2 d ago"]
    assert all(r[2] == "hello  › Hello!" for r in rows)
    assert len(set(rows)) == 4


class _Held:
    """Wraps a store method: each call says it started, waits for `release` (at most 20 s, so a
    call held on the UI loop fails the test instead of hanging it), then runs."""

    def __init__(self, method) -> None:
        self.method, self.started, self.release, self.returned = method, threading.Event(), threading.Event(), []

    def __call__(self, *args):
        self.started.set()
        self.release.wait(20)
        self.returned.append(args)
        return self.method(*args)


async def test_the_list_is_read_off_the_ui_thread(make_host, store, workspace, monkeypatch):
    """The list's preview queries may wait on the store's lock (a large session loading): Esc works meanwhile."""
    held = _Held(store.preview)
    monkeypatch.setattr(store, "preview", held)
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        try:
            await wait_until(pilot, held.started.is_set, what="the previews read")
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.results == [None], what="the picker closed")
            assert held.returned == [], "Esc waited for the list"
        finally:
            held.release.set()


async def test_a_delete_runs_off_the_ui_thread(make_host, store, workspace, monkeypatch):
    held = _Held(store.delete)
    monkeypatch.setattr(store, "delete", held)
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        try:
            await _ask_delete(pilot)
            await pilot.press("y")
            await wait_until(pilot, held.started.is_set, what="the delete under way")
            await pilot.press("down")  # the picker moves on while the store deletes
            await wait_until(pilot, lambda: _status(app).startswith(IDS["bcd"]), what="the next row's status")
            assert held.returned == [], "the key waited for the delete"
        finally:
            held.release.set()
        await wait_until(
            pilot, lambda: len(app.screen.query_one("#sessions-table", DataTable).rows) == 3, what="3 rows"
        )
        assert [m.id for m in store.list_sessions(workspace)] == [IDS["bcd"], IDS["cde"], IDS["def"]]


@pytest.mark.slow
async def test_a_session_open_in_another_process_is_not_deleted(make_host, store, workspace, tmp_path):
    # Issue 33: Delete deleted a session another co-tui had open; that process's next save failed and
    # its conversation survived only as a rescue file.
    import subprocess
    import sys

    from cli_process import ROOT

    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_CLAIM, str(tmp_path / "data"), IDS["abc"]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": str(ROOT)},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        app = _picker(make_host, store, workspace)
        async with app.run_test(size=TERMINAL) as pilot:
            await _listed(pilot)
            await wait_until(pilot, lambda: IDS["abc"] in _status(app), what="the status names the highlighted row")
            await _keys(pilot, "delete")  # refused at once (issue 43 item 10): no "removed for good?" first
            assert not isinstance(app.screen, ConfirmDeleteScreen)
            status = _status(app)
            assert "another co-tui process" in status, status
            assert f"(pid {holder.pid})" in status and "quit co-tui there" in status and "nothing was deleted" in status
            assert IDS["abc"] in [m.id for m in store.list_sessions(workspace)]
            holder.communicate("")  # the other process ends: its lock goes with it
            await _ask_delete(pilot)
            await _keys(pilot, "y")
            await wait_until(pilot, lambda: IDS["abc"] not in [m.id for m in store.list_sessions(workspace)])
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


HOLD_CLAIM = """
import sys
from pathlib import Path
from co_tui.session.session_lock import claim_session
claim = claim_session(Path(sys.argv[1]), sys.argv[2])
print("held", flush=True)
sys.stdin.read()
"""


# --- search (issue 32 item 14) ---------------------------------------------------------------------


def _rows(app) -> list[str]:
    table = app.screen.query_one("#sessions-table", DataTable)
    return [str(table.get_row_at(i)[1]) for i in range(table.row_count)]


async def _search(pilot, text: str) -> None:
    """`/`, then `text` typed in one burst; wait until the list shows that search."""
    await pilot.press("slash", *text)
    await wait_until(pilot, lambda: pilot.app.screen.searched == text and pilot.app.screen.loaded, what="the search")


async def test_search_finds_titles_and_saved_text_as_you_type(make_host, store, workspace):
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        await _search(pilot, "build")  # a title; its `d` goes to the field, not to delete
        assert not isinstance(app.screen, ConfirmDeleteScreen)
        assert _rows(app) == [IDS["bcd"][:8]]
        assert _status(app).startswith("1 session matches")
        table = app.screen.query_one("#sessions-table", DataTable)
        title = table.get_row_at(0)[2]
        assert title.plain == "Why does the build fail on CI?\n  › file_0.py defines a handler."  # its preview
        await pilot.press(*["backspace"] * 5, "2")  # only the first session has a file_2
        await wait_until(pilot, lambda: app.screen.searched == "2" and app.screen.loaded, what="the second search")
        assert _rows(app) == [IDS["abc"][:8]]
        title = table.get_row_at(0)[2]
        assert title.plain.startswith("Refactor the request handler and add tests\n  › ")
        hits = [title.plain[span.start : span.end] for span in title.spans if "bold" in str(span.style)]
        assert hits == ["2"] and "file_2.py" in title.plain.split("\n")[1]
        await pilot.press("enter")  # resumes the highlighted result from the field
        await wait_until(pilot, lambda: app.results == [IDS["abc"]], what="the resume")


async def test_search_arrows_escape_and_hostile_text(make_host, store, workspace):
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        await _search(pilot, "defines")  # every session's answers
        assert _rows(app) == [IDS[k][:8] for k in ("abc", "bcd", "cde", "def")]
        await _keys(pilot, "down", "down", "down", "up")
        assert app.screen.query_one("#sessions-table", DataTable).cursor_row == 2
        assert isinstance(app.focused, Input)  # the arrows moved the results, the field kept the keys
        await pilot.press(*["backspace"] * 7, *'NEAR("a" OR *')
        await wait_until(pilot, lambda: app.screen.searched == 'NEAR("a" OR *' and app.screen.loaded)
        assert _rows(app) == []
        assert _status(app).startswith('No session in this workspace matches “NEAR("a" OR *”')
        await _keys(pilot, "escape")  # clears the search: the whole list again, the table has the keys
        await wait_until(pilot, lambda: app.screen.searched == "" and len(_rows(app)) == 4, what="the list")
        assert isinstance(app.focused, DataTable) and app.results == []
        await _keys(pilot, "escape")
        assert app.results == [None]


def test_search_snapshot(snap_compare, make_host, store, workspace):
    async def search(pilot):
        await _listed(pilot)
        await _search(pilot, "handler")
        # The field shown by `/` is laid out a frame later: under load the snapshot drew it as wide as
        # its text (`│▎handler│`).
        field = pilot.app.screen.query_one("#sessions-search")
        await wait_until(
            pilot,
            lambda: field.size.width > 2 * len("handler"),  # its full width is the dialog's, ~90 columns
            what=lambda: f"the search field laid out: {field.size}",
        )
        await pilot.pause()

    assert snap_compare(_picker(make_host, store, workspace), terminal_size=TERMINAL, run_before=search)


async def test_slash_and_words_in_one_burst_all_reach_the_field(make_host, store, workspace):
    """Keys queued behind `/` (a fast typist, tmux's one write) reached the table before focus moved
    to the field: the search stayed empty, and a `d` among them asked to delete."""
    from textual import events

    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        for key, char in (("slash", "/"), ("b", "b"), ("u", "u"), ("i", "i"), ("l", "l"), ("d", "d")):
            event = events.Key(key, char)
            event.set_sender(app)
            app._driver.send_message(event)  # all queued before any is handled, as a burst arrives
        await wait_until(
            pilot,
            lambda: getattr(app.screen, "searched", None) == "build" and app.screen.loaded,
            what=lambda: (
                f"the search: screen {app.screen!r}, searched {getattr(app.screen, 'searched', None)!r}, "
                f"field {getattr(app.screen.query('#sessions-search').first(), 'value', None) if app.screen.query('#sessions-search') else None!r}"
            ),
        )
        assert not isinstance(app.screen, ConfirmDeleteScreen)
        assert _rows(app) == [IDS["bcd"][:8]]


async def test_a_fork_says_which_session_it_came_from(make_host, store, workspace):
    fork = store.fork_whole(IDS["abc"], "the forked one")
    app = make_host(lambda: SessionsScreen(store, workspace, now=NOW))
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        table = app.screen.query_one(DataTable)
        rows = {str(table.get_row_at(i)[1]): str(table.get_row_at(i)[2]) for i in range(table.row_count)}
        assert rows[fork[:8]].startswith(f"the forked one ⑂fork of {IDS['abc'][:8]} after 3 turns")
        assert "⑂" not in rows[IDS["abc"][:8]]


async def test_a_word_typed_at_the_list_searches_and_never_deletes(make_host, store, workspace):
    """Issue 32: typing `daily` with a session highlighted opened the delete question with its `d`
    and answered it with its `y`: the session was gone. Typing at the list searches; only Delete
    deletes."""
    app = _picker(make_host, store, workspace)
    async with app.run_test(size=TERMINAL) as pilot:
        await _listed(pilot)
        await _keys(pilot, "down", "d", "a", "i", "l", "y")
        assert isinstance(app.screen, SessionsScreen)
        assert app.screen.query_one("#sessions-search", Input).value == "daily"
        assert len(store.list_sessions(workspace)) == 4
