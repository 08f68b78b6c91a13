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
from support.workspaces import write_tree

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

# Hypothesis profiles: `ci` by default (the counts the docs state), `dev` with HYPOTHESIS_PROFILE=dev.
register_profiles()

# Textual determinism for snapshot and pilot tests: no animation, so the activity spinner stays on
# its first frame (a snapshot of a busy screen showed whichever frame its timer had reached). Textual
# reads the variable into `textual.constants` when first imported, which a plugin (the snapshot
# plugin) does before this file runs: the constant is set too, and `App()` reads it.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
textual.constants.TEXTUAL_ANIMATIONS = os.environ["TEXTUAL_ANIMATIONS"]  # type: ignore[assignment]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection built (every test module, Textual, pydantic-ai, Hypothesis): it lives
    as long as the worker, and a full collection would walk it again each time. The TUI runs one
    after every turn (co_tui/tui/gc_pause.py), which cost ~0.15 s a turn in a test process."""
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
