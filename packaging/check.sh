#!/usr/bin/env bash
# check.sh checks the packages in build/dist/ the way a person would before a release:
#   Windows zips: the file list; EdgeChat.exe is a PE32+ GUI program for the right CPU, and
#     edgechat.com the same bytes marked as a console program (the command line); it imports
#     only Windows system DLLs and what the zip ships; its resources hold the icon, the version
#     and the manifest; the ONNX Runtime DLLs are the checked ones.
#   Both Windows zips also run under Wine (packaging/wine.sh), the Arm64 one under Wine for
#     Arm64 emulated by qemu (packaging/winarm64.sh): --version, sys, generate with the Linux
#     build's greedy ids beside it, serve (on Arm64 also unplugged and plugged in: battery
#     saver and back), the window with a reply killed halfway and a restart, the Windows-only
#     code paths (screenshots: build/dist/windows-amd64-window.png, windows-arm64-window.png).
#   Linux tar.xz: the file list; the binary's libraries resolve; --version names the version,
#     the commit and the bundled ONNX Runtime; the desktop file is valid; under Xvfb the app
#     opens a window titled EdgeChat carrying the icon (screenshot: build/dist/linux-window.png).
# Usage: packaging/check.sh [TARGET...] (default: every package found in build/dist/).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/winarm64.sh"
. "$(dirname "$0")/wine.sh"

apt_ensure file unzip xz-utils xvfb xauth libgl1-mesa-dri imagemagick xdotool x11-utils \
  desktop-file-utils binutils curl python3
command -v llvm-objdump >/dev/null || apt_ensure llvm-14
OBJDUMP="$(command -v llvm-objdump || echo /usr/lib/llvm-14/bin/llvm-objdump)"
READOBJ="$(command -v llvm-readobj || echo /usr/lib/llvm-14/bin/llvm-readobj)"

VERSION="$(toml_value Version)"
BUILD_NO="$(toml_value Build)"
NAME="$(toml_value Name)"
APP_ID="$(toml_value ID)"
failed=0 passed=0 skipped=0
ok() { printf 'ok    %s\n' "$*"; passed=$((passed + 1)); }
skip() { printf 'skip  %s\n' "$*"; skipped=$((skipped + 1)); }
bad() { printf 'FAIL  %s\n' "$*"; failed=$((failed + 1)); }
check() { local what="$1"; shift; if "$@" >/dev/null 2>&1; then ok "$what"; else bad "$what"; fi; }
TMP="$(mktemp -d)"
trap 'winarm64_stop >/dev/null 2>&1; rm -rf "$TMP"' EXIT

# DLLs every Windows install has (plus the API sets). Compared case-insensitively.
SYSTEM_DLLS="advapi32 bcrypt comctl32 comdlg32 crypt32 dwmapi gdi32 imm32 kernel32 msvcrt ntdll
ole32 oleaut32 opengl32 powrprof setupapi shcore shell32 shlwapi user32 userenv uxtheme
version winmm ws2_32 winspool.drv dnsapi iphlpapi netapi32 secur32 wtsapi32"

# same_list NAME WANT GOT: compares two newline lists.
same_list() {
  if [ "$2" = "$3" ]; then ok "$1"; else
    bad "$1"; diff <(echo "$2") <(echo "$3") | sed 's/^/        /'
  fi
}

