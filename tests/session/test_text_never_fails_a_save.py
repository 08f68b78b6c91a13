"""No text makes a save or a rescue copy fail (issue 40, item 3), and a rescue copy is complete or
absent (items 3 and 12): a lone UTF-16 surrogate that reached the history anyway (an emoji's half)
is written as U+FFFD, a pair as its character, in a real SQLite file and a real rescue file."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from support.builders import chat_turn

from co_tui.session.export import write_private
from co_tui.session.history import History
from co_tui.session.writer import SaveInfo, SessionWriter
from co_tui.store.session_store import SessionStore

HALF = "half an emoji \ud83d here"
PAIR = "a split pair \ud83d\ude00 joined"


def _history() -> History:
    messages = chat_turn("first", "fine") + chat_turn(HALF, PAIR)
    return History(messages, messages)


def _info(tmp_path: Path) -> SaveInfo:
    return SaveInfo("0123456789abcdef0123456789abcdef", "t", "offline", tmp_path, 10, None)


def test_a_lone_surrogate_is_saved_as_a_replacement_character(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path / "data")
    try:
        writer = SessionWriter(store, created=False)
        history = _history()
        assert writer.save(history.snapshot(), _info(tmp_path)) is None
        assert not writer.unsaved(history.snapshot(), _info(tmp_path).session_id)
        loaded = store.load(_info(tmp_path).session_id)
        texts = [m.parts[0].content for m in loaded.transcript]
        assert texts == ["first", "fine", "half an emoji \ufffd here", "a split pair 😀 joined"]
    finally:
        store.close()


def test_the_rescue_copy_of_a_lone_surrogate_is_complete(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path / "data")
    try:
        path = SessionWriter(store, created=False).write_rescue_copy(_history().snapshot(), _info(tmp_path))
    finally:
        store.close()
    assert path is not None and path.name.startswith("rescued-")
    document = json.loads(path.read_text(encoding="utf-8"))
    words = json.dumps(document["transcript"], ensure_ascii=False)
    assert "half an emoji \ufffd here" in words and "a split pair 😀 joined" in words
    assert [p.name for p in path.parent.iterdir() if p.name.startswith((".co-tui-", "rescued-"))] == [path.name]


def test_a_failed_write_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk mid-write (ENOSPC injected at the write call, after a first part went out): the
    copy is not there at all, neither empty nor cut, and nothing staged is left behind."""
    real_write = os.write
    calls = []

    def full_disk(fd: int, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data)[:10])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_private(tmp_path / "rescued-x.json", "x" * 1000)
    monkeypatch.undo()
    assert len(calls) == 2
    assert list(tmp_path.iterdir()) == []
    assert write_private(tmp_path / "rescued-x.json", "whole").read_text() == "whole"
