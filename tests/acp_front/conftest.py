"""The ACP tests run `co-tui acp` as a subprocess in a workspace with the demo project's files."""

from __future__ import annotations

import pytest
from support.workspaces import DEMO_PROJECT, HELLO


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    """The demo project (a README with sections, a package, docs), plus `hello.txt`."""
    return {**DEMO_PROJECT, **HELLO}
