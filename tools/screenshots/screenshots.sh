#!/usr/bin/env bash
# screenshots.sh drives the real EdgeChat window under Xvfb and saves PNGs of the welcome page,
# a chat with a streamed reply and a saved reply's thinking, the settings pane with a
# validation error, the Models view with models found in fake tool caches and a download
# in progress from a Hub on loopback (tools/fakehub, slowed down), and a question over an
# attached 300-page PDF with its sources (one opened; that reply comes from the demo engine,
# see step 6), a call of a real MCP server's tool waiting for approval, then done (step 9,
# the demo engine too), a saved Markdown reply shown as written and its text selected (Select
# text), an icon button's tip and the right-click menu of a link in a reply, the window a start-up
# problem opens (an unusable data folder), a stalled download, the chat's model picker and
# the banner a chat window opens with when its ONNX Runtime library does not load. Replies
# come from the real engine running a generated tiny model
# (tools/mkmodel: random weights, the real tokenizer, so its replies are multilingual
# gibberish). A random model never thinks, so the chat's data folder is seeded with one saved
# earlier turn (tools/screenshots/seed) whose thinking section the screenshots unfold.
# Settings and data live in a throw-away folder.
#
# Usage: tools/screenshots/screenshots.sh [OUT_DIR]        (default build/screenshots)
# Env:   ENGINE_FLAGS  extra flags for the app, e.g. ENGINE_FLAGS=--demo-engine for the canned
#                      UI-only engine (default: none, the real engine)
#        KEEP=1        keep the temporary folder (settings, data, logs) for debugging
set -euo pipefail

