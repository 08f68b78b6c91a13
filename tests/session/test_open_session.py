"""`open_session` as the front ends use it: a title given up front, and a one-shot session (print
mode) whose errors do not promise what only a running process keeps."""

from __future__ import annotations

from pathlib import Path

from co_tui.config import load_settings
from co_tui.session.applying import KEPT_IN_MEMORY
from co_tui.session.events import ErrorEvent
from co_tui.session.opening import open_session, quit_lines
from co_tui.session.session_saves import make_title


async def _storage_errors(session) -> list[str]:
    return [e.message async for e in session.run_turn("hello") if isinstance(e, ErrorEvent) and e.kind == "storage"]


async def test_a_title_names_a_new_session_and_stays(tmp_path: Path) -> None:
    given = "summarise this log\n" + "x" * 200
    session = open_session(load_settings(), tmp_path, title=given)
    assert session.title == make_title(given)
    assert not await _storage_errors(session)
    assert session.title == make_title(given), "the first prompt does not rename it"
    again = open_session(load_settings(), tmp_path, resume_id=session.id[:8], title="another")
    assert again.title == make_title(given), "a resumed session keeps its own title"


async def test_a_failed_save_says_kept_in_memory_only_where_it_is(tmp_path: Path) -> None:
    for one_shot in (False, True):
        session = open_session(load_settings(), tmp_path, one_shot=one_shot)
        assert session.store is not None
        session.store.close()  # every save fails from now on
        [message] = await _storage_errors(session)
        assert message.endswith(KEPT_IN_MEMORY) != one_shot, message
        assert session.unsaved(), "the database lacks the turn"
        stdout_line, stderr_line = quit_lines(session)
        assert stdout_line is None and stderr_line is not None and "rescued-" in stderr_line
