#!/usr/bin/env bash
# Smoke test of the real TUI in a real terminal: start `co-tui` in a detached tmux session of a
# fixed size (temp workspace, data dir and config; offline model; clean environment), then
#   1. wait for the prompt and the OFFLINE badge;
#   2. type `read README.md` + Enter: the tool call line, the offline model's answer about the
#      file and the context meter with a message count must show;
#   3. F1 opens the help, Escape closes it; `/help` + Enter opens it too, Escape closes it;
#   4. ctrl+q quits with exit code 0, prints `resume with: co-tui --resume ID`, and the turn was
#      saved under that id (`co-tui --list-sessions`).
# Every wait polls `tmux capture-pane` and is bounded. On failure: the step, the captured pane,
# exit 1. Usage: scripts/tmux_smoke.sh  (CO_TUI=/path/to/co-tui overrides the venv's).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CO_TUI="${CO_TUI:-$ROOT/.venv/bin/co-tui}"
COLS=110
ROWS=32
TIMEOUT="${SMOKE_TIMEOUT:-30}"  # seconds per wait (a shared CI host can be slow)

command -v tmux >/dev/null || { echo "tmux_smoke: tmux is not installed" >&2; exit 2; }
[ -x "$CO_TUI" ] || { echo "tmux_smoke: no co-tui at $CO_TUI (run make setup)" >&2; exit 2; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/co-tui-smoke.XXXXXX")"
SOCKET="co-tui-smoke-$$"  # a private tmux server: nothing of the user's sessions is touched
SESSION=smoke
tmux_() { tmux -L "$SOCKET" -f /dev/null "$@"; }
cleanup() {
    tmux_ kill-server 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT

mkdir -p "$TMP/workspace" "$TMP/home"
cat >"$TMP/workspace/README.md" <<'EOF'
# Smoke workspace

A tiny project for the tmux smoke test.

## Usage

Run it and read the answer.
EOF

# The app's environment is built from scratch: no provider keys, no CO_TUI_* of the host.
APP_ENV=(env -i "PATH=$PATH" "HOME=$TMP/home" "LANG=C.UTF-8" "LC_ALL=C.UTF-8" "TERM=tmux-256color"
         "CO_TUI_DATA_DIR=$TMP/data" "CO_TUI_CONFIG_FILE=$TMP/config.toml")
printf -v APP_CMD '%q ' "${APP_ENV[@]}" "$CO_TUI"

pane() { tmux_ capture-pane -p -t "$SESSION" 2>/dev/null || true; }

fail() {
    echo "tmux_smoke: FAILED: $1" >&2
    echo "----- pane (${COLS}x${ROWS}) -----" >&2
    if [ -n "${2:-}" ]; then printf '%s\n' "$2" >&2; else pane >&2; fi
    echo "-----------------------" >&2
    exit 1
}

# wait_for WHAT EXTENDED-REGEX [absent]: poll the pane until the pattern shows (or, with
# `absent`, until it is gone); fail after TIMEOUT seconds.
wait_for() {
    local what=$1 pattern=$2 mode=${3:-present} deadline=$((SECONDS + TIMEOUT + 1)) text
    while :; do
        text="$(pane)"
        if [ "$mode" = present ]; then
            grep -Eq -- "$pattern" <<<"$text" && return 0
        else
            grep -Eq -- "$pattern" <<<"$text" || return 0
        fi
        [ "$SECONDS" -ge "$deadline" ] && fail "$what (waited ${TIMEOUT}s for /$pattern/ to be $mode)" "$text"
        sleep 0.2
    done
}

cd "$TMP/workspace"
# On exit the pane's shell records co-tui's exit code, then keeps the pane (and what co-tui
# printed on quitting) until the server is killed.
tmux_ new-session -d -s "$SESSION" -x "$COLS" -y "$ROWS" \
    "$APP_CMD; echo \$? >'$TMP/exit-code'; exec sleep 600"

echo "tmux_smoke: 1. start-up"
wait_for "the prompt" 'Ask anything'
wait_for "the offline badge (session ready)" 'OFFLINE'
wait_for "the empty meter" '0/[0-9]+ msgs'

echo "tmux_smoke: 2. read README.md"
tmux_ send-keys -t "$SESSION" -l 'read README.md'
tmux_ send-keys -t "$SESSION" Enter
wait_for "the user message" '▌ read README\.md'
wait_for "the tool call line" 'read_file\(path="README\.md"\)'
wait_for "the offline model's answer" 'README\.md has 7 lines'
wait_for "the answer's headings" 'Headings \(2\): Smoke workspace; Usage'
wait_for "the meter counting the turn" '[1-9][0-9]*/[0-9]+ msgs · ~?[0-9.]+k?/[0-9.]+k tokens \([0-9]+%\)'
wait_for "the turn to finish" 'esc to interrupt' absent

echo "tmux_smoke: 3. help (F1, /help) and Escape"
tmux_ send-keys -t "$SESSION" F1
wait_for "the help screen after F1" 'keys and commands'
wait_for "the help listing /compact" '/compact'
tmux_ send-keys -t "$SESSION" Escape
wait_for "Escape closing the help" 'keys and commands' absent
tmux_ send-keys -t "$SESSION" -l '/help'
tmux_ send-keys -t "$SESSION" Enter
wait_for "the help screen after /help" 'keys and commands'
tmux_ send-keys -t "$SESSION" Escape
wait_for "Escape closing the help again" 'keys and commands' absent
wait_for "the conversation still there" 'read_file\(path="README\.md"\)'

echo "tmux_smoke: 4. ctrl+q"
tmux_ send-keys -t "$SESSION" C-q
deadline=$((SECONDS + TIMEOUT + 1))
until [ -s "$TMP/exit-code" ]; do
    [ "$SECONDS" -ge "$deadline" ] && fail "ctrl+q did not quit within ${TIMEOUT}s"
    sleep 0.2
done
code="$(cat "$TMP/exit-code")"
[ "$code" = 0 ] || fail "co-tui exited with $code after ctrl+q"

wait_for "the resume hint printed on quitting" 'resume with: co-tui --resume [0-9a-f]{32}'
resume_id="$(pane | grep -Eo 'resume with: co-tui --resume [0-9a-f]{32}' | grep -Eo '[0-9a-f]{32}$')"

sessions="$("${APP_ENV[@]}" "$CO_TUI" --list-sessions 2>&1)" || fail "co-tui --list-sessions failed" "$sessions"
grep -q "^${resume_id:0:8} .*read README.md" <<<"$sessions" || fail "the turn was not saved as ${resume_id}" "$sessions"

echo "tmux_smoke: ok"
