"""The package's import graph, read with `ast` (nothing is imported): no cycles, and only the module
that opens sessions imports `session/chat.py`.

Counted: every import — at module level, inside functions (a function's import runs when it is
called, and a cycle through it is one a refactor can make real) and under `if TYPE_CHECKING:`
(they never run, but a cycle of names is a cycle of design: two modules that each need the other's
types). A lazily resolved export (`co_tui.governance`'s `_EXPORTS`, PEP 562) counts as an import
of the module it resolves to.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import co_tui

ROOT = Path(co_tui.__file__).parent
PACKAGE = "co_tui"


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The parsed module, read once per worker: every check here walks the whole package."""
    return ast.parse(path.read_text())


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in ROOT.rglob("*.py")}


def _lazy_exports(path: Path) -> dict[str, str]:
    """A package's PEP 562 map of export name → submodule (`_EXPORTS = {...}`), if it has one."""
    for node in _tree(path).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id == "_EXPORTS" and getattr(node, "value", None) is not None:
            return dict(ast.literal_eval(node.value))  # type: ignore[arg-type]
    return {}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, *, type_only: bool) -> list[ast.Import | ast.ImportFrom]:
    """The imports of `tree` that run (`type_only` False) or only those under TYPE_CHECKING (True)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def walk(node: ast.AST, in_type_block: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for sub in child.body:
                    walk_one(sub, True)
                for sub in child.orelse:
                    walk_one(sub, in_type_block)
                continue
            walk_one(child, in_type_block)

    def walk_one(node: ast.AST, in_type_block: bool) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if in_type_block == type_only:
                found.append(node)
            return
        walk(node, in_type_block)

    walk(tree, False)
    return found


def _targets(name: str, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> set[str]:
    """The co_tui modules an import statement in module `name` loads."""
    out: set[str] = set()
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    base = node.module or ""
    if node.level:
        package = name if modules[name].name == "__init__.py" else name.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    if base not in modules:
        return out
    exports = _lazy_exports(modules[base]) if modules[base].name == "__init__.py" else {}
    for alias in node.names:
        if f"{base}.{alias.name}" in modules:
            out.add(f"{base}.{alias.name}")
        elif alias.name in exports:  # a submodule, or a module of another package named in full
            target = exports[alias.name]
            out.add(target if target.startswith(f"{PACKAGE}.") else f"{base}.{target}")
        else:
            out.add(base)
    return out


def import_graph(*, type_only: bool = False) -> dict[str, set[str]]:
    """Module → the co_tui modules it imports (see module docstring)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        for node in _imports(_tree(path), type_only=type_only):
            edges |= _targets(name, node, modules)
        graph[name] = edges - {name}
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_the_graph_sees_imports_inside_functions() -> None:
    """The reader is not vacuous: `opening.open_session` imports `chat` inside the function."""
    assert "co_tui.session.chat" in import_graph()["co_tui.session.opening"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_co_tui_has_no_import_cycles() -> None:
    running, typing_only = import_graph(), import_graph(type_only=True)
    assert find_cycles(running) == [], "imports that run"
    assert find_cycles({name: running[name] | typing_only[name] for name in running}) == [], "type-only imports too"


def test_only_the_module_that_opens_sessions_imports_chat() -> None:
    """`session/chat.py` is built by `session/opening.py` (`open_session`); everything else uses a
    session through its port — type-only imports included."""
    importers = {
        name
        for graph in (import_graph(), import_graph(type_only=True))
        for name, edges in graph.items()
        if "co_tui.session.chat" in edges
    }
    assert importers == {"co_tui.session.opening"}


FRONT_ENDS = ("co_tui.tui", "co_tui.print_mode", "co_tui.cli", "co_tui.cli_sessions", "co_tui.acp")


def test_front_ends_import_session_things_from_its_public_face_only() -> None:
    """The TUI, print mode and the CLI name session things through `co_tui.session` (its lazy
    exports), never its modules: what a front end may use is one list."""
    modules = _modules()
    reaching_in = sorted(
        f"{name}: {node.module}"
        for name, path in modules.items()
        if name.startswith(FRONT_ENDS)
        for type_only in (False, True)
        for node in _imports(_tree(path), type_only=type_only)
        # The store (`co_tui.store`) is the session's too: reached through `co_tui.session` alone.
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("co_tui.session.", "co_tui.store"))
    )
    assert reaching_in == []


