"""What an approval shows of a call (agent/approval_text.py): nothing of the call can hide."""

from __future__ import annotations

import json

import pytest

from co_tui.agent.approval_text import SHOWN_MAX_CHARS, Segment, escape_segments, escaped, show_call
from co_tui.agent.file_edits import unified_diff


def test_blank_lines_between_two_commands_fold_into_one_note_naming_them() -> None:
    shown = show_call("run_shell", "touch pwned.txt;" + "\n" * 80 + "ls -la")
    assert [line.plain for line in shown.lines] == ["touch pwned.txt;", "⋯ 79 blank lines ⋯", "ls -la"]
    assert [line.kind for line in shown.lines] == ["plain", "note", "plain"]
    assert shown.summary == "run_shell · 81 lines (79 blank) · 102 characters"
    assert (shown.line_count, shown.chars) == (81, 102)


def test_one_blank_line_stays_a_blank_line() -> None:
    shown = show_call("run_shell", "a\n\nb")
    assert [line.plain for line in shown.lines] == ["a", "", "b"]


def test_control_and_format_characters_are_escaped_as_such_never_passed_through() -> None:
    command = "echo hi\x1b]0;pwned\x07\rrm -rf ~ \u202eexe.txt\u200b"
    [line] = show_call("run_shell", command).lines
    assert line.plain == "echo hi\\x1b]0;pwned\\x07\\rrm -rf ~ \\u202eexe.txt\\u200b"
    escapes = [s.text for s in line.segments if s.kind == "escape"]
    assert escapes == ["\\x1b", "\\x07", "\\r", "\\u202e", "\\u200b"]
    # A backslash sequence the model typed is text, not an escape: the two look different.
    assert escape_segments("printf '\\x1b'") == [Segment("printf '\\x1b'")]


def test_a_long_run_of_spaces_inside_a_line_is_folded_and_counted() -> None:
    [line] = show_call("run_shell", "ls" + " " * 300 + "; rm -rf build").lines
    assert line.plain == "ls⟨300 spaces⟩; rm -rf build"
    assert [s.kind for s in line.segments] == ["text", "gap", "text"]
    assert escape_segments("a" + " " * 15 + "b") == [Segment("a" + " " * 15 + "b")]


def test_an_mcp_call_lists_each_argument_with_its_head_and_size_above_the_box() -> None:
    args = {"reason": "." * 6000, "path": "/etc/passwd"}
    text = f"demo_wipe {json.dumps(args)}"
    shown = show_call("demo_wipe", text)
    assert shown.summary == f"demo_wipe · 2 arguments · 1 line · {len(text):,} characters"
    assert [f.plain for f in shown.facts] == ["reason: " + "." * 48 + "… (6,000 characters)", "path: /etc/passwd"]
    assert [line.plain for line in shown.lines] == [
        "{",
        '  "reason": "' + "." * 6000 + '",',
        '  "path": "/etc/passwd"',
        "}",
    ]


def test_many_arguments_are_counted_past_the_first_four() -> None:
    args = {f"k{i}": i for i in range(7)}
    shown = show_call("srv_tool", f"srv_tool {json.dumps(args)}")
    assert [f.plain for f in shown.facts][-1] == "+ 3 more arguments in the box"


def test_an_argument_with_a_newline_or_escape_shows_it_escaped_in_its_fact() -> None:
    shown = show_call("srv_tool", 'srv_tool {"cmd": "ok\\nrm -rf /\\u001b[2J"}')
    assert shown.facts[0].plain == "cmd: ok\\nrm -rf /\\x1b[2J"


def test_text_that_is_not_tool_and_json_is_shown_as_it_is() -> None:
    shown = show_call("srv_tool", "srv_tool not json")
    assert shown.facts == () and [line.plain for line in shown.lines] == ["srv_tool not json"]


def test_a_huge_call_is_shown_up_to_the_cap_and_says_how_much_is_not() -> None:
    text = "x" * (SHOWN_MAX_CHARS + 1234)
    shown = show_call("run_shell", text)
    assert shown.lines[-1].plain == "… 1,234 more characters not shown"
    assert shown.summary.endswith(f"{len(text):,} characters")


def test_escaped_is_one_line() -> None:
    assert escaped("a\nb\x1bc") == "a\\nb\\x1bc"


# --- what draws nothing, line separators and line endings (issue 40, item 8) -----------------------

BLANK_RUNS = [
    ("braille blank", "\u2800", "\\u2800"),
    ("no-break space", "\u00a0", "\\xa0"),
    ("zero-width space", "\u200b", "\\u200b"),
    ("ideographic space", "\u3000", "\\u3000"),
    ("em space", "\u2003", "\\u2003"),
    ("Hangul filler", "\u3164", "\\u3164"),
    ("word joiner", "\u2060", "\\u2060"),
    ("variation selector", "\ufe0f", "\\ufe0f"),
]


