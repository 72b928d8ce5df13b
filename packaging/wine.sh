# wine.sh: runs the Windows packages under Wine, as a Windows user would, for check.sh (source
# it after lib.sh and winarm64.sh; it uses check.sh's ok, bad, skip, check, TMP, DIST, NAME,
# VERSION). check_wine TARGET runs one package: windows-amd64 under Debian's Wine 8 (wine64),
# windows-arm64 under Debian's arm64 Wine 10 emulated by qemu (packaging/winarm64.sh).
#
# Wine cannot show: the NPU (QNN), DirectML on a real GPU (Wine has no D3D12 device), or what
# cmd.exe does with a console or GUI program (Wine hands its own stdout to every program) —
# check.sh reads the PE headers for that.
#
# Go 1.22+ on Windows loads bcryptprimitives.dll (ProcessPrng), which Wine 8 lacks: a stand-in
# built from packaging/wine/bcryptprimitives.c with Debian's mingw goes into the prefix's
# system32. It is a test-harness file only and never ships.

WINE=/usr/lib/wine/wine64
WINESERVER=/usr/lib/wine/wineserver64
WIN_USER="Jürgen Müller" # a Windows user name with a space and non-ASCII letters

# wine_env: the environment of every Wine run: the cached prefix, quiet, our Windows user.
wine_env() {
  export WINEPREFIX="$CACHE/wine/prefix" WINEDEBUG=-all USER="$WIN_USER" WINEDLLOVERRIDES="mscoree,mshtml="
}

# wine_prefix: installs Wine and the stand-in on first use and creates the prefix once.
wine_prefix() {
  apt_ensure wine64 gcc-mingw-w64-x86-64
  wine_env
  local src="$ROOT/packaging/wine/bcryptprimitives.c" dll="$CACHE/wine/bcryptprimitives.dll"
  mkdir -p "$CACHE/wine"
  if [ ! -s "$dll" ] || [ "$src" -nt "$dll" ]; then
    say "building the ProcessPrng stand-in for Wine (test harness only)"
    x86_64-w64-mingw32-gcc -shared -O2 -Wl,--no-insert-timestamp -o "$dll.tmp" "$src" "${src%.c}.def" -ladvapi32 ||
      die "mingw could not build $dll"
    mv "$dll.tmp" "$dll"
  fi
  if [ ! -f "$WINEPREFIX/system.reg" ]; then
    say "creating the Wine prefix $WINEPREFIX (Windows user $WIN_USER)"
    wine_run wineboot -i >/dev/null 2>&1
    "$WINESERVER" -w
  fi
  cp "$dll" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
  # One server and one set of Wine's services for all the runs below, started with their output
  # on /dev/null: services started by a run whose output is captured would hold its pipe open.
  "$WINESERVER" -p 30
  wine_run wineboot </dev/null >/dev/null 2>&1
}

# winpath UNIX_PATH: the path as the Windows program sees it (C: is the prefix's drive_c, Z: is /).
winpath() {
  local p="$1" pre="${WT_PREFIX:-$WINEPREFIX}"
  case "$p" in
    "$pre/drive_c/"*) p="C:/${p#"$pre/drive_c/"}" ;;
    *) p="Z:$p" ;;
  esac
  printf '%s' "${p//\//\\}"
}

# WINE_LOCALE is the locale Wine runs in: Wine converts Unix file names with its character set,
# so it must be UTF-8 and installed (make exports LANG=en_US.UTF-8, which Debian may lack: then
# Wine falls back to ASCII and "Jürgen" becomes "JC<rgen").
WINE_LOCALE=C.UTF-8

# wine_run EXE ARGS...: runs a Windows program without a display.
wine_run() { env -u DISPLAY LC_ALL="$WINE_LOCALE" "$WINE" "$@"; }