_AGENT_OR_POLICY = ("co_tui.agent", "co_tui.governance")


def _agent_or_policy_imports(name: str, path: Path) -> list[str]:
    """Every import in module `name` (file `path`) that names `co_tui.agent` or `co_tui.governance`
    — in any form (`from co_tui.agent.x import …`, `import co_tui.governance.x`, `from co_tui import
    agent`, a relative one) and anywhere (module level, inside a function, under TYPE_CHECKING) — as
    `name: module`."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for type_only in (False, True):
        for node in _imports(_tree(path), type_only=type_only):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            else:
                base = package
                for _ in range(max(0, node.level - 1)):
                    base = base.rpartition(".")[0]
                base = (f"{base}.{node.module}" if node.module else base) if node.level else (node.module or "")
                named = [base] if base.startswith(_AGENT_OR_POLICY) else [f"{base}.{a.name}" for a in node.names]
            found += [f"{name}: {module}" for module in named if module.startswith(_AGENT_OR_POLICY)]
    return found


def test_the_check_sees_every_form_of_import(tmp_path: Path) -> None:
    """Not vacuous: each way of naming the two packages is found; the session's face is not."""
    source = tmp_path / "front.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import co_tui.agent.shell\n"
        "from co_tui import governance, session\n"
        "from ..agent import mentions\n"
        "from co_tui.session import ToolResult\n"
        "def later():\n    from co_tui.agent.mentions import AT\n"
        "if TYPE_CHECKING:\n    from co_tui.governance.events import HistoryTrimmed\n"
    )
    assert _agent_or_policy_imports("co_tui.tui.front", source) == [
        "co_tui.tui.front: co_tui.agent.shell",
        "co_tui.tui.front: co_tui.governance",
        "co_tui.tui.front: co_tui.agent",
        "co_tui.tui.front: co_tui.agent.mentions",
        "co_tui.tui.front: co_tui.governance.events",
    ]


def test_front_ends_import_neither_governance_nor_agent() -> None:
    """The TUI, print mode, the CLI and `co-tui acp` name the session's public face only
    (`co_tui.session`): what they show of a tool's output, of a turn's bars, of an approval, is a
    field the session fills or a value type it re-exports (docs/architecture.md, "Front ends see the
    public face only"). Imports inside functions and type-only ones count."""
    modules = _modules()
    assert [name for name in modules if name.startswith("co_tui.acp")], "the ACP package is seen"
    reaching = [
        line
        for name, path in sorted(modules.items())
        if name.startswith(FRONT_ENDS)
        for line in _agent_or_policy_imports(name, path)
    ]
    assert reaching == []


def test_agent_and_governance_import_nothing_above_them() -> None:
    """`agent/` and `governance/` sit below the session (docs/architecture.md, "Layers"): they import
    nothing from `co_tui.session`, the store or a front end — shared helpers live beside them
    (`co_tui/text.py`, `co_tui/redaction.py`)."""
    modules = _modules()
    upward = sorted(
        f"{name}: {node.module}"
        for name, path in modules.items()
        if name.startswith(("co_tui.agent", "co_tui.governance"))
        for type_only in (False, True)
        for node in _imports(_tree(path), type_only=type_only)
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith(("co_tui.session", "co_tui.store", "co_tui.tui", *FRONT_ENDS[1:]))
    )
    assert [name for name in modules if name.startswith("co_tui.governance")], "the package is seen"
    assert upward == []


def test_no_lazy_export_is_named_like_a_submodule() -> None:
    """A package that resolves exports lazily (PEP 562) must not export a name its own submodule
    has: importing that submodule sets the package's attribute to the module, `__getattr__` is no
    longer asked, and `from package import name` then gives the module, not the function (as
    `from co_tui.session import replay` did once `session/chat.py` had imported `session/replay.py`)."""
    modules = _modules()
    clashes = [
        f"{package}.{name}"
        for package, path in modules.items()
        if path.name == "__init__.py"
        for name in _lazy_exports(path)
        if f"{package}.{name}" in modules
    ]
    assert not clashes, "export names that are also submodules: " + ", ".join(clashes)
