#!/usr/bin/env bash
# idlecpu.sh measures the CPU an idle EdgeChat window uses: a real window under Xvfb on the
# generated model (tools/mkmodel) and a seeded finished chat (tools/screenshots/seed), read
# from /proc/PID/stat (utime+stime) before and after SECS seconds of doing nothing, once
# start-up has settled. Five states: a new chat with the cursor blinking in the message box,
# the same with nothing focused (a click on empty space), the finished chat open, that
# unfocused, and the settings open (Ctrl+,). A bare Fyne window with one label (tools/idlecpu/bare) gives the floor that
# Fyne's own event loop costs. Under Xvfb, Mesa's llvmpipe draws on the CPU, so every
# redraw counts here that a GPU would take on a real PC.
#
# Usage: tools/idlecpu/idlecpu.sh        Env: SECS (default 60), SETTLE (default 15)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SECS="${SECS:-60}" SETTLE="${SETTLE:-15}"
export LANG=en_US.UTF-8

if [ "${1:-}" != --inside ]; then
  for t in xvfb-run xdotool; do
    command -v "$t" >/dev/null || { echo "idlecpu: $t not found — run 'make setup'" >&2; exit 1; }
  done
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/edgechat-idle.XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
  cd "$ROOT"
  go build -tags demo -o "$WORK/edgechat" .
  go build -o "$WORK/bare" ./tools/idlecpu/bare
  go run ./tools/mkmodel --out "$WORK/model" >/dev/null
  go run ./tools/screenshots/seed --dir "$WORK/data"
  printf 'cpu:\n  model: %s\ntheme: light\n' "$WORK/model" >"$WORK/chat.yaml"
  xvfb-run -a -s "-screen 0 1280x800x24" "$0" --inside "$WORK"
  exit 0
fi

WORK="$2"
HZ="$(getconf CLK_TCK)"
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
# switches PID: context switches of all the process's threads so far (voluntary + forced).
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'; }
# measure LABEL: CPU of $PID over SECS seconds, in % of one core, and its context switches a
# second with the CPU each costs here. An idle Fyne loop is mostly thread hand-offs (its 60 Hz
# ticker wakes the locked main thread), so the CPU per switch says how much of the figure is
# this machine's switch cost (a virtual machine's is many times a bare PC's).
measure() {
  local a b ca cb; a="$(ticks "$PID")"; ca="$(switches "$PID")"; sleep "$SECS"
  b="$(ticks "$PID")"; cb="$(switches "$PID")"
  awk -v t=$((b - a)) -v c=$((cb - ca)) -v hz="$HZ" -v s="$SECS" -v l="$1" \
    'BEGIN { printf "%-48s %5.2f%% of a core (%d ticks in %d s), %d switches/s, %.0f µs CPU per switch\n", l, 100 * t / hz / s, t, s, c / s, c ? 1e6 * t / hz / c : 0 }'
}
click() { xdotool mousemove "$1" "$2" click 1; sleep 2; }

"$WORK/bare" >/dev/null 2>&1 &
PID=$!
sleep "$SETTLE"
measure "bare Fyne window (the floor)"
kill "$PID"; wait "$PID" 2>/dev/null || true

"$WORK/edgechat" --config "$WORK/chat.yaml" --data-dir "$WORK/data" >"$WORK/app.log" 2>&1 &
PID=$!
WID="$(timeout 30 xdotool search --sync --name '^EdgeChat$' | head -1)"
xdotool windowsize "$WID" 1280 800
sleep "$SETTLE"
EMPTY="800 550" # empty space in the chat pane
measure "new chat, cursor blinking in the message box"
click $EMPTY
measure "new chat, nothing focused"
click 100 128 # the seeded conversation, first in the sidebar
sleep 8
measure "finished chat open, cursor blinking"
click $EMPTY
measure "finished chat open, nothing focused"
xdotool key ctrl+comma
sleep 30 # the settings look for ONNX Runtime builds the first time they open
measure "settings open"
kill "$PID"; wait "$PID" 2>/dev/null || true