check_windows() {
  local target="$1" cpu="$2" zip dir exe
  zip="$DIST/$NAME-$VERSION-$target.zip"
  echo "== $target: ${zip#"$ROOT"/} ($(du -h "$zip" | cut -f1))"
  dir="$TMP/$target" && mkdir -p "$dir" && unzip -q "$zip" -d "$dir" || { bad "$target: unzip"; return; }
  exe="$dir/$NAME.exe"
  local com="$dir/$(tr 'A-Z' 'a-z' <<<"$NAME").com"
  same_list "$target: zip holds exactly the program, its console twin, ONNX Runtime, README and notices" \
    "$(printf '%s\n' "$NAME.exe" "${com##*/}" DirectML.dll README.txt THIRD_PARTY_NOTICES.txt dxcompiler.dll dxil.dll onnxruntime.dll | LC_ALL=C sort)" \
    "$(unzip -Z1 "$zip" | LC_ALL=C sort)"

  local kind; kind="$(file -b "$exe")"
  echo "      file: $kind"
  check "$target: $NAME.exe is a PE32+ GUI program for $cpu" grep -qE "^PE32\+ executable \(GUI\) $cpu" <<<"$kind"
  local hdr; hdr="$("$OBJDUMP" -p "$exe")"
  check "$target: PE header says subsystem 2 (Windows GUI)" grep -qE '^Subsystem[[:space:]]+0*2([[:space:]]|$)' <<<"$hdr"
  # The command line: cmd and PowerShell pick edgechat.com before EdgeChat.exe, wait for it and
  # give it their console. It must be the same program: only the subsystem field (and the
  # checksum beside it) may differ.
  local pe diff
  check "$target: ${com##*/} is a PE32+ console program for $cpu" grep -qE "^PE32\+ executable \(console\) $cpu" <<<"$(file -b "$com")"
  check "$target: ${com##*/}'s PE header says subsystem 3 (Windows console)" grep -qE '^Subsystem[[:space:]]+0*3([[:space:]]|$)' <<<"$("$OBJDUMP" -p "$com")"
  pe="$(od -An -tu4 -j60 -N4 "$exe" | tr -d ' ')"
  diff="$(cmp -l "$exe" "$com" | awk -v lo=$((pe + 88)) -v hi=$((pe + 94)) '$1 - 1 < lo || $1 - 1 >= hi {n++} END {print n + 0}')"
  check "$target: ${com##*/} differs from $NAME.exe only in the subsystem and checksum fields" test "$diff" = 0 -a "$(cmp -s "$exe" "$com"; echo $?)" = 1

  local imports shipped extra=""
  imports="$(grep -E '^[[:space:]]*DLL Name:' <<<"$hdr" | awk '{print $3}' | tr 'A-Z' 'a-z' | LC_ALL=C sort -u)"
  shipped="$(unzip -Z1 "$zip" | grep -i '\.dll$' | tr 'A-Z' 'a-z')"
  echo "      imports: $(tr '\n' ' ' <<<"$imports")"
  for d in $imports; do
    case " $(tr '\n' ' ' <<<"$SYSTEM_DLLS") " in *" ${d%.dll} "* | *" $d "*) continue ;; esac
    case "$d" in api-ms-win-* | ext-ms-win-*) continue ;; esac
    grep -qx "$d" <<<"$shipped" || extra="$extra $d"
  done
  if [ -z "$extra" ]; then ok "$target: imports only system DLLs and shipped ones"; else bad "$target: imports DLLs nobody ships:$extra"; fi
  check "$target: onnxruntime.dll is loaded at run time, not imported" bash -c "! grep -qx onnxruntime.dll <<<'$imports'"

  local res; res="$("$READOBJ" --coff-resources "$exe" 2>&1)"
  check "$target: .rsrc section present" grep -q '\.rsrc' <<<"$("$OBJDUMP" -h "$exe")"
  for kind in ICON GROUP_ICON VERSIONINFO MANIFEST; do
    check "$target: resources hold $kind" grep -qE "Type: $kind( |\$)" <<<"$res"
  done
  local strs; strs="$(strings -el "$exe")"
  check "$target: version resource says ProductName $NAME" grep -qx "$NAME" <<<"$strs"
  check "$target: version resource says ProductVersion $VERSION.$BUILD_NO" grep -qx "$VERSION.$BUILD_NO" <<<"$strs"
  # Fyne's desktop OpenGL painter on both CPUs: Wine and many Windows-on-Arm drivers offer no
  # OpenGL ES context (packaging/glcore).
  check "$target: $NAME.exe draws with desktop OpenGL (go-gl's v2.1 bindings, not OpenGL ES)" \
    bash -c "grep -qaF go-gl/gl/v2.1/gl '$exe' && ! grep -qaF go-gl/gl/v3.1/gles2 '$exe'"
  local rev; rev="$(cat "$BUILD/pkg/$target/commit" 2>/dev/null || echo "(no build/pkg/$target/commit)")"
  check "$target: binary carries the stamped commit $rev" grep -qaF "$rev" "$exe"

  local arch sum
  arch="${target#windows-}" && arch="${arch/amd64/x64}"
  for d in onnxruntime.dll DirectML.dll dxcompiler.dll dxil.dll; do
    sum="$(sha256sum "$CACHE/onnxruntime/$ORT_VERSION/win32-$arch/$d" 2>/dev/null | cut -d' ' -f1)"
    check "$target: $d is onnxruntime-node@$ORT_VERSION's win32/$arch file (sha256 ${sum:0:12}…)" \
      test -n "$sum" -a "$sum" = "$(sha256sum "$dir/$d" | cut -d' ' -f1)"
    check "$target: $d is a PE32+ DLL for $cpu" grep -qE "^PE32\+ executable \(DLL\).* $cpu" <<<"$(file -b "$dir/$d")"
  done
  check "$target: README explains models and the QNN runtime" grep -q EDGECHAT_ORT_LIB "$dir/README.txt"
  check "$target: notices cover ONNX Runtime, Go, Fyne and onnxruntime_go" bash -c \
    "grep -q 'MIT License' '$dir/THIRD_PARTY_NOTICES.txt' && grep -q '^Go go1' '$dir/THIRD_PARTY_NOTICES.txt' &&
     grep -q 'Go module fyne.io/fyne/v2' '$dir/THIRD_PARTY_NOTICES.txt' && grep -q 'Go module github.com/yalue/onnxruntime_go' '$dir/THIRD_PARTY_NOTICES.txt'"
}

