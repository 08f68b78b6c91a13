"""What print mode sends: the `-p` prompt and standard input, as Claude Code combines them.

- `-p PROMPT` with a terminal on stdin: the prompt alone.
- `-p` with no prompt, or `-p -`: stdin is the prompt (a terminal there, for a bare `-p`, is a
  usage error: there is nothing to read).
- `-p PROMPT` with stdin piped or redirected: stdin is attached as context before the prompt.

Input over `STDIN_CAP_CHARS` is cut to that size, and both the user (a line on stderr) and the
model (a note in the text) are told, so nothing is cut silently (docs/context-governance.md).
"""

from __future__ import annotations

import codecs
import os
import select
from collections.abc import Callable
from typing import BinaryIO

STDIN_ARG = "-"
"""`-p -`: read the prompt from stdin, even from a terminal (until end of file, Ctrl+D)."""

BARE_P = "\0stdin"
"""What a bare `-p` stands for (no argument can hold a NUL): the prompt is on stdin, which must
not be a terminal."""

STDIN_CAP_CHARS = 100_000
"""At most this much of stdin is sent (~25k tokens): a larger paste would not fit most budgets."""

STDIN_WAIT_S = 3.0
"""With a prompt given, how long an open but silent pipe on stdin is waited for (Claude Code waits
3 s too): a harness that leaves stdin open without writing to it must not hang print mode."""

_CHUNK = 65_536


class PromptUsageError(Exception):
    """The prompt cannot be formed (a terminal on stdin and no prompt, or nothing to send): one line."""


def read_capped(stream: BinaryIO, cap: int = STDIN_CAP_CHARS) -> tuple[str, int]:
    """All of `stream` decoded as UTF-8 (bad bytes replaced): (the first `cap` characters, the
    total number of characters). Only the kept part is held in memory."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    kept: list[str] = []
    kept_chars = total = 0
    while True:
        chunk = stream.read(_CHUNK)
        text = decoder.decode(chunk or b"", final=not chunk)
        total += len(text)
        if kept_chars < cap and text:
            piece = text[: cap - kept_chars]
            kept.append(piece)
            kept_chars += len(piece)
        if not chunk:
            return "".join(kept), total


def _waits_for_input(stream: BinaryIO, timeout: float) -> bool:
    """True when `stream` has data or end-of-file within `timeout` s (files and /dev/null at once);
    False for a pipe or socket that stays open and silent."""
    try:
        ready, _, _ = select.select([stream.fileno()], [], [], timeout)
    except (OSError, ValueError):  # no fileno (a test double) or not selectable: just read it
        return True
    return bool(ready)


def _capped_note(kept: str, total: int, what: str) -> tuple[str, str | None]:
    """`kept` (as read) with a note for the model when it is short of `total`, and the line for
    the user (None when nothing was cut)."""
    if total <= len(kept):
        return kept, None
    note = f"\n[…{what} cut: the first {len(kept):,} of {total:,} characters are shown]"
    return kept + note, f"{what} is {total:,} characters: sending the first {len(kept):,}"


def build_prompt(
    prompt: str,
    stdin: BinaryIO | None,
    *,
    is_tty: bool,
    warn: Callable[[str], None],
    cap: int = STDIN_CAP_CHARS,
    wait_s: float = STDIN_WAIT_S,
) -> tuple[str, str | None]:
    """(The text of print mode's turn, a session title when that text should not give it) from
    `-p`'s value (`BARE_P` for a bare `-p`, `STDIN_ARG` for `-p -`) and stdin (`is_tty`: a terminal is
    attached there). `warn(line)` tells the user what was cut or skipped. Raises
    `PromptUsageError` when there is no prompt to send.
    """
    if prompt in (BARE_P, STDIN_ARG):
        if stdin is None or (is_tty and prompt == BARE_P):
            raise PromptUsageError('-p needs a prompt: give one (-p "…") or pipe it on stdin')
        text, total = read_capped(stdin, cap)
        text, line = _capped_note(text, total, "the prompt on stdin")
        if line:
            warn(line)
        if not text.strip():
            raise PromptUsageError("-p needs a non-empty prompt (stdin was empty)")
        return text.rstrip(), None
    if not prompt.strip():
        raise PromptUsageError("-p needs a non-empty prompt")
    if stdin is None or is_tty:
        return prompt, None
    if not _waits_for_input(stdin, wait_s):
        warn(f"no input on stdin after {wait_s:g} s: running without it (use < /dev/null to skip the wait)")
        return prompt, None
    attached, total = read_capped(stdin, cap)
    if not attached.strip():
        return prompt, None
    attached, line = _capped_note(attached, total, "stdin")
    if line:
        warn(line)
    return f"<stdin>\n{attached.rstrip()}\n</stdin>\n\n{prompt}", f"{prompt} (with stdin)"


def stdin_is_tty(stream: BinaryIO | None) -> bool:
    """Whether `stream` is a terminal (a closed or missing stdin is not)."""
    try:
        return stream is not None and os.isatty(stream.fileno())
    except (OSError, ValueError):
        return False