OUT="${1:-build/screenshots}"
ENGINE_FLAGS="${ENGINE_FLAGS:-}"
COMMIT=0123456789abcdef0123456789abcdef01234567 # a download's folder: ORG--NAME/<commit>
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
export LANG="${LANG:-en_US.UTF-8}"
# The caches tools/setup.sh filled (ONNX Runtime, tokenizers), fixed before steps that run the
# app with another HOME: else the picker's window opens with "cannot load ONNX Runtime".
export EDGECHAT_CACHE="${EDGECHAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edgechat}"
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
  go build -tags demo -o "$WORK/edgechat" .
  go run ./tools/mkmodel --out "$WORK/model" >&2
  for d in stream done; do go run ./tools/screenshots/seed --dir "$WORK/data-$d"; done
  go run ./tools/screenshots/seed --dir "$WORK/data-document" --document
  go run ./tools/screenshots/seed --dir "$WORK/data-markdown" --markdown
  # The Models view: a Hub on loopback serving the generated model as Qwen3-0.6B's q4 variant,
  # and a home folder whose Foundry Local and AI Toolkit caches hold two models.
  go build -o "$WORK/fakehub" ./tools/fakehub
  cp -al "$WORK/model" "$WORK/hubmodel"
  mv "$WORK/hubmodel/onnx/model.onnx" "$WORK/hubmodel/onnx/model_q4.onnx"
  FOUNDRY="$WORK/home/.foundry/cache/models/Microsoft/qwen2.5-0.5b-instruct-generic-cpu-4/v4"
  go run ./tools/mkmodel --out "$FOUNDRY" --layout genai >&2
  printf '{"Name": "qwen2.5-0.5b-instruct-generic-cpu:4", "PromptTemplate": null}\n' >"$FOUNDRY/inference_model.json"
  go run ./tools/mkmodel --out "$WORK/home/.aitk/models/Microsoft/qwen3-0.6b-qnn-npu-1/v1" --layout bundle >&2
  # The model picker: the generated model and a base model (the same without a chat template)
  # as downloads in a models folder (ORG--NAME/<commit>), beside the two found in the tools'
  # caches.
  mkdir -p "$WORK/models-picker/onnx-community--Qwen3-0.6B-ONNX" "$WORK/basetok"
  cp -al "$WORK/model" "$WORK/models-picker/onnx-community--Qwen3-0.6B-ONNX/$COMMIT"
  TOK="${EDGECHAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edgechat}/tokenizers/qwen3" # tools/setup.sh
  cp "$TOK/tokenizer.json" "$WORK/basetok/"
  python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c.pop("chat_template", None); json.dump(c, open(sys.argv[2], "w"))' \
    "$TOK/tokenizer_config.json" "$WORK/basetok/tokenizer_config.json"
  go run ./tools/mkmodel --out "$WORK/models-picker/Qwen--Qwen3-0.6B-Base/$COMMIT" --tokenizer "$WORK/basetok" >&2
  go run ./tools/screenshots/seed --dir "$WORK/data-picker"
  mkdir -p "$OUT"
  OUT="$(cd "$OUT" && pwd)"
  xvfb-run -a -s "-screen 0 1280x800x24" "$0" --inside "$WORK" "$OUT"
  ls -l "$OUT"/*.png >&2
  exit 0
fi

# --- inside Xvfb ----------------------------------------------------------------------------
WORK="$2"; OUT="$3"
APP_PID=""

W=1280 H=800 # the window is resized to the whole screen (no window manager: it sits at 0,0)

# start CONFIG [DATA]: runs the app with CONFIG on the data folder $WORK/data-DATA (default: the
# config's name; seeded for the chats) and waits for its window.
start() {
  local name; name="$(basename "$1" .yaml)"
  "$WORK/edgechat" --config "$1" --data-dir "$WORK/data-${2:-$name}" $ENGINE_FLAGS \
    >"$WORK/app-$name.log" 2>&1 &
  APP_PID=$!
  WID="$(timeout 30 xdotool search --sync --name '^EdgeChat$' | head -1)" || die "the window did not open; see $WORK/*.log"
  sleep 2 # first frames, fonts
  xdotool windowsize "$WID" "$W" "$H"
  sleep 0.5
}

stop() {
  kill "$APP_PID" 2>/dev/null || true
  wait "$APP_PID" 2>/dev/null || true
}

shot() { import -window "$WID" "$OUT/$1.png"; echo "screenshots: $OUT/$1.png" >&2; }

# click X Y: window coordinates.
click() { xdotool mousemove "$1" "$2" click 1; sleep 0.4; }

# wheel_down X Y N: N notches of the mouse wheel over X Y (not over a code block: its
# horizontal scroller takes the wheel).
wheel_down() {
  xdotool mousemove "$1" "$2"; sleep 0.2
  for _ in $(seq "$3"); do xdotool click 5; sleep 0.05; done
  sleep 0.5
}

# wait_reply DATA [N]: waits until the conversation in $WORK/data-DATA holds N finished replies
# (default 2; the autosaver writes each, with its stats, within a second of the end).
wait_reply() {
  for _ in $(seq 120); do
    [ "$(cat "$WORK/data-$1"/*.json | grep -o '"tokens_per_sec"' | wc -l)" -ge "${2:-2}" ] && return 0
    sleep 0.25
  done
  die "the reply did not finish in 30 s; see $WORK/app-chat-$1.log"
}

# chat_config NAME MAX_TOKENS: settings for a chat on the generated model. The repetition
# penalty keeps the random model from repeating one token for lines.
chat_config() {
  printf 'cpu:\n  model: %s\ntheme: light\nmax_tokens: %d\nrepetition_penalty: 1.3\n' \
    "$WORK/model" "$2" >"$WORK/$1.yaml"
}

FIRST_ROW="100 128" # the seeded conversation, first in the sidebar
THINKING="400 141"  # the saved reply's "Thinking" header once that conversation is open
COMPOSER="760 750"
EXPORT_BUTTON="1217 49"
MODEL_BUTTON="1070 49" # the chat header's model button (its arrow: the text grows leftwards)
SOURCE="500 254"    # the reply's first source in 07-chat-document
LINK="408 605"      # the link at the end of the Markdown reply in 11-chat-markdown
QUESTION="Can you show the same with bufio.Reader?"

# 1. First run: no model configured opens the welcome page.
: >"$WORK/welcome.yaml"
start "$WORK/welcome.yaml"
shot 01-welcome
stop

# 2. Open the seeded conversation, ask a follow-up and take the screenshot while the real
#    engine streams (~200 tokens/s here: max_tokens is high so it is still going).
chat_config chat-stream 1500
start "$WORK/chat-stream.yaml" stream
click $FIRST_ROW
sleep 0.6
xdotool type --delay 15 "$QUESTION"
xdotool key Return
sleep 2 # the model loads (~0.2 s) and streams (the first frames lag behind under load)
shot 02-chat-streaming
xdotool key Escape # stop the reply before closing the app
sleep 0.5
stop

# 3. The same with a short reply: unfold the saved reply's thinking first, then ask; once the
#    reply ends, scroll to the end so that its footer (CPU badge, tokens/s) shows too (the
#    view follows the text while it streams but not the footer that appears at the end).
chat_config chat-done 32
start "$WORK/chat-done.yaml" done
click $FIRST_ROW
sleep 0.6
click $THINKING
click $COMPOSER
xdotool type --delay 15 "$QUESTION"
xdotool key Return
wait_reply done
sleep 0.5
wheel_down 800 580 10
xdotool mousemove $COMPOSER # no hover tooltips in the picture
sleep 0.3
shot 03-chat-thinking
stop

# 4. Settings with a validation error (the NPU model folder does not exist), then Test on the
#    CPU route's generated model.
printf 'cpu:\n  model: %s\nnpu:\n  model: %s\n' "$WORK/model" "$WORK/no-such-npu-model" >"$WORK/settings.yaml"
start "$WORK/settings.yaml"
xdotool key ctrl+comma
sleep 1.5
shot 04-settings-error
click 1238 374 # the CPU route's Test button: loads the generated model (~1 s)
xdotool mousemove $COMPOSER
sleep 3
shot 05-settings-test
stop

# 5. The Models view from the welcome page: models found in the fake Foundry Local and AI
#    Toolkit caches, and the first suggestion downloading from the slowed-down loopback Hub.
"$WORK/fakehub" --dir "$WORK/hubmodel" --repo onnx-community/Qwen3-0.6B-ONNX --rate 4000000 >"$WORK/hub.json" 2>"$WORK/hub.log" &
HUB_PID=$!
for _ in $(seq 100); do [ -s "$WORK/hub.json" ] && break; sleep 0.1; done
HUB_URL="$(sed 's/.*"url":"\([^"]*\)".*/\1/' "$WORK/hub.json")"
printf 'theme: light\nmodels_dir: %s\n' "$WORK/models" >"$WORK/models.yaml"
HOME="$WORK/home" HF_ENDPOINT="$HUB_URL" start "$WORK/models.yaml"
click 420 224 # Find or download a model… (welcome page, no NPU runtime on this PC)
sleep 1.5
click 1010 541 # the first suggestion's Download (below the two models found)
sleep 3
xdotool mousemove $COMPOSER
shot 06-models-download
stop
kill "$HUB_PID" 2>/dev/null || true

