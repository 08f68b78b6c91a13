"""What an approval shows of a call (agent/approval_text.py): nothing of the call can hide."""

from __future__ import annotations

import json

from co_tui.agent.approval_text import SHOWN_MAX_CHARS, Segment, escape_segments, escaped, show_call


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
