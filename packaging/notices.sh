#!/usr/bin/env bash
# notices.sh TARGET CC prints THIRD_PARTY_NOTICES.txt for a TARGET package built with the C
# compiler CC: ONNX Runtime and the DLLs beside it, Go, every Go module compiled into the
# binary for TARGET (licence files from the module cache), the C runtime parts the compiler
# links in, and a note on model licences. NOTICES_SRC names the source tree (default: repo).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TARGET="$1"
CC_USED="${2:-}"
T_OS="${TARGET%-*}"
T_ARCH="${TARGET#*-}"
SRC="${NOTICES_SRC:-$ROOT}"
N="$ROOT/packaging/notices"

rule() { printf '\n%s\n%s\n%s\n\n' "================================================================================" "$1" "================================================================================"; }
subst() { sed -e "s/@ORT_VERSION@/$ORT_VERSION/g" "$@"; }

# licence_files DIR: the licence-like files directly in DIR, sorted.
licence_files() {
  find "$1" -maxdepth 1 -type f \( -iname 'licen[cs]e*' -o -iname 'copying*' -o -iname 'notice*' \
    -o -iname 'patents*' \) 2>/dev/null | LC_ALL=C sort
}

# Go modules linked into the binary for TARGET: "path version moduledir packagedir" lines.
mods="$(cd "$SRC" && GOOS="$T_OS" GOARCH="$T_ARCH" CGO_ENABLED=1 go list -deps \
  -f '{{if .Module}}{{if not .Module.Main}}{{.Module.Path}} {{.Module.Version}} {{.Module.Dir}} {{.Dir}}{{end}}{{end}}' . |
  grep . | LC_ALL=C sort -u)"

cat <<EOF
EdgeChat $(toml_value Version) for $TARGET: third-party notices

EdgeChat includes the software listed below. Each section names a component, where it comes
from and its licence, followed by the licence and notice texts.

Components:
EOF
case "$T_OS" in
  windows) echo "  - ONNX Runtime $ORT_VERSION (onnxruntime.dll) — MIT"
    echo "  - DirectML.dll, dxcompiler.dll, dxil.dll — Microsoft redistributables" ;;
  linux) echo "  - ONNX Runtime $ORT_VERSION (libonnxruntime.so.1) — MIT" ;;
esac
echo "  - The Go programming language, $(go env GOVERSION) (runtime and standard library) — BSD-3-Clause"
awk '{print $1" "$2}' <<<"$mods" | LC_ALL=C sort -u | sed 's/^/  - Go module /'
case "$TARGET" in
  windows-arm64) echo "  - Zig 0.11.0 runtime support (compiler-rt, libssp) — MIT; mingw-w64 runtime — see COPYING" ;;
  windows-amd64) echo "  - GCC runtime support (libgcc, libssp) and the mingw-w64 runtime (Debian gcc-mingw-w64)" ;;
esac
echo "  - Models: none shipped (see the last section)"

rule "ONNX Runtime $ORT_VERSION"
subst "$N/onnxruntime-NOTICE.txt"
echo
cat "$N/onnxruntime-LICENSE.txt"

if [ "$T_OS" = windows ]; then
  rule "DirectML.dll, dxcompiler.dll, dxil.dll"
  subst "$N/directml-NOTICE.txt"
fi

rule "Go $(go env GOVERSION)"
cat "$(go env GOROOT)/LICENSE"
[ -f "$(go env GOROOT)/PATENTS" ] && { echo; cat "$(go env GOROOT)/PATENTS"; }

# One section per module: the module root's licence files, then those in the directories of
# the packages compiled in and in their direct subfolders (C code and fonts carry their own).
while read -r path version; do
  rule "Go module $path $version"
  dirs="$(awk -v p="$path" -v v="$version" '$1==p && $2==v {print $3; print $4}' <<<"$mods" | LC_ALL=C sort -u)"
  files="$( (while read -r d; do
    [ -n "$d" ] || continue
    licence_files "$d"
    find "$d" -mindepth 1 -maxdepth 1 -type d ! -name testdata 2>/dev/null | while read -r sub; do licence_files "$sub"; done
  done <<<"$dirs") | LC_ALL=C sort -u)"
  if [ -z "$files" ]; then
    echo "(no licence file in the module; see its source repository)"
    continue
  fi
  moddir="$(awk -v p="$path" -v v="$version" '$1==p && $2==v {print $3; exit}' <<<"$mods")"
  while read -r f; do
    printf -- '--- %s ---\n\n' "${f#"$moddir"/}"
    cat "$f"
    echo
  done <<<"$files"
done < <(awk '{print $1" "$2}' <<<"$mods" | LC_ALL=C sort -u)

case "$TARGET" in
  windows-arm64)
    zdir="$(zig_dir)"
    rule "Zig 0.11.0 runtime support (compiler-rt, libssp) and the mingw-w64 runtime"
    echo "The program is linked by Zig 0.11.0, which adds parts of its own runtime library and of"
    echo "the mingw-w64 C runtime."
    echo
    cat "$zdir/LICENSE"
    echo
    printf -- '--- mingw-w64 (lib/libc/mingw/COPYING) ---\n\n'
    cat "$zdir/lib/libc/mingw/COPYING"
    ;;
  windows-amd64)
    rule "GCC runtime support and the mingw-w64 runtime"
    echo "The program is linked by Debian's $($CC_USED --version 2>/dev/null | head -n1 || echo mingw-w64 gcc),"
    echo "which adds parts of libgcc, libssp (GCC Runtime Library Exception) and the mingw-w64 runtime."
    for f in /usr/share/doc/mingw-w64-common/copyright /usr/share/doc/libgcc-s1/copyright; do
      [ -f "$f" ] && { printf -- '\n--- %s ---\n\n' "$f"; cat "$f"; }
    done
    ;;
esac

rule "Models"
cat "$N/models-NOTICE.txt"
echo
if [ -f /usr/share/common-licenses/Apache-2.0 ]; then
  cat /usr/share/common-licenses/Apache-2.0
else
  echo "(Apache License 2.0: https://www.apache.org/licenses/LICENSE-2.0)"
fi
