#!/usr/bin/env bash
# install.sh installs llama.cpp as a benchmark peer: npm node-llama-cpp@3.21.1 with only its
# prebuilt Linux x64 CPU binary (@node-llama-cpp/linux-x64; no CUDA or Vulkan parts, no build
# from source), into the cache folder ($EDGECHAT_CACHE/llama, default ~/.cache/edgechat/llama),
# never into the repository, plus bench.mjs and history.mjs beside it. It then runs the real stories260K GGUF
# once with the network cut off (when unshare allows) to prove the binary needs no download.
#
#   tools/llamapeer/install.sh            # install or check
#   node ~/.cache/edgechat/llama/bench.mjs --model m.gguf --prompt-len 428 --tokens 64 --threads 2
#   node ~/.cache/edgechat/llama/history.mjs --model m.gguf --short 100 --long 3000 --tokens 32 --threads 2
set -euo pipefail
SAY_PREFIX=llamapeer
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../cache.sh"
VERSION=3.21.1
DEST="$CACHE/llama"
command -v npm >/dev/null || die "npm is needed (install Node.js 20 and npm)"
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || die "the prebuilt llama.cpp peer here is Linux x64 only"
mkdir -p "$DEST"
[ -f "$DEST/package.json" ] || printf '{ "private": true, "type": "module" }\n' >"$DEST/package.json"
have="$(node -p "require('$DEST/node_modules/node-llama-cpp/package.json').version" 2>/dev/null || true)"
if [ "$have" != "$VERSION" ] || [ ! -d "$DEST/node_modules/@node-llama-cpp/linux-x64/bins" ]; then
  say "installing node-llama-cpp@$VERSION (prebuilt linux-x64 CPU binary) into $DEST"
  (cd "$DEST" && NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --silent --no-audit --no-fund --omit=optional \
    "node-llama-cpp@$VERSION" "@node-llama-cpp/linux-x64@$VERSION") || die "npm install node-llama-cpp@$VERSION failed"
fi
cp "$here/bench.mjs" "$here/history.mjs" "$DEST/"
# The stories model lives in shared/models beside the main checkout (RUNTIME.md).
common="$(git -C "$here" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)"
stories="${STORIES_GGUF:-$(dirname "${common:-/nonexistent/.git}")/../shared/models/stories260K/stories260K.gguf}"
if [ -n "$stories" ] && [ -f "$stories" ]; then
  run=(node "$DEST/bench.mjs" --model "$stories" --prompt-ids 1,403,407,261,378 --tokens 8 --repeat 1)
  where="with the network"
  if unshare -rn true 2>/dev/null; then run=(unshare -rn "${run[@]}"); where="offline (no network namespace)"; fi
  out="$("${run[@]}")" || die "llama.cpp failed to run $stories"
  case "$out" in
    *'"ids":[432,383,286,261,376,298,315,421,395]'*) say "llama.cpp runs $where: stories260K's greedy reference continuation matches" ;;
    *) die "llama.cpp ran but its greedy ids differ from stories260K's reference: $out" ;;
  esac
fi
say "ready: $DEST/bench.mjs"