# WCMD is the command that runs a program of the package under check ($WT); wrun EXE ARGS...
# runs one without a display. Started in the background, $! is the program's own process.
WCMD=()
wrun() { env -u DISPLAY "${WCMD[@]}" "$@"; }

# wstop: ends the wineserver of the package under check, and every program it serves.
wstop() {
  if [ "$WT" = windows-arm64 ]; then
    winarm64_stop
  else
    "$WINESERVER" -k 2>/dev/null
    "$WINESERVER" -w
  fi
}

# json_ids FILE: the generated ids of the last "done" event of generate --json, space-separated.
json_ids() {
  python3 -c 'import json,sys
done=[e for e in map(json.loads, filter(str.strip, open(sys.argv[1], encoding="utf-8"))) if e.get("type")=="done"]
print(" ".join(map(str, done[-1].get("ids") or [])) if done else "")' "$1" 2>/dev/null
}

# json_get FILE EXPR: evaluates a Python expression over the JSON document d in FILE.
json_get() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8")); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

# side_by_side WHAT WIN_OUT LINUX_OUT: prints both builds' greedy ids and checks they match.
side_by_side() {
  local what="$1" w l
  w="$(json_ids "$2")" l="$(json_ids "$3")"
  echo "      greedy ids, $what:"
  echo "        $WT (Wine): $w"
  echo "        linux-amd64:          $l"
  local f
  for f in "$2" "$3"; do # why a build gave no ids
    [ -n "$(json_ids "$f")" ] || tr -d '\r' <"${f%.jsonl}.err" 2>/dev/null | grep -v DXGI | tail -n 2 | sed "s|^|        ${f##*/}: |"
  done
  check "$WT (Wine): $what: the same greedy ids as the Linux build" test -n "$w" -a "$w" = "$l"
}

# lap WHAT: prints how long the step WHAT of check_wine took (since the last lap).
lap() {
  echo "      [$1: $((SECONDS - LAP_T)) s]"
  LAP_T=$SECONDS
}

