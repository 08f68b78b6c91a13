"""No test module imports from a conftest by name.

Every test folder's conftest is imported as the module `conftest`, so `from conftest import X`
gets whichever folder's conftest pytest loaded last: `pytest tests/tui tests/session` failed to
collect tests/tui (tests/session's conftest has no `QuietApp`). Shared helpers live in modules
with their own names (`quiet_app.py`, `tui_fakes.py`, `pilot_helpers.py`).
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
BY_NAME = re.compile(r"^\s*(from\s+conftest\s+import|import\s+conftest\b)", re.MULTILINE)


def test_no_test_module_imports_a_conftest_by_name() -> None:
    offenders = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != "conftest.py" and BY_NAME.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
    assert BY_NAME.search("    from conftest import QuietApp\n")  # the pattern does match the form it bans
