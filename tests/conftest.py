"""Isolation for every test: config and data go to temp dirs; no real provider is reachable.

pydantic-ai refuses every request to a real provider model (`ALLOW_MODEL_REQUESTS = False`, as
oterm's suite does): a test that would reach one by mistake fails at once. Tests of the provider
path (tests/providers/) allow it against their loopback server. Hypothesis runs the profile
`HYPOTHESIS_PROFILE` names (tests/support/examples.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pydantic_ai.models
import pytest
import textual.constants
from support.examples import register_profiles
from support.shared_css import share_parsed_css
from support.workspaces import write_tree

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

# Hypothesis profiles: `ci` by default (the counts the docs state), `dev` with HYPOTHESIS_PROFILE=dev.
register_profiles()

# Textual determinism for snapshot and pilot tests: no animations, no spinner stepping on a clock.
# pytest-textual-snapshot imports Textual before this module, and Textual reads the variable once at
# its import (textual.constants): it ran every app with animations on, so a snapshot of a busy app
# drew whichever spinner frame the clock had reached. The processes the tests start read the variable.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
textual.constants.TEXTUAL_ANIMATIONS = textual.constants._get_textual_animations()

# Each test app parsed all of Textual's and co-tui's CSS again (~25 ms of CPU an app): parsed once
# per process instead, per theme (support/shared_css.py).
share_parsed_css()


@pytest.hookimpl(trylast=True)  # after `-m` and `-k` deselected theirs
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The `slow` tests first, dealt evenly over the workers' first tests. xdist's `worksteal` gives
    each worker a contiguous share of this order and lets an idle one steal the end of another's
    queue: in file order, a worker whose share held several tmux walks ran them one after another
    while the others had finished, and the last minute of the suite was one or two workers busy.
    Dealt out first, the long tests run side by side from the start and the short ones fill in
    behind them. Tests sharing a module-scoped fixture stay together (on one worker it runs once).
    Every worker computes the same order, as xdist requires."""
    from itertools import islice

    def group(item: pytest.Item) -> str:
        defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        shared = any(d and d[-1].scope == "module" for d in defs.values())
        return item.nodeid.split("::")[0] if shared else item.nodeid

    slow: dict[str, list[pytest.Item]] = {}
    fast = []
    for item in items:
        (slow.setdefault(group(item), []) if item.get_closest_marker("slow") else fast).append(item)
    if not slow:
        return
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    left, order, rest = len(items), [], iter(fast)
    groups = list(slow.values())
    for k in range(workers):  # xdist's first hand-out: worker k gets the next `left // (workers - k)` tests
        size = left // (workers - k)
        left -= size
        mine = [item for g in groups[k::workers] for item in g]
        order += mine + list(islice(rest, max(0, size - len(mine))))
    items[:] = order + list(rest)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection built (every test module, Textual, pydantic-ai, Hypothesis): it lives
    as long as the worker, and a full collection would walk it again each time. The TUI runs one
    after every turn (co_tui/tui/gc_pause.py), which cost ~0.15 s a turn in a test process."""
    import gc

    gc.collect()
    gc.freeze()


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    """After each test, collect its garbage and freeze what outlives it, as after collection. A TUI
    test's app froze its start-up objects (gc_pause.py), so the widgets its turns added stay
    reachable from them, and Textual's caches keep strips and styles: the heap a worker's full
    collections walked grew test by test (45k → 170k objects over 44 TUI tests, each collection
    0.05 → 0.2 s), and the TUI tests' CPU time with it. Frozen, they are walked no more; nothing
    more is kept than before (they were never freed)."""
    import gc

    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Temp config file and data dir; provider keys and CO_TUI_* settings from the host removed."""
    base = tmp_path_factory.mktemp("co-tui-env")
    for name in list(os.environ):
        if name.startswith("CO_TUI_") or name.endswith("_API_KEY") or name in ("OPENAI_BASE_URL", "OLLAMA_BASE_URL"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CO_TUI_CONFIG_FILE", str(base / "config.toml"))
    monkeypatch.setenv("CO_TUI_DATA_DIR", str(base / "data"))
    return base


@pytest.fixture
def workspace_name() -> str:
    """The workspace folder's name (the chat header shows it): override it where a test needs another."""
    return "workspace"


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    """What the workspace holds (relative path → content): nothing here; a folder's conftest or a
    module overrides this fixture to give its tests their files (support/workspaces.py has trees)."""
    return {}


@pytest.fixture
def workspace(tmp_path: Path, workspace_name: str, workspace_files: dict[str, str | bytes]) -> Path:
    """The directory co-tui works in (every test's, one fixture): `tmp_path/<workspace_name>` holding
    `workspace_files`."""
    return write_tree(tmp_path / workspace_name, workspace_files)
