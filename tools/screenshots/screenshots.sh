#!/usr/bin/env bash
# screenshots.sh drives the real EdgeChat window under Xvfb and saves PNGs of the welcome page,
# a chat with a streamed reply and its thinking, and the settings pane with a validation error.
# It uses a generated tiny model (tools/mkmodel) and a throw-away settings file and data folder.
#
# Usage: tools/screenshots/screenshots.sh [OUT_DIR]        (default build/screenshots)
# Env:   ENGINE_FLAGS  extra flags for the app (default --demo-engine until the real engine is
#                      wired into engine.go; set ENGINE_FLAGS= to use the real one)
#        KEEP=1        keep the temporary folder (settings, data, logs) for debugging
set -euo pipefail

OUT="${1:-build/screenshots}"
ENGINE_FLAGS="${ENGINE_FLAGS---demo-engine}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
export LANG="${LANG:-en_US.UTF-8}"
[ "$LANG" = "C.UTF-8" ] && export LANG=en_US.UTF-8

die() { printf 'screenshots: %s\n' "$*" >&2; exit 1; }

if [ "${1:-}" != "--inside" ]; then
  for t in xvfb-run xdotool import; do
    command -v "$t" >/dev/null || die "$t not found — run 'make setup' (Debian: xvfb xauth imagemagick xdotool)"
  done
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/edgechat-shots.XXXXXX")"
  [ "${KEEP:-}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
  cd "$ROOT"
  echo "screenshots: building the app and a generated model in $WORK" >&2
  go build -o "$WORK/edgechat" .
  go run ./tools/mkmodel --out "$WORK/model" >&2
  mkdir -p "$OUT"
  OUT="$(cd "$OUT" && pwd)"
  xvfb-run -a -s "-screen 0 1280x800x24" "$0" --inside "$WORK" "$OUT"
  ls -l "$OUT"/*.png >&2
  exit 0
fi

# --- inside Xvfb ----------------------------------------------------------------------------
WORK="$2"; OUT="$3"
APP_PID=""

# start CONFIG: runs the app on a fresh data folder and waits for its window.
start() {
  "$WORK/edgechat" --config "$1" --data-dir "$WORK/data-$(basename "$1" .yaml)" $ENGINE_FLAGS \
    >"$WORK/app-$(basename "$1" .yaml).log" 2>&1 &
  APP_PID=$!
  WID="$(timeout 30 xdotool search --sync --name '^EdgeChat$' | head -1)" || die "the window did not open; see $WORK/*.log"
  sleep 2 # first frames, fonts
}

stop() {
  kill "$APP_PID" 2>/dev/null || true
  wait "$APP_PID" 2>/dev/null || true
}

shot() { import -window "$WID" "$OUT/$1.png"; echo "screenshots: $OUT/$1.png" >&2; }

# click X Y: window coordinates (no window manager, so the window sits at 0,0).
click() { xdotool mousemove "$1" "$2" click 1; sleep 0.4; }

# 1. First run: no model configured opens the welcome page.
: >"$WORK/welcome.yaml"
start "$WORK/welcome.yaml"
shot 01-welcome
stop

# 2. A chat: type a question, Enter, screenshot while the thinking streams and once done,
#    with the thinking section unfolded.
printf 'cpu:\n  model: %s\ntheme: light\n' "$WORK/model" >"$WORK/chat.yaml"
start "$WORK/chat.yaml"
xdotool type --delay 15 "How does EdgeChat use the NPU?"
xdotool key Return
sleep 1.1 # the model is thinking
shot 02-chat-streaming
sleep 7 # the reply finishes (the demo engine streams ~40 tokens/s)
click 360 141 # the "Thinking" header under the question
shot 03-chat-thinking
stop

# 3. Settings with a validation error (the NPU model folder does not exist), then Test on the
#    CPU route's generated model.
printf 'cpu:\n  model: %s\nnpu:\n  model: %s\n' "$WORK/model" "$WORK/no-such-npu-model" >"$WORK/settings.yaml"
start "$WORK/settings.yaml"
xdotool key ctrl+comma
sleep 1.5
shot 04-settings-error
click 1057 374 # the CPU route's Test button: inspects the generated model
sleep 2
shot 05-settings-test
stop