check_linux() {
  local target=linux-amd64 tarball dir bin
  tarball="$DIST/$NAME-$VERSION-$target.tar.xz"
  echo "== $target: ${tarball#"$ROOT"/} ($(du -h "$tarball" | cut -f1))"
  tar -xJf "$tarball" -C "$TMP" || { bad "$target: untar"; return; }
  dir="$TMP/$NAME-$VERSION-$target"
  bin="$dir/edgechat"
  same_list "$target: archive holds the program, ONNX Runtime, desktop file, icon, installer, README, notices" \
    "$(printf '%s\n' edgechat libonnxruntime.so.1 "$APP_ID.desktop" "$APP_ID.png" install.sh README.txt THIRD_PARTY_NOTICES.txt | sed "s|^|$NAME-$VERSION-$target/|" | LC_ALL=C sort)" \
    "$(tar -tJf "$tarball" | grep -v '/$' | LC_ALL=C sort)"
  local kind; kind="$(file -b "$bin")"
  echo "      file: ${kind:0:100}"
  check "$target: edgechat is an x86-64 ELF executable" grep -qE '^ELF 64-bit LSB (pie )?executable, x86-64' <<<"$kind"
  check "$target: all shared libraries resolve" bash -c "! ldd '$bin' | grep -q 'not found'"
  check "$target: desktop file is valid" desktop-file-validate "$dir/$APP_ID.desktop"
  check "$target: icon is a 512x512 PNG" grep -q 'PNG image data, 512 x 512' <<<"$(file -b "$dir/$APP_ID.png")"

  local v
  v="$(cd "$TMP" && env -u EDGECHAT_ORT_LIB EDGECHAT_CACHE="$TMP/nocache" LANG=en_US.UTF-8 "$bin" --version 2>/dev/null)"
  sed 's/^/      /' <<<"$v"
  check "$target: --version names version $VERSION and build $BUILD_NO" grep -qx "$NAME $VERSION (build $BUILD_NO)" <<<"$v"
  check "$target: --version names a commit" grep -qE '^Commit: [0-9a-f]{7,}(-dirty)?$' <<<"$v"
  check "$target: --version finds the bundled ONNX Runtime $ORT_VERSION" grep -qF "ONNX Runtime: $ORT_VERSION ($dir/libonnxruntime.so.1, next to the executable)" <<<"$v"

  # A real window under Xvfb: find it by title, read its icon property, take a screenshot.
  local shot="$DIST/linux-window.png" out
  mkdir -p "$TMP/home"
  out="$(HOME="$TMP/home" LANG=en_US.UTF-8 EDGECHAT_CACHE="$TMP/nocache" timeout 60 \
    xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
      "$1" >"$2/app.log" 2>&1 & pid=$!
      for i in $(seq 1 40); do wid=$(xdotool search --onlyvisible --name "^EdgeChat" 2>/dev/null | head -n1); [ -n "$wid" ] && break; sleep 0.5; done
      sleep 3
      echo "window=$wid"
      [ -n "$wid" ] && echo "title=$(xdotool getwindowname "$wid")" && echo "geometry=$(LC_ALL=C xwininfo -id "$wid" | sed -n "s/.*-geometry //p")"
      [ -n "$wid" ] && echo "icon=$(xprop -notype -id "$wid" 32c _NET_WM_ICON | head -c 200 | grep -oE "= [0-9]+, [0-9]+," | head -n1)"
      /usr/bin/import -window "${wid:-root}" "$3"
      kill $pid 2>/dev/null; wait $pid 2>/dev/null; true' _ "$bin" "$TMP" "$shot" 2>&1)"
  sed 's/^/      /' <<<"$out"
  check "$target: the app opens a window titled $NAME under Xvfb" grep -qE "^title=$NAME" <<<"$out"
  check "$target: the window carries the 512x512 icon (_NET_WM_ICON)" grep -qx 'icon== 512, 512,' <<<"$out"
  if [ -s "$shot" ]; then
    local sd; sd="$(/usr/bin/convert "$shot" -format '%[fx:standard_deviation]' info: 2>/dev/null)"
    check "$target: screenshot ${shot#"$ROOT"/} is not blank (std dev $sd)" awk -v s="$sd" 'BEGIN{exit !(s > 0.02)}'
  else
    bad "$target: no screenshot"
  fi
  [ -s "$TMP/app.log" ] && { echo "      app log (tail):"; tail -n 5 "$TMP/app.log" | sed 's/^/        /'; }
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for t in windows-arm64 windows-amd64 linux-amd64; do
    ls "$DIST/$NAME-$VERSION-$t".* >/dev/null 2>&1 && targets+=("$t")
  done
  [ ${#targets[@]} -gt 0 ] || die "no packages in ${DIST#"$ROOT"/}: run make package first"
fi
for t in "${targets[@]}"; do
  case "$t" in
    windows-arm64) check_windows "$t" Aarch64; check_wine "$t" ;;
    windows-amd64) check_windows "$t" x86-64; check_wine "$t" ;;
    linux-amd64) check_linux ;;
    *) bad "unknown target $t" ;;
  esac
done
echo "package-check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