# check_wine TARGET: the package for TARGET (windows-amd64 or windows-arm64) under Wine.
check_wine() {
  local target="$1" t0=$SECONDS
  WT="$target"
  local zip="$DIST/$NAME-$VERSION-$target.zip" tarball="$DIST/$NAME-$VERSION-linux-amd64.tar.xz"
  local arch="${target#windows-}" other=amd64
  [ "$arch" = amd64 ] && other=arm64
  if [ "$WT" = windows-arm64 ]; then
    winarm64_setup || { bad "$target (Wine): set up Wine for Arm64 (packaging/winarm64.sh)"; return; }
    WT_PREFIX="$WA_PREFIX" WCMD=("$ROOT/packaging/winarm64.sh" run)
    echo "== $target under Wine for Arm64 ($(wa_env && wa_ns "$WA_WINE" --version 2>/dev/null), qemu-user emulating a Neoverse N1; setup $((SECONDS - t0)) s)"
  else
    echo "== $target under Wine ($("$WINE" --version 2>/dev/null || echo 'Wine not installed yet'))"
    wine_prefix
    WT_PREFIX="$WINEPREFIX" WCMD=(env LC_ALL="$WINE_LOCALE" "$WINE")
  fi
  echo "      prefix: $WT_PREFIX, Windows user \"$WIN_USER\""
  LAP_T=$SECONDS
  local home="$WT_PREFIX/drive_c/users/$WIN_USER"
  [ -d "$home" ] || { bad "$target (Wine): the prefix has no profile folder for $WIN_USER"; return; }
  local appdata="$home/AppData/Roaming/EdgeChat" dir="$home/Downloads/$NAME $VERSION für Windows"
  rm -rf "$appdata" "$dir" "$home/.nuget" "$home/Documents/Modèles de test" "$home/wincheck"

  # 1. Unpack the zip as a user would: into Downloads, a folder with spaces and non-ASCII.
  mkdir -p "$dir" && unzip -q "$zip" -d "$dir" || { bad "$target (Wine): unzip into $dir"; return; }
  local com="$dir/edgechat.com" exe="$dir/$NAME.exe" out="$TMP/wine" lin="$TMP/wine-linux"
  mkdir -p "$out" "$lin"
  echo "      unpacked to $(winpath "$dir")"
  lap unpack

  # 2. --version from the console program, with the bundled ONNX Runtime found beside it.
  local v; v="$(wrun "$com" --version 2>&1 | tr -d '\r')"
  sed 's/^/      /' <<<"$v"
  check "$target (Wine): --version names $NAME $VERSION (build $BUILD_NO)" grep -qx "$NAME $VERSION (build $BUILD_NO)" <<<"$v"
  check "$target (Wine): --version finds the bundled ONNX Runtime $ORT_VERSION next to the program" \
    grep -qF "ONNX Runtime: $ORT_VERSION ($(winpath "$dir")\\onnxruntime.dll, next to the executable)" <<<"$v"
  lap --version

  # 3. sys --json: the CPU works, DirectML and QNN work or say why not; the QNN search finds the
  # libraries planted where NuGet puts them (a real ONNX Runtime of this CPU without QNN, and one
  # of the other CPU's).
  local nuget="$home/.nuget/packages/microsoft.ml.onnxruntime.qnn/$ORT_VERSION/runtimes"
  local mine="win-${arch/amd64/x64}" theirs="win-${other/amd64/x64}"
  local foreign="$CACHE/onnxruntime/$ORT_VERSION/win32-${other/amd64/x64}/onnxruntime.dll"
  [ -s "$foreign" ] || ort_libs "windows-$other" >/dev/null
  mkdir -p "$nuget/$mine/native" "$nuget/$theirs/native"
  cp "$dir/onnxruntime.dll" "$nuget/$mine/native/" && echo stand-in >"$nuget/$mine/native/QnnHtp.dll"
  [ -s "$foreign" ] && cp "$foreign" "$nuget/$theirs/native/" && echo stand-in >"$nuget/$theirs/native/QnnHtp.dll"
  wrun "$com" sys --json >"$out/sys.json" 2>"$out/sys.err"
  local summary
  summary="$(json_get "$out/sys.json" '"ONNX Runtime %s from %s; " % (d["ort_version"], d["ort_source"]) + "; ".join("%s %s" % (p["name"], "usable" if p["appends"] else "not usable: " + p.get("error", "")[:90]) for p in d["providers"] if p["name"] in ("CPU", "DML", "QNN"))')"
  echo "      sys: $summary"
  check "$target (Wine): sys --json: ONNX Runtime $ORT_VERSION loaded, the CPU provider usable" \
    test "$(json_get "$out/sys.json" '"%s %s" % (d["ort_version"], [p["appends"] for p in d["providers"] if p["name"] == "CPU"])')" = "$ORT_VERSION [True]"
  check "$target (Wine): sys --json: DirectML usable or unavailable with its reason" \
    test "$(json_get "$out/sys.json" '[p["appends"] or bool(p.get("error")) for p in d["providers"] if p["name"] == "DML"]')" = "[True]"
  check "$target (Wine): sys --json: QNN unavailable in the bundled ONNX Runtime, with its reason" \
    test "$(json_get "$out/sys.json" '[not p["appends"] and bool(p.get("error")) for p in d["providers"] if p["name"] == "QNN"]')" = "[True]"
  echo "      QNN runtimes found:"
  json_get "$out/sys.json" '"\n".join("        %s %s %s: %s" % (c.get("version"), c.get("arch"), c["path"], c.get("problem") or "usable") for c in d["qnn_runtimes"])'
  check "$target (Wine): sys finds the $mine NuGet ONNX Runtime, loads it and sees it lacks the QNN provider" \
    test "$(json_get "$out/sys.json" '[c.get("version") + " " + str(c.get("problem", "").startswith("it does not offer QNNExecutionProvider")) for c in d["qnn_runtimes"] if "'"$mine"'" in c["path"]]')" = "['$ORT_VERSION True']"
  local theirname=Arm64
  [ "$other" = amd64 ] && theirname=x64
  [ -s "$foreign" ] && check "$target (Wine): sys finds the $theirs NuGet ONNX Runtime and says this program cannot load it" \
    test "$(json_get "$out/sys.json" '[c.get("arch") + " " + str(c.get("problem", "").startswith("built for '"$theirname"'")) for c in d["qnn_runtimes"] if "'"$theirs"'" in c["path"]]')" = "['$other True']"

  lap sys
  # 4. generate: greedy ids of the Windows build (under Wine) and the Linux build side by side,
  # on a generated model in a folder with spaces and non-ASCII.
  local model="$home/Documents/Modèles de test/tiny" linbin=""
  (cd "$ROOT" && go run ./tools/mkmodel --out "$model" >/dev/null) || { bad "$target (Wine): mkmodel"; return; }
  if [ -s "$tarball" ] && tar -xJf "$tarball" -C "$lin"; then
    linbin="$lin/$NAME-$VERSION-linux-amd64/edgechat"
  else
    bad "$target (Wine): no Linux package ($tarball) to compare the ids with"
  fi
  local gen=(generate --prompt "Why is the sky blue?" --max-tokens 24 --temperature 0 --no-think --json)
  wrun "$com" "${gen[@]}" --model "$(winpath "$model")" >"$out/gen.jsonl" 2>"$out/gen.err"
  [ -n "$linbin" ] && EDGECHAT_CACHE="$TMP/nocache" "$linbin" "${gen[@]}" --model "$model" >"$lin/gen.jsonl" 2>"$lin/gen.err"
  side_by_side "generated tiny model" "$out/gen.jsonl" "$lin/gen.jsonl"

  # A route on DirectML falls back to the CPU and says why.
  wrun "$com" generate --npu-model "$(winpath "$model")" --npu-ep dml --cpu-model "$(winpath "$model")" \
    --prompt "Why is the sky blue?" --max-tokens 24 --temperature 0 --no-think >"$out/dml.txt" 2>"$out/dml.err"
  local reason; reason="$(tr -d '\r' <"$out/dml.err" | grep -m1 '^\[route\] fallback' || true)"
  echo "      dml route: ${reason:-$(tail -n 3 "$out/dml.err")}"
  check "$target (Wine): a DirectML route falls back to the CPU with the reason" grep -q 'fallback: .\+' <<<"$reason"

  # The real stories260K model (raw completion when generate has --raw).
  local stories="$ROOT/../shared/models/stories260K"
  [ -d "$stories" ] || stories="/work/shared/models/stories260K"
  if [ -d "$stories" ]; then
    local sargs=(generate --max-tokens 32 --temperature 0 --json) what="stories260K, raw completion"
    local help; help="$(wrun "$com" generate --help 2>&1)" # exits 2: no pipe under pipefail
    if grep -q -- '^ *-raw' <<<"$help"; then
      sargs+=(--raw --prompt "Once upon a time")
    else
      sargs+=(--no-think --prompt "Once upon a time")
      what="stories260K, chat (this generate has no --raw yet)"
    fi
    wrun "$com" "${sargs[@]}" --model "$(winpath "$stories")" >"$out/stories.jsonl" 2>"$out/stories.err"
    [ -n "$linbin" ] && EDGECHAT_CACHE="$TMP/nocache" "$linbin" "${sargs[@]}" --model "$stories" >"$lin/stories.jsonl" 2>"$lin/stories.err"
    local lerr; lerr="$(grep -m1 '^edgechat generate: ' "$lin/stories.err" 2>/dev/null | sed 's/.*: //')"
    if [ -z "$(json_ids "$lin/stories.jsonl")" ] && [ -n "$lerr" ] && tr -d '\r' <"$out/stories.err" | grep -qF "$lerr"; then
      # Both builds refuse the model the same way: nothing to compare until generate reads it.
      echo "      $what: not compared, both builds say: $lerr"
    else
      side_by_side "$what" "$out/stories.jsonl" "$lin/stories.jsonl"
    fi
  else
    echo "      (no stories260K model in ../shared/models: skipped)"
  fi

  lap generate
  # 5. serve on loopback, asked by a Linux client. Under Wine for Arm64 the emulated laptop is
  # unplugged and plugged in again between requests: each reply says the power mode it ran in.
  local port=$((20000 + RANDOM % 20000)) pid answer=""
  ask() {
    curl -sf -m 120 "http://127.0.0.1:$port/v1/chat/completions" -H 'Content-Type: application/json' \
      -d '{"messages":[{"role":"user","content":"Hi"}],"max_tokens":8,"temperature":0}' 2>/dev/null
  }
  [ "$WT" = windows-arm64 ] && winarm64_power ac
  local t=$SECONDS
  env -u DISPLAY "${WCMD[@]}" "$com" serve --model "$(winpath "$model")" --addr "127.0.0.1:$port" >"$out/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 240); do
    answer="$(ask)" && break
    sleep 0.5
  done
  echo "      serve: ${answer:0:160} ($((SECONDS - t)) s)"
  check "$target (Wine): serve answers a chat completion from a Linux client" \
    test "$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["object"], d["choices"][0]["finish_reason"] in ("stop", "length"))' "$answer" 2>/dev/null)" = "chat.completion True"
  if [ "$WT" = windows-arm64 ]; then
    local modes=() state p
    for state in ac battery ac; do
      winarm64_power "$state"
      p="$(python3 -c 'import json,sys; p=json.loads(sys.argv[1])["x_edgechat"]["power"]; print("%s/%d/%s" % (p["mode"], p["threads"], p["why"]))' "$(ask)" 2>/dev/null)"
      modes+=("$state=$p")
    done
    winarm64_power none
    echo "      power modes: ${modes[*]}"
    check "$target (Wine): the reply runs at full speed on AC, in battery saver (half the threads) on battery, at full speed again plugged in" \
      grep -qE '^ac=performance/2/on AC power battery=saver/1/on battery \(40%\) ac=performance/2/on AC power' <<<"${modes[*]}"
  fi
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  lap serve

  # 6. Windows-only code paths (packaging/wincheck), run in the user's profile.
  local wc="$home/wincheck"
  mkdir -p "$wc"
  if (cd "$ROOT" && GOOS=windows GOARCH="$arch" CGO_ENABLED=0 go build -o "$TMP/wincheck.exe" ./packaging/wincheck); then
    local r; r="$(wrun "$TMP/wincheck.exe" "$(winpath "$wc")" 2>&1 | tr -d '\r')"
    while IFS= read -r line; do
      case "$line" in
        "ok    "*) ok "$target (Wine): ${line#ok    }" ;;
        "FAIL  "*) bad "$target (Wine): ${line#FAIL  }" ;;
        *) echo "      $line" ;;
      esac
    done <<<"$r"
  else
    bad "$target (Wine): build packaging/wincheck"
  fi
  rm -rf "$wc"
  lap wincheck
  if [ "$WT" = windows-arm64 ]; then
    wine_gotest
  # The QNN runtime search on fake trees with Windows paths, the PE reader on the real DLL, the
  # provider lister loading it (edgechat/inference/ort/env's tests built for Windows).
  elif (cd "$ROOT" && GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc \
    go test -c -o "$TMP/ortenv.test.exe" ./inference/ort/env); then
    r="$(EDGECHAT_CACHE="$(winpath "$CACHE")" wrun "$TMP/ortenv.test.exe" -test.count=1 -test.v \
      -test.run 'TestDiscover|TestReadPE|TestExplain|TestVersionLess|TestInit|TestProviders' 2>&1 | tr -d '\r')"
    echo "      ortenv tests: $(grep -E '^--- ' <<<"$r" | awk '{print $3 "=" $2}' | tr -d ':' | tr '\n' ' ')"
    check "$target (Wine): edgechat/inference/ort/env's Windows tests pass (QNN search, PE reader, providers)" \
      grep -qx PASS <<<"$r"
  else
    bad "$target (Wine): build edgechat/inference/ort/env's tests for Windows"
  fi

  lap "Windows-only tests"

  # 7. The window under Xvfb: first run with settings in %APPDATA%, a reply killed halfway,
  # then a restart that finds the settings and the conversation. The wineserver of the runs
  # above has a desktop without a display (GLFW: "Failed to create helper window"): stop it.
  wstop
  wine_window "$exe" "$model" "$appdata" "$out"
  wstop
  lap window
  echo "      $target under Wine: $((SECONDS - t0)) s"
}

