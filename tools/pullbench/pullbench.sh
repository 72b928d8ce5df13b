#!/usr/bin/env bash
# pullbench.sh measures `edgechat pull` against curl on the same loopback file, and the
# puller's peak anonymous memory (RssAnon) while it fetches a large file: a generated model
# whose q4 variant carries a SIZE_MB external data file, served by tools/fakehub.
#
# Usage: tools/pullbench/pullbench.sh [SIZE_MB]      (default 1024)
# Env:   RUNS=3   tries of each; the best time counts
set -euo pipefail
SIZE_MB="${1:-1024}"
RUNS="${RUNS:-3}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/edgechat-pullbench.XXXXXX")"
HUB_PID=""
trap 'kill "$HUB_PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
cd "$ROOT"
go build -o "$WORK/edgechat" .
go build -o "$WORK/fakehub" ./tools/fakehub
go run ./tools/mkmodel --out "$WORK/model" --vocab 512 >/dev/null # a small graph: the data file dominates
mv "$WORK/model/onnx/model.onnx" "$WORK/model/onnx/model_q4.onnx"
head -c "$((SIZE_MB << 20))" /dev/urandom >"$WORK/model/onnx/model_q4.onnx_data"
"$WORK/fakehub" --dir "$WORK/model" --repo bench/Big-ONNX >"$WORK/hub.json" &
HUB_PID=$!
for _ in $(seq 600); do [ -s "$WORK/hub.json" ] && break; sleep 0.1; done
URL="$(sed 's/.*"url":"\([^"]*\)".*/\1/' "$WORK/hub.json")"
COMMIT="$(sed 's/.*"commit":"\([^"]*\)".*/\1/' "$WORK/hub.json")"
# curl fetches the data file alone; the pull fetches it and the rest of the model (~1% more
# for 1 GiB) and counts only the data file's bytes: the ratio is a lower bound.
FILE_URL="$URL/bench/Big-ONNX/resolve/$COMMIT/onnx/model_q4.onnx_data"
BYTES="$(stat -c %s "$WORK/model/onnx/model_q4.onnx_data")"

now() { date +%s.%N; }
best_curl=999999
for i in $(seq "$RUNS"); do
  t0="$(now)"; /usr/bin/time -f '%U %S' -o "$WORK/cpu-curl-$i" curl -sS -L -o "$WORK/curl.bin" "$FILE_URL"; t1="$(now)"
  t="$(echo "$t1 - $t0" | bc -l)"; rm -f "$WORK/curl.bin"
  best_curl="$(echo "if ($t < $best_curl) $t else $best_curl" | bc -l)"
done

best_pull=999999; peak_anon=0
for i in $(seq "$RUNS"); do
  rm -rf "$WORK/models"
  t0="$(now)"
  HF_ENDPOINT="$URL" /usr/bin/time -f '%U %S' -o "$WORK/cpu-pull-$i" "$WORK/edgechat" pull bench/Big-ONNX --variant q4 --models-dir "$WORK/models" --json >"$WORK/pull.json" &
  TIME_PID=$!
  PID=""
  while [ -z "$PID" ] && kill -0 "$TIME_PID" 2>/dev/null; do PID="$(pgrep -P "$TIME_PID" || true)"; done
  while [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; do
    a="$(awk '/^RssAnon:/ {print $2}' "/proc/$PID/status" 2>/dev/null || echo 0)"
    [ -n "$a" ] && [ "$a" -gt "$peak_anon" ] && peak_anon="$a"
    sleep 0.02
  done
  wait "$TIME_PID"
  t1="$(now)"
  t="$(echo "$t1 - $t0" | bc -l)"
  best_pull="$(echo "if ($t < $best_pull) $t else $best_pull" | bc -l)"
done
tail -1 "$WORK/pull.json" | grep -q '"path"' || { echo "pullbench: the pull printed no result" >&2; exit 1; }

PULLED="$(tail -1 "$WORK/pull.json" | sed 's/.*"size_bytes":\([0-9]*\).*/\1/')"
printf 'data file       %d bytes; the pull fetched %d bytes in all\n' "$BYTES" "$PULLED"
printf 'curl            %.2f s  %.0f MB/s  (best of %d)\n' "$best_curl" "$(echo "$BYTES / $best_curl / 1000000" | bc -l)" "$RUNS"
printf 'edgechat pull   %.2f s  %.0f MB/s  (data file bytes over the whole pull: process start, API calls, other files, hashes; best of %d)\n' "$best_pull" "$(echo "$BYTES / $best_pull / 1000000" | bc -l)" "$RUNS"
printf 'ratio           %.2f× curl\n' "$(echo "$best_curl / $best_pull" | bc -l)"
printf 'peak RssAnon    %d kB\n' "$peak_anon"
cpu() { awk '{ s = $1 + $2; if (min == "" || s < min) min = s } END { printf "%.2f", min }' "$WORK"/cpu-"$1"-*; }
printf 'CPU time        curl %s s, edgechat pull %s s (user+sys, least of %d)\n' "$(cpu curl)" "$(cpu pull)" "$RUNS"