# 6. A question over the attached 300-page PDF (seeded: tools/screenshots/seed --document): the
#    file's chip above the composer, the reply with its sources, then one source opened. The
#    demo engine answers here whatever ENGINE_FLAGS say: it quotes the passage it was given,
#    where the generated model would answer gibberish; the passages and sources are the real
#    retrieval's (package documents).
printf 'cpu:\n  model: %s\ntheme: light\nthinking: false\n' "$WORK/model" >"$WORK/chat-document.yaml"
ENGINE_FLAGS=--demo-engine start "$WORK/chat-document.yaml" document
click $FIRST_ROW
sleep 1.5 # the chip reads the saved index, or builds it (~1 s)
click $COMPOSER
xdotool type --delay 15 "What is the access code for the Halvorsen archive vault?"
xdotool key Return
wait_reply document 1
sleep 0.5
wheel_down 800 400 10
xdotool mousemove $COMPOSER
sleep 0.3
shot 07-chat-document
click $SOURCE
sleep 0.8
shot 08-document-source
stop

# 9. A tool call: Settings' mcp_config names the reference server-everything (installed by
#    tools/setup.sh; the app starts it over stdio when the reply first needs it). The demo
#    engine calls its echo tool (a random model calls no tool unless forced, and the window
#    forces none); the call waits for approval, then Allow once runs it on the real server.
EVERYTHING="${EDGECHAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edgechat}/mcpservers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [ -f "$EVERYTHING" ] && command -v node >/dev/null; then
  printf '{"mcpServers": {"everything": {"command": "%s", "args": ["%s", "stdio"]}}}\n' "$(command -v node)" "$EVERYTHING" >"$WORK/mcp.json"
  printf 'cpu:\n  model: %s\ntheme: light\nthinking: false\nmcp_config: %s\n' "$WORK/model" "$WORK/mcp.json" >"$WORK/chat-tools.yaml"
  ENGINE_FLAGS=--demo-engine start "$WORK/chat-tools.yaml" tools
  click $COMPOSER
  xdotool type --delay 15 "Ask the echo tool to say hello"
  xdotool key Return
  sleep 5 # the server starts and lists its tools; the demo engine calls echo
  shot 09-tool-approval
  click 407 220 # Allow once
  sleep 3
  shot 10-tool-call
  stop
else
  echo "screenshots: server-everything is not installed (tools/setup.sh): no tool-call screenshots" >&2
fi

