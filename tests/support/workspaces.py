"""Workspaces on disk: what the `workspace` fixture (tests/conftest.py) writes, and the trees tests use."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

# A small project for the agent's tools: a README with sections, a package, docs with TODOs, a
# binary file and a nested directory.
DEMO_PROJECT: Mapping[str, str | bytes] = {
    "README.md": "# Demo project\n\nA small demo.\n\n## Install\n\nRun make.\n\n## Usage\n\nRun it.\n",
    "pkg/__init__.py": "",
    "pkg/core.py": "class Engine:\n    pass\n\n\ndef start():\n    return Engine()  # TODO: configure\n",
    "docs/guide.md": "Guide\nTODO: write the guide\nmore text\nTODO: examples\n",
    "logo.png": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
}

HELLO: Mapping[str, str | bytes] = {"hello.txt": "hi\n"}  # what the offline model's `read` reads


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Create `root` and write `files` (relative path → text or bytes) under it; return `root`."""
    root.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root