@pytest.mark.parametrize(("name", "char", "mark"), BLANK_RUNS, ids=[r[0] for r in BLANK_RUNS])
def test_a_run_of_a_blank_character_is_one_counted_marker_and_what_follows_shows(name, char, mark) -> None:
    [line] = show_call("run_shell", "echo hello" + char * 3000 + "; touch x").lines
    assert line.plain == f"echo hello⟨3,000 × {mark}⟩; touch x"
    assert [s.kind for s in line.segments] == ["text", "gap", "text"]


@pytest.mark.parametrize(("name", "char", "mark"), BLANK_RUNS, ids=[r[0] for r in BLANK_RUNS])
def test_one_blank_character_is_an_escape(name, char, mark) -> None:
    assert escape_segments(f"a{char}b") == [Segment("a"), Segment(mark, "escape"), Segment("b")]


def test_lines_of_no_break_spaces_are_not_blank_rows() -> None:
    shown = show_call("run_shell", "echo hi\n" + "\u00a0\u00a0\n" * 80 + "touch x")
    assert all(line.plain for line in shown.lines)  # no row draws blank
    assert shown.lines[1].plain == "\\xa0\\xa0" and shown.lines[-1].plain == "touch x"


def diff_of(before: str, after: str) -> list[tuple[str, str]]:
    shown = show_call("edit_file", unified_diff("f.txt", before, after), path="f.txt")
    return [(line.kind, line.plain) for line in shown.lines]


DIFFS = [
    (
        "a carriage return inside a line",
        "a\nb\n",
        "a\nb\rc\n",
        [
            ("hunk", "--- a/f.txt"),
            ("hunk", "+++ b/f.txt"),
            ("hunk", "@@ -1,2 +1,2 @@"),
            ("plain", " a"),
            ("delete", "-b"),
            ("add", "+b\\rc"),
        ],
    ),
    (
        "a line separator inside a line",
        "a\nb\n",
        "a\nb\u2028c\n",
        [
            ("hunk", "--- a/f.txt"),
            ("hunk", "+++ b/f.txt"),
            ("hunk", "@@ -1,2 +1,2 @@"),
            ("plain", " a"),
            ("delete", "-b"),
            ("add", "+b\\u2028c"),
        ],
    ),
    (
        "LF to CRLF",
        "a\nb\n",
        "a\r\nb\r\n",
        [
            ("hunk", "--- a/f.txt"),
            ("hunk", "+++ b/f.txt"),
            ("hunk", "@@ -1,2 +1,2 @@"),
            ("note", "⋯ line endings only: LF → CRLF on 2 lines ⋯"),
            ("hunk", "~a\\r"),
            ("hunk", "~b\\r"),
        ],
    ),
    (
        "CRLF to LF",
        "a\r\nb\r\n",
        "a\nb\n",
        [
            ("hunk", "--- a/f.txt"),
            ("hunk", "+++ b/f.txt"),
            ("hunk", "@@ -1,2 +1,2 @@"),
            ("note", "⋯ line endings only: CRLF → LF on 2 lines ⋯"),
            ("hunk", "~a"),
            ("hunk", "~b"),
        ],
    ),
    (
        "a real change is not called line endings",
        "a\nb\n",
        "a\r\nc\r\n",
        [
            ("hunk", "--- a/f.txt"),
            ("hunk", "+++ b/f.txt"),
            ("hunk", "@@ -1,2 +1,2 @@"),
            ("delete", "-a"),
            ("delete", "-b"),
            ("add", "+a\\r"),
            ("add", "+c\\r"),
        ],
    ),
    (
        "a missing final newline is noted once, truly",
        "a\n",
        "a\nb",
        [
            ("hunk", "--- a/f.txt"),
            ("hunk", "+++ b/f.txt"),
            ("hunk", "@@ -1 +1,2 @@"),
            ("plain", " a"),
            ("add", "+b"),
            ("note", "\\ No newline at end of file"),
        ],
    ),
]


@pytest.mark.parametrize(("name", "before", "after", "expected"), DIFFS, ids=[d[0] for d in DIFFS])
def test_a_diff_shows_every_character_and_says_what_changed(name, before, after, expected) -> None:
    assert diff_of(before, after) == expected


def test_a_line_endings_only_change_says_so_in_the_summary() -> None:
    shown = show_call("edit_file", unified_diff("f.txt", "a\nb\n", "a\r\nb\r\n"), path="f.txt")
    assert shown.summary == "edit_file · f.txt · line endings only on 2 lines"
    # A block with a real change in it is shown as deleted and added lines (each `\r` visible).
    mixed = show_call("edit_file", unified_diff("f.txt", "a\nb\nc\n", "a\r\nb\r\nd\n"), path="f.txt")
    assert mixed.summary == "edit_file · f.txt · +3 −3 lines"


def test_no_false_missing_newline_notes() -> None:
    for after in ("a\u2028x\n", "a\rx\n", "a\x0bx\n", "a\x85x\n"):
        assert "No newline" not in unified_diff("f.txt", "a\n", after), repr(after)
