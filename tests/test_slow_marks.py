"""Every test that starts tmux, co-tui or another Python process itself is marked `slow`, so that
`make test-fast` (`-m "not slow"`) leaves out exactly those (pyproject.toml's marker, README).

Read from the test modules' source: a test is taken to start one when its body, or a function or
fixture of its module it uses, names one of the helpers below (or `sys.executable`, a Python
process of its own), or a name the module imported one of them as (`run_co_tui as co_tui`). A process started by co-tui's own code under test (a `!command`, a search's
child) does not count: that is the code being tested, and cheap."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).parent

STARTS_A_PROCESS = re.compile(
    r"\b(run_co_tui|run_python|start_co_tui|Tmux|MCPServerStdio|demo_server|sys\.executable)\b"
)


def _is_slow(decorators: list[ast.expr]) -> bool:
    return any("mark.slow" in ast.unparse(d) for d in decorators)


def _module_slow(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets):
            return "mark.slow" in ast.unparse(node.value)
    return False


def _aliases(tree: ast.Module) -> re.Pattern[str] | None:
    """The names the module binds a process helper to (`from cli_process import run_co_tui as
    co_tui`), as a pattern; None when it renames none."""
    names = {
        alias.asname
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname and STARTS_A_PROCESS.fullmatch(alias.name)
    }
    return re.compile(rf"\b({'|'.join(sorted(names))})\b") if names else None


def unmarked_process_tests(path: Path, root: Path = TESTS.parent) -> list[str]:
    """The tests of module `path` that start a process (as above) and are not marked `slow`, as
    node ids relative to `root`."""
    source = path.read_text()
    tree = ast.parse(source)
    if _module_slow(tree):
        return []
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    # Which functions start a process, directly or through a function they use: a fixed point
    # over the module's call graph, each body read once (walking every path again per test was
    # the slowest non-process test in the suite).
    uses = {
        name: ({a.arg for a in node.args.args} | {n.id for n in ast.walk(node) if isinstance(n, ast.Name)})
        & functions.keys() - {name}
        for name, node in functions.items()
    }
    aliases = _aliases(tree)

    def names_one(node: ast.AST) -> bool:
        text = ast.get_source_segment(source, node) or ""
        return bool(STARTS_A_PROCESS.search(text) or (aliases and aliases.search(text)))

    starting = {name for name, node in functions.items() if names_one(node)}
    grown = True
    while grown:
        more = {name for name, used in uses.items() if name not in starting and used & starting}
        starting |= more
        grown = bool(more)

    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    tests = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    tests += [m for c in classes if not _is_slow(c.decorator_list) for m in c.body if isinstance(m, ast.FunctionDef)]
    return [
        f"{path.relative_to(root)}::{t.name}"
        for t in tests
        if t.name.startswith("test_") and not _is_slow(t.decorator_list) and t.name in starting
    ]


def test_every_test_that_starts_a_process_is_marked_slow() -> None:
    modules = [path for path in sorted(TESTS.rglob("test_*.py")) if path != Path(__file__)]  # not its own probe
    unmarked = [test for path in modules for test in unmarked_process_tests(path)]
    assert not unmarked, "mark these @pytest.mark.slow (they start a process of their own):\n" + "\n".join(unmarked)


def test_the_check_finds_an_unmarked_process_test(tmp_path: Path) -> None:
    """The check itself: a helper that starts co-tui, used by an unmarked test, is found; a marked
    one and one that starts nothing are not."""
    module = tmp_path / "test_probe.py"
    module.write_text(
        "import pytest\n"
        "from cli_process import run_co_tui\n\n"
        "def _print(*args):\n    return run_co_tui('-p', *args)\n\n"
        "def test_unmarked():\n    assert _print('hi').returncode == 0\n\n"
        "@pytest.mark.slow\ndef test_marked():\n    assert _print('hi').returncode == 0\n\n"
        "def test_in_process():\n    assert 1 + 1 == 2\n"
    )
    assert unmarked_process_tests(module, tmp_path) == ["test_probe.py::test_unmarked"]
    # A helper imported under another name is still found (it hid print-mode processes before);
    # the in-process call is not a process.
    renamed = tmp_path / "test_renamed.py"
    renamed.write_text(
        "from cli_process import call_co_tui\n"
        "from cli_process import run_co_tui as co_tui\n\n"
        "def test_process():\n    assert co_tui('-p', 'hi').returncode == 0\n\n"
        "def test_in_process():\n    assert call_co_tui('-p', 'hi').returncode == 0\n"
    )
    assert unmarked_process_tests(renamed, tmp_path) == ["test_renamed.py::test_process"]
