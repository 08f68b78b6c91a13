"""`exit_code_for`: the one mapping from a failure to open a session to the process's exit status,
shared by `open_session` (print mode, the CLI) and the TUI's start-up worker."""

from __future__ import annotations

import pytest

from co_tui.agent.models import ModelConfigError
from co_tui.session.opening import OpenSessionError, exit_code_for
from co_tui.store.errors import StoreCorrupt, StoreError, StoreLocked


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (OpenSessionError("--resume needs a session id here", 2), 2),
        (OpenSessionError("no model", 1), 1),
        (StoreError("data dir unusable"), 2),
        (StoreCorrupt("damaged"), 2),
        (StoreLocked("held by another co-tui"), 2),
        (ModelConfigError("OPENAI_API_KEY is not set"), 1),
        (RuntimeError("anything else"), 1),
    ],
)
def test_exit_code_for(exc: BaseException, code: int) -> None:
    assert exit_code_for(exc) == code