# wine_gotest: the Windows-only packages' tests, built for windows/arm64 and run by go test
# -exec under Wine for Arm64 (the Windows program gets the cache as a Windows path; the
# emulator's setup is named by WINARM64_HOME). internal/rss's Windows code has no tests of its
# own: packaging/wincheck runs it.
wine_gotest() {
  local pkgs=(./inference/ort/env ./internal/host ./internal/atomicfile ./models/hub) r t=$SECONDS
  r="$(cd "$ROOT" && GOOS=windows GOARCH=arm64 CGO_ENABLED=1 CC="$(zig_cc aarch64-windows-gnu)" CGO_LDFLAGS=-fstack-protector-strong \
    EDGECHAT_CACHE="$(winpath "$CACHE")" WINARM64_HOME="$WA" go test -count=1 -exec "$ROOT/packaging/winarm64.sh run" "${pkgs[@]}" 2>&1 | tr -d '\r')"
  sed -n -E 's/^(ok|FAIL|---|panic:)/        &/p' <<<"$r" | head -n 20
  local p
  for p in "${pkgs[@]}"; do
    check "$WT (Wine): go test -exec: edgechat/${p#./}'s tests pass on windows/arm64" grep -qE "^ok[[:space:]]+edgechat/${p#./}[[:space:]]" <<<"$r"
  done
  echo "      go test -exec for ${#pkgs[@]} packages: $((SECONDS - t)) s"
}

