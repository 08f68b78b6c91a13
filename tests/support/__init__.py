"""What the tests share: running a turn, waiting with a deadline, builders of histories.

`tests/` is on sys.path (its conftest.py is loaded first), so a test imports these as
`from support.turns import run_turn`. Fixtures stay in the conftest files (pytest finds them
there); the code they share is here, one piece per idea. The pilot and tmux helpers are in
`pilot_helpers.py`, the TUI's fake session in `tui_fakes.py`.
"""
