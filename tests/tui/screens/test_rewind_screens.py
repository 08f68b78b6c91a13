"""The rewind picker, its "what to put back" question and the branches tree, each on a bare host
app with its own stylesheet: rows, the files line, what Enter and Esc give back, and snapshots."""

from __future__ import annotations

from pilot_helpers import wait_until
from screen_host import TERMINAL, make_host, screen_env  # noqa: F401  (fixtures)
from textual.widgets import OptionList

from co_tui.session.branching import BranchRow, RewindPoint
from co_tui.session.file_rewind import FilesBack
from co_tui.session.history import BranchInfo
from co_tui.tui.screens.branches import BranchesScreen, tree_order
from co_tui.tui.screens.rewind import RewindChoice, RewindScreen

NOW = 1_800_000_000.0
POINTS = [
    RewindPoint(5, 12, "and now run the tests again\nwith -x", NOW - 40, 18_400),
    RewindPoint(4, 9, "fix the off-by-one in src/parser.py", NOW - 600, 14_100),
    RewindPoint(3, 6, "read src/parser.py and tell me what it does", NOW - 3_000, 9_800),
    RewindPoint(2, 2, "list the files", NOW - 7_300, 2_100),
    RewindPoint(1, 0, "hello", 0.0, 0, restorable=False),
]
FILES = {
    12: FilesBack(),
    9: FilesBack(("src/parser.py", "tests/test_parser.py"), 3, ("tests/test_parser.py",)),
    6: FilesBack(("src/parser.py", "tests/test_parser.py"), 4),
    2: FilesBack(("src/parser.py", "tests/test_parser.py"), 4),
}
ROWS = [
    BranchRow(BranchInfo(0, None, 0, 0, NOW - 9_000), False, 6, "and now run the tests again", NOW - 40),
    BranchRow(BranchInfo(1, 0, 9, 2, NOW - 500, 4), True, 5, "fix the off-by-one, keep the old name", NOW - 30),
    BranchRow(BranchInfo(2, 0, 2, 0, NOW - 400, 2), False, 3, "list only the python files", NOW - 200),
    BranchRow(BranchInfo(3, 1, 11, 2, NOW - 100, 5), False, 5, "", NOW - 100),
]


def _picker(make_host):
    return make_host(lambda: RewindScreen(POINTS, FILES, now=NOW))


def _rows(app) -> list[str]:
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_picker_lists_prompts_newest_first_and_says_what_files_can_go_back(make_host) -> None:
    app = _picker(make_host)
    async with app.run_test(size=TERMINAL) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen), what="the picker")
        rows = _rows(app)
        assert rows[0] == "turn 5 · just now · and now run the tests again · 18.4k tokens then"
        assert rows[1] == "turn 4 · 10 min ago · fix the off-by-one in src/parser.py · 14.1k tokens then"
        assert "not rewindable" in rows[4]
        files = lambda: str(app.screen.query_one("#rewind-files").render())  # noqa: E731
        assert "no file edits by the agent after it" in files() and "run_shell or MCP tools" in files()
        await pilot.press("down")
        assert "3 file edits after it can be put back (src/parser.py, tests/test_parser.py)" in files()
        assert "1 file changed since" in files()
        await pilot.press("up", "enter")  # no edits after turn 5: straight back with the conversation
        await wait_until(pilot, lambda: app.results, what="the choice")
        assert app.results == [RewindChoice(12)]


async def test_with_edits_after_it_the_picker_asks_what_to_put_back_and_esc_leaves_all(make_host) -> None:
    app = _picker(make_host)
    async with app.run_test(size=TERMINAL) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen), what="the picker")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "RewindWhatScreen", what="the question")
        await pilot.press("down", "down", "enter")  # code only
        await wait_until(pilot, lambda: app.results, what="the choice")
        assert app.results == [RewindChoice(9, conversation=False, code=True)]
    app = _picker(make_host)
    async with app.run_test(size=TERMINAL) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen), what="the picker")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.results, what="the picker closed")
        assert app.results == [None]


def test_the_tree_puts_each_branch_under_its_parent() -> None:
    assert [(depth, row.info.id) for depth, row in tree_order(ROWS)] == [(0, 0), (1, 1), (2, 3), (1, 2)]


async def test_enter_on_a_branch_switches_to_it(make_host) -> None:
    app = make_host(lambda: BranchesScreen(ROWS, now=NOW))
    async with app.run_test(size=TERMINAL) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BranchesScreen), what="the tree")
        rows = _rows(app)
        assert rows[1].startswith("● └ branch 1 · rewound to turn 4 of branch 0 · 5 turns · just now")
        assert rows[2].startswith("○   └ branch 3 · rewound to turn 5 of branch 1") and rows[2].endswith(
            "no prompt yet"
        )
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: app.results, what="the choice")
        assert app.results == [3]


def test_rewind_picker_snapshot(snap_compare, make_host) -> None:
    async def to_edits(pilot):
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, RewindScreen), what="the picker")
        await pilot.press("down")

    assert snap_compare(_picker(make_host), terminal_size=(110, 32), run_before=to_edits)


def test_rewind_what_snapshot(snap_compare, make_host) -> None:
    async def ask(pilot):
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, RewindScreen), what="the picker")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "RewindWhatScreen", what="the question")

    assert snap_compare(_picker(make_host), terminal_size=TERMINAL, run_before=ask)


def test_branches_snapshot(snap_compare, make_host) -> None:
    async def shown(pilot):
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, BranchesScreen), what="the tree")

    assert snap_compare(make_host(lambda: BranchesScreen(ROWS, now=NOW)), terminal_size=(120, 24), run_before=shown)