# 10. A saved Markdown reply shown as the model wrote it (tools/screenshots/seed --markdown): no
#    space before punctuation, single line breaks kept, a nested list, a table, math and
#    inline HTML as text; the question above it verbatim (not Markdown).
printf 'cpu:\n  model: %s\ntheme: light\n' "$WORK/model" >"$WORK/chat-markdown.yaml"
start "$WORK/chat-markdown.yaml" markdown
click $FIRST_ROW
sleep 1
xdotool mousemove $COMPOSER
sleep 0.3
shot 11-chat-markdown
# 10b. Select text (Ctrl+Shift+A): the last reply as the model wrote it, its first lines
#     selected with Shift+Down; then Esc back to the rendered reply, and the tip of the
#     header's icon-only Export button while the pointer rests on it.
xdotool key ctrl+shift+a
sleep 0.6
xdotool key shift+Down shift+Down shift+Down shift+End
sleep 0.4
shot 16-chat-select-text
xdotool key Escape
xdotool mousemove $EXPORT_BUTTON
sleep 1.2
shot 17-button-tip
# 10c. A right-click on the reply's link: its own menu (Open link, Copy link address).
xdotool mousemove $LINK click 3
sleep 0.6
shot 18-link-menu
stop

# 11. A start-up problem: settings that name a data folder EdgeChat cannot create
#    (/dev/null/data) open a window that says so, with the ways out, instead of exiting.
printf 'data_dir: /dev/null/data\ntheme: light\n' >"$WORK/startup-problem.yaml"
"$WORK/edgechat" --config "$WORK/startup-problem.yaml" >"$WORK/app-startup-problem.log" 2>&1 &
APP_PID=$!
WID="$(timeout 30 xdotool search --sync --name '^EdgeChat$' | head -1)" || die "the start-up problem window did not open; see $WORK/app-startup-problem.log"
sleep 2
xdotool windowsize "$WID" 800 380
sleep 0.5
shot 12-startup-problem
stop

# 12. A stalled download: the loopback Hub stops sending the model file at 8 MB and holds the
#    connection; the row shows the bytes on disk and how long no data came (then, after the
#    stall timeout, "stalled — retrying in N s").
"$WORK/fakehub" --dir "$WORK/hubmodel" --repo onnx-community/Qwen3-0.6B-ONNX --rate 4000000 --stall-at 8000000 >"$WORK/hub-stall.json" 2>"$WORK/hub-stall.log" &
HUB_PID=$!
for _ in $(seq 100); do [ -s "$WORK/hub-stall.json" ] && break; sleep 0.1; done
HUB_URL="$(sed 's/.*"url":"\([^"]*\)".*/\1/' "$WORK/hub-stall.json")"
printf 'theme: light\nmodels_dir: %s\n' "$WORK/models-stall" >"$WORK/models-stall.yaml"
HOME="$WORK/home" HF_ENDPOINT="$HUB_URL" start "$WORK/models-stall.yaml"
click 420 224 # Find or download a model… (welcome page, no NPU runtime on this PC)
sleep 1.5
click 1010 541 # the first suggestion's Download
sleep 9        # 8 MB at 4 MB/s, then ~7 s without data
xdotool mousemove $COMPOSER
shot 13-models-stalled
stop
kill "$HUB_PID" 2>/dev/null || true

# 13. The chat's model picker: the models found on this PC and downloaded, with their size,
#    NPU/CPU (the NPU build disabled: no NPU runtime here) and Complete text for the base
#    model; the one that answers is checked.
printf 'cpu:\n  model: %s\ntheme: light\nmodels_dir: %s\n' "$WORK/models-picker/onnx-community--Qwen3-0.6B-ONNX/$COMMIT" "$WORK/models-picker" >"$WORK/picker.yaml"
HOME="$WORK/home" start "$WORK/picker.yaml"
click $FIRST_ROW
sleep 1
click $MODEL_BUTTON
xdotool mousemove $COMPOSER
sleep 0.5
shot 14-model-picker
stop

# 14. ONNX Runtime that does not load (here a file that is not a library) and the chat opens
#    with a banner saying so, with its ways out, before anything is sent.
mkdir -p "$WORK/broken-ort"
printf 'not a library\n' >"$WORK/broken-ort/libonnxruntime.so.1"
printf 'cpu:\n  model: %s\ntheme: light\nort_library: %s\n' "$WORK/model" "$WORK/broken-ort/libonnxruntime.so.1" >"$WORK/runtime-problem.yaml"
ENGINE_FLAGS= start "$WORK/runtime-problem.yaml" markdown
xdotool mousemove $COMPOSER
shot 15-runtime-problem
stop
