"""Isolation for every test: config and data go to temp dirs; no real provider is reachable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = ROOT.parent / "shared" / "corpus" / "transcripts"

# Textual determinism for snapshot and pilot tests.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


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
