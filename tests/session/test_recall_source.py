"""The session's side of `recall` (`recall_source.py`): what a recalled page is redacted of. The
redaction is loaded when the tool first runs, not when the session opens (issue 44)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from co_tui.session.history import History
from co_tui.session.recall_source import recall_source


def test_a_recalled_page_has_secret_looking_environment_values_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CO_TUI_TEST_API_KEY", "sk-test-0123456789abcdef")
    setup = SimpleNamespace(
        policy=SimpleNamespace(budget_tokens=8_000), settings=SimpleNamespace(tool_output_preview_chars=0)
    )
    source = recall_source(History(), setup)
    assert source.redact('{"key": "sk-test-0123456789abcdef"} and more') == '{"key": "[redacted]"} and more'
    assert source.redact("nothing secret here") == "nothing secret here"