# wine_window EXE MODEL APPDATA_DIR OUT: the GUI part of check_wine.
wine_window() {
  local exe="$1" model="$2" appdata="$3" out="$4" target="$WT"
  local shot="$DIST/$WT-window.png" conv="$appdata/conversations" settings="$appdata/settings.yaml"
  mkdir -p "$appdata"
  # What Settings → Save writes: the CPU route on the generated model; a long reply to kill.
  printf 'cpu:\n  model: %s\nmax_tokens: 4000\nrepetition_penalty: 1.3\n' "$(winpath "$model")" >"$settings"
  local before; before="$(sha256sum <"$settings")"
  rm -f "$shot"
  local log; log="$(LC_ALL="$WINE_LOCALE" xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
    exe=$1 conv=$2 shot=$3 out=$4
    shift 4 # the rest runs a Windows program
    start() {
      "$@" "$exe" >>"$out/window.log" 2>&1 & pid=$!
      wid=""
      for i in $(seq 1 600); do wid=$(xdotool search --onlyvisible --name "^EdgeChat\$" 2>/dev/null | head -n1); [ -n "$wid" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.5; done
      [ -n "$wid" ] || { echo "no window"; return 1; }
      # Drawn: the window is not one colour (the first frames take a while under emulation).
      t0=$SECONDS
      for i in $(seq 1 120); do
        /usr/bin/import -window "$wid" "$out/drawn.png" 2>/dev/null
        sd=$(/usr/bin/convert "$out/drawn.png" -format "%[fx:standard_deviation]" info: 2>/dev/null)
        awk -v s="${sd:-0}" "BEGIN { exit !(s > 0.02) }" && break
        sleep 1
      done
      echo "drawn after $((SECONDS - t0)) s"
      sleep 3
      echo "title=$(xdotool getwindowname "$wid")"
      eval "$(xdotool getwindowgeometry --shell "$wid")"
      echo "geometry=${WIDTH}x${HEIGHT}"
    }
    # Run 1: ask, and kill the program while the reply streams.
    start "$@" || exit 0
    xdotool mousemove $((X + WIDTH * 3 / 5)) $((Y + HEIGHT - 45)) click 1; sleep 0.5
    xdotool type --delay 20 "Tell me a long story"; xdotool key Return
    streaming=""
    for i in $(seq 1 240); do # the first reply loads the model
      f=$(ls "$conv"/*.json 2>/dev/null | head -n1)
      if [ -n "$f" ] && python3 -c "import json,sys; m=json.load(open(sys.argv[1]))[\"messages\"]; sys.exit(not (len(m) == 2 and m[1][\"content\"] and not m[1].get(\"stats\")))" "$f" 2>/dev/null; then
        streaming=yes; break
      fi
      sleep 0.25
    done
    echo "streaming=$streaming"
    kill -9 $pid; wait $pid 2>/dev/null
    echo "killed"
    sleep 1
    # Run 2: the same settings and the conversation are there.
    start "$@" || exit 0
    xdotool mousemove $((X + 10)) $((Y + 10)); sleep 0.5
    /usr/bin/import -window "$wid" "$shot"
    kill $pid 2>/dev/null; wait $pid 2>/dev/null; true
  ' _ "$exe" "$conv" "$shot" "$out" "${WCMD[@]}" 2>&1)"
  sed 's/^/      /' <<<"$log"
  check "$target (Wine): the window opens, titled $NAME (Xvfb, Wine's OpenGL)" grep -qx "title=$NAME" <<<"$log"
  check "$target (Wine): the chat's reply was streaming when the program was killed" grep -qx "streaming=yes" <<<"$log"
  local files; files="$(ls "$conv"/*.json 2>/dev/null)"
  echo "      conversations: $(ls "$conv" 2>/dev/null | tr '\n' ' ')"
  check "$target (Wine): the conversation landed in %APPDATA%\\EdgeChat\\conversations" test "$(wc -l <<<"$files")" = 1 -a -n "$files"
  check "$target (Wine): after the kill the conversation file parses and holds the question and part of the reply" \
    test "$(json_get "$(head -n1 <<<"$files")" '"%s|%s" % (d["messages"][0]["content"], bool(d["messages"][1]["content"]))')" = "Tell me a long story|True"
  check "$target (Wine): settings.yaml in %APPDATA%\\EdgeChat is unchanged after the kill and the restart" \
    test "$(sha256sum <"$settings" 2>/dev/null)" = "$before"
  check "$target (Wine): the restarted window opens" test "$(grep -c '^title=' <<<"$log")" = 2
  check "$target (Wine): the restart sets nothing aside (no .corrupt or recovered files)" \
    test -z "$(ls -a "$conv" 2>/dev/null | grep -E 'corrupt|\.tmp-' || true)"
  if [ -s "$shot" ]; then
    local sd; sd="$(/usr/bin/convert "$shot" -format '%[fx:standard_deviation]' info: 2>/dev/null)"
    check "$target (Wine): screenshot ${shot#"$ROOT"/} is not blank (std dev $sd)" awk -v s="$sd" 'BEGIN{exit !(s > 0.02)}'
  else
    bad "$target (Wine): no screenshot"
  fi
  [ -s "$out/window.log" ] && { echo "      app log (tail):"; tr -d '\r' <"$out/window.log" | tail -n 4 | sed 's/^/        /'; }
}
