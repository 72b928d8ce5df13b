#!/usr/bin/env bash
# winarm64.sh runs Windows on Arm (Arm64) programs on this Linux machine: Debian's arm64 Wine,
# under qemu user-mode emulation on an x86-64 machine (natively on an aarch64 one).
#
#   packaging/winarm64.sh [setup]              set it up (the first time some minutes; then ~1 s)
#   packaging/winarm64.sh run PROGRAM ARGS...  run a Windows Arm64 program in the prefix; its
#                                              stdout, stderr and exit code pass through
#   packaging/winarm64.sh power ac|battery|none  what the emulated laptop runs on (Wine reads
#                                              it from /sys/class/power_supply)
#   packaging/winarm64.sh stop                 end the prefix's wineserver
#   packaging/winarm64.sh path FILE            FILE's Windows path as the program sees it
#
# Everything goes into the cache ($EDGECHAT_CACHE/winarm64, default ~/.cache/edgechat): a
# private apt setup that downloads Debian's arm64 Wine and what it needs, unpacked with
# dpkg-deb into a private root; qemu-user-static, unpacked the same way; the Wine prefix.
# Nothing is installed system-wide except one binfmt_misc registration (root) that hands
# aarch64 Linux programs to qemu, with the F flag so that Wine's own children — the
# wineserver, each Windows program — are emulated too.
#
# Why Debian's Wine 10 (trixie) and not bookworm's Wine 8: bookworm's arm64 Wine is built
# without a PE compiler, so its Windows DLLs are ELF libraries with Linux's calling convention
# for variable arguments. ONNX Runtime's vsnprintf into ucrtbase then crashes, and Wine 8 cannot
# unwind ARM64 code signed with pointer authentication (unwind code 0xfc), so the crash becomes
# an endless exception loop at one core. Trixie's Wine 10 ships real ARM64 PE DLLs, unwinds
# PAC code and has ProcessPrng (Go >= 1.22), so no stand-in DLL is needed.
#
# qemu emulates a Neoverse N1 (ARMv8.2: dot product, fp16, LSE atomics), not its default "max"
# CPU: Debian's Wine 10 is built with branch protection but its hand-written system call
# dispatcher has no BTI landing pad, so on a CPU with BTI the first system call faults and the
# program loops on the fault.
#
# Each program runs in a private mount namespace (root) where, without touching the system:
#   - /usr/lib also shows the private root's /usr/lib (an overlay), so the arm64 loader and
#     libraries are where the unmodified Wine binaries ask for them;
#   - where the kernel lists no CPU caches in sysfs (some VMs), /sys/devices/system/cpu is a
#     copy that adds a Snapdragon X Elite's caches (L1i 192 KB, L1d 96 KB, L2 12 MB): ONNX
#     Runtime's CPU detection (cpuinfo) gives up without them;
#   - /sys/class/power_supply is what `power` last set, when set.
# After each wineserver start the registry gets a Snapdragon X Elite's processor name, MIDR
# (CP 4000) and clock (~MHz) under HKLM\HARDWARE\DESCRIPTION\System\CentralProcessor\N, which
# cpuinfo reads on Windows and a fresh prefix lacks (the HARDWARE key lives only while its
# wineserver runs).
#
# Sourced (packaging/check.sh does), it defines winarm64_setup, winarm64_run, winarm64_stop,
# winarm64_power and winarm64_path and runs nothing.

if [ -z "${ROOT:-}" ] || ! declare -F say >/dev/null; then
  . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
fi

# WINARM64_HOME names the setup when EDGECHAT_CACHE is the Windows program's (go test -exec).
WA="${WINARM64_HOME:-$CACHE/winarm64}"
WA_ROOT="$WA/root"
WA_PREFIX="$WA/prefix"
WA_SYS="$WA/sys"
WA_SUITE=trixie
WA_WINE="$WA_ROOT/usr/lib/wine/wine64"
WA_SERVER="$WA_ROOT/usr/lib/wine/wineserver64"
WA_USER="${WIN_USER:-Jürgen Müller}" # the Windows user: a space and non-ASCII letters
# Debian's arm64 packages: Wine and its fonts, FreeType and fontconfig (without them before
# wineboot every window is one pixel tall), X11 and Mesa's OpenGL for windows under Xvfb.
WA_PACKAGES=(wine64 libwine fonts-wine libfreetype6 libfontconfig1 fontconfig-config
  libx11-6 libxext6 libxrender1 libxcursor1 libxi6 libxrandr2 libxinerama1 libxxf86vm1
  libxcomposite1 libxfixes3 libgl1 libglx-mesa0 libgl1-mesa-dri)
# A Snapdragon X Elite (X1E-78-100): Qualcomm Oryon cores, MIDR_EL1 0x511F0011, 3.4 GHz.
WA_CPU_NAME="Snapdragon(R) X Elite - X1E78100 - Qualcomm(R) Oryon(TM) CPU"
WA_CPU_MIDR=511f0011
WA_CPU_MHZ=3417

wa_native() { [ "$(uname -m)" = aarch64 ]; }

# wa_apt ARGS...: apt-get on the private arm64 setup in $WA/apt: its own sources (the
# system's Debian archive and security sources, suite $WA_SUITE), lists, package cache and
# an empty dpkg status, so nothing of the system's apt changes.
wa_apt() {
  local a="$WA/apt"
  "$@" -o Dir::Etc="$a/etc" -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$a/etc/sources.list.d" \
    -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$a/etc/preferences.d" \
    -o Dir::Etc::Trusted=/etc/apt/trusted.gpg -o Dir::Etc::TrustedParts=/etc/apt/trusted.gpg.d \
    -o Dir::State="$a/state" -o Dir::State::status="$a/status" -o Dir::Cache="$a/cache" \
    -o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o Debug::NoLocking=1 -o APT::Sandbox::User=root
}

# wa_sources: writes the private sources from the system's Debian sources (deb822 files or
# one-line entries for the Debian archive and its security archive).
wa_sources() {
  local out="$WA/apt/etc/sources.list.d/debian.sources" uri="" sec="" f u
  mkdir -p "$WA/apt/etc/sources.list.d" "$WA/apt/etc/preferences.d" "$WA/apt/state/lists/partial" "$WA/apt/cache/archives/partial"
  touch "$WA/apt/status"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    grep -q 'debian-archive-keyring' "$f" || continue
    while read -r u; do
      case "$u" in */debian-security | */debian-security/) sec="${sec:-$u}" ;; */debian | */debian/) uri="${uri:-$u}" ;; esac
    done < <(sed -n 's/^URIs:[[:space:]]*//p' "$f" | tr ' ' '\n')
  done
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri="$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):.*\/debian\/?$/) { print $i; exit } }' /etc/apt/sources.list)"
    sec="$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):.*\/debian-security\/?$/) { print $i; exit } }' /etc/apt/sources.list)"
  fi
  [ -n "$uri" ] || die "no Debian archive among the system's apt sources: add one (deb822 in /etc/apt/sources.list.d, signed by debian-archive-keyring)"
  {
    printf 'Types: deb\nArchitectures: arm64\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" "$WA_SUITE" "$WA_SUITE"
    [ -z "$sec" ] || printf '\nTypes: deb\nArchitectures: arm64\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$sec" "$WA_SUITE"
  } >"$out.tmp" && mv "$out.tmp" "$out"
}

# wa_root: downloads the arm64 packages and their dependencies into $WA/debs and unpacks them
# into the private root, once for a given package list.
wa_root() {
  local stamp="$WA_ROOT/.edgechat-packages" want="$WA_SUITE ${WA_PACKAGES[*]}"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return 0
  local t=$SECONDS
  say "winarm64: downloading Debian $WA_SUITE's arm64 Wine into ${WA#"$HOME"/} (about 190 MB)"
  wa_sources
  wa_apt apt-get update -qq || die "apt-get update of the private arm64 sources failed"
  mkdir -p "$WA/debs/partial"
  wa_apt apt-get install -qq -d -y --no-install-recommends -o Dir::Cache::archives="$WA/debs" "${WA_PACKAGES[@]}" >/dev/null ||
    die "downloading the arm64 packages failed"
  local debs=("$WA/debs"/*.deb) d
  say "winarm64: unpacking ${#debs[@]} packages"
  rm -rf "$WA_ROOT.tmp" && mkdir -p "$WA_ROOT.tmp"
  for d in "${debs[@]}"; do
    dpkg-deb --fsys-tarfile "$d" | tar -x -C "$WA_ROOT.tmp" --exclude='./usr/share/doc/*' --exclude='./usr/share/man/*' \
      --exclude='./usr/share/locale/*' || die "unpacking $d failed"
  done
  # Debian starts wineserver64 through a script that names /usr/lib/wine/wineserver64, and
  # its Wine looks for its data in share/wine/wine (a packaging move): point both home.
  ln -sfn wineserver64 "$WA_ROOT.tmp/usr/lib/wine/wineserver"
  ln -sfn . "$WA_ROOT.tmp/usr/share/wine/wine"
  if [ ! -x "$WA_ROOT.tmp/usr/lib/wine/wine64" ] || [ ! -e "$WA_ROOT.tmp/usr/lib/ld-linux-aarch64.so.1" ]; then
    die "the unpacked packages hold no arm64 Wine or loader"
  fi
  printf '%s\n' "${debs[@]##*/}" >"$WA_ROOT.tmp/.edgechat-debs"
  echo "$want" >"$WA_ROOT.tmp/.edgechat-packages"
  rm -rf "$WA_ROOT" && mv "$WA_ROOT.tmp" "$WA_ROOT"
  rm -rf "$WA/debs" # unpacked: not kept twice
  say "winarm64: $(grep -m1 '^wine64_' "$WA_ROOT/.edgechat-debs") and its dependencies unpacked in $((SECONDS - t)) s"
}

# wa_qemu: qemu-user-static from the system's (x86-64) Debian sources, unpacked into the
# cache; prints the emulator's path.
wa_qemu() {
  local dir="$WA/qemu" q="$WA/qemu/usr/bin/qemu-aarch64-static"
  if [ ! -x "$q" ]; then
    say "winarm64: downloading qemu-user-static"
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    (cd "$dir.tmp" && apt-get download -qq qemu-user-static 2>/dev/null) || {
      $(sudo_if_needed) apt-get update -qq && (cd "$dir.tmp" && apt-get download -qq qemu-user-static)
    } || die "apt-get download qemu-user-static failed"
    dpkg-deb -x "$dir.tmp"/qemu-user-static_*.deb "$dir.tmp/x" || die "unpacking qemu-user-static failed"
    rm -rf "$dir" && mv "$dir.tmp/x" "$dir" && rm -rf "$dir.tmp"
  fi
  echo "$q"
}

# WA_MAGIC is binfmt_misc's magic and mask for aarch64 ELF executables (as qemu registers them).
WA_MAGIC='\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
WA_MASK='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'

# wa_binfmt: makes sure the kernel hands aarch64 programs to qemu: an enabled registration
# for them (ours, edgechat-aarch64, or the system's qemu-aarch64), else registers ours with
# the F flag (the kernel opens qemu once, so the program's own children find it too).
wa_binfmt() {
  wa_native && return 0
  local bm=/proc/sys/fs/binfmt_misc q e
  if [ ! -w "$bm/register" ] && ! grep -q "^enabled" "$bm/status" 2>/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then
      mount -t binfmt_misc binfmt_misc "$bm" 2>/dev/null
    fi
    grep -q "^enabled" "$bm/status" 2>/dev/null ||
      die "binfmt_misc is not mounted. As root run: mount -t binfmt_misc binfmt_misc $bm (and echo 1 > $bm/status), then again"
  fi
  for e in "$bm"/*; do
    [ -f "$e" ] && grep -qx 'enabled' "$e" 2>/dev/null && grep -q '^magic 7f454c460201010000000000000000000200b700' "$e" 2>/dev/null && return 0
  done
  q="$(wa_qemu)" || exit 1
  if [ ! -w "$bm/register" ] || ! printf ':edgechat-aarch64:M::%s:%s:%s:F\n' "$WA_MAGIC" "$WA_MASK" "$q" >"$bm/register" 2>/dev/null; then
    die "cannot register qemu for aarch64 programs with binfmt_misc (needs root). As root run:
  printf ':edgechat-aarch64:M::$WA_MAGIC:$WA_MASK:$q:F\\n' > $bm/register"
  fi
  say "winarm64: registered $q for aarch64 programs ($bm/edgechat-aarch64)"
}

# wa_fake_cpus DIR: a copy of /sys/devices/system/cpu's topology for this machine's CPUs,
# with a Snapdragon X Elite's caches (per core L1d 96 KB, L1i 192 KB; a 12 MB L2 shared).
wa_fake_cpus() {
  local dir="$1" n last all i d m
  n="$(nproc --all)" last=$((n - 1)) all="$(printf '%x' $(((1 << n) - 1)))"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  for f in online present possible; do echo "0-$last" >"$dir.tmp/$f"; done
  for i in $(seq 0 "$last"); do
    d="$dir.tmp/cpu$i" m="$(printf '%x' $((1 << i)))"
    mkdir -p "$d/topology" "$d/cpufreq"
    echo 0 >"$d/topology/physical_package_id"
    echo "$i" >"$d/topology/core_id"
    echo "$m" >"$d/topology/thread_siblings"
    echo "$i" >"$d/topology/thread_siblings_list"
    echo "$all" >"$d/topology/core_siblings"
    echo $((WA_CPU_MHZ * 1000)) >"$d/cpufreq/cpuinfo_max_freq"
    local idx=0
    while read -r level type size ways shared; do
      mkdir -p "$d/cache/index$idx"
      echo "$level" >"$d/cache/index$idx/level"
      echo "$type" >"$d/cache/index$idx/type"
      echo "$size" >"$d/cache/index$idx/size"
      echo "$ways" >"$d/cache/index$idx/ways_of_associativity"
      echo 64 >"$d/cache/index$idx/coherency_line_size"
      echo "$shared" >"$d/cache/index$idx/shared_cpu_map"
      idx=$((idx + 1))
    done <<EOF
1 Data 96K 6 $m
1 Instruction 192K 6 $m
2 Unified 12288K 12 $all
EOF
  done
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

# wa_ns COMMAND...: runs COMMAND in a private mount namespace with the arm64 root overlaid on
# /usr/lib and the fake sysfs parts in place (see the top of this file).
wa_ns() {
  local lower="/usr/lib:$WA_ROOT/usr/lib" cpus="" class=""
  wa_native && lower="$WA_ROOT/usr/lib:/usr/lib"
  [ -d /sys/devices/system/cpu/cpu0/cache ] || cpus="$WA_SYS/cpu"
  [ -d "$WA_SYS/class/power_supply" ] && class="$WA_SYS/class"
  [ "$(id -u)" -eq 0 ] || die "winarm64: running Wine for Arm64 needs root (a private mount namespace for the arm64 loader)"
  # shellcheck disable=SC2016 # $1..$3 are the inner shell's
  local ns=(unshare --mount --propagation private -- /bin/sh -c '
    mount -t overlay edgechat-arm64 -o "lowerdir=$1" /usr/lib || { echo "winarm64: cannot overlay /usr/lib" >&2; exit 125; }
    [ -z "$2" ] || mount --bind "$2" /sys/devices/system/cpu || exit 125
    [ -z "$3" ] || mount --bind "$3" /sys/class || exit 125
    shift 3
    exec "$@"' _ "$lower" "$cpus" "$class" "$@")
  # WA_EXEC: the program takes this process's place (its pid is the caller's $!).
  if [ -n "${WA_EXEC:-}" ]; then exec "${ns[@]}"; fi
  "${ns[@]}"
}

# wa_env: the environment of every Wine run.
wa_env() {
  export WINEPREFIX="$WA_PREFIX" WINESERVER="$WA_SERVER" USER="$WA_USER" LC_ALL=C.UTF-8 QEMU_CPU=neoverse-n1
  # No Mono or Gecko installers, no menu entries in the host's desktop, X11 rather than Wayland.
  export WINEDEBUG="${WINEDEBUG:--all}" WINEDLLOVERRIDES="${WINEDLLOVERRIDES:-mscoree,mshtml=;winemenubuilder.exe=d;winewayland.drv=d}"
  unset LD_LIBRARY_PATH
  # Tests with time bounds allow for the emulation (models/hub's attacks).
  wa_native || export EDGECHAT_EMULATED=qemu-user
}

# wa_server_pid: the pid of the prefix's running wineserver, or nothing.
wa_server_pid() {
  local pid
  pid="$(cat "$WA/server.pid" 2>/dev/null)" || return 0
  [ -n "$pid" ] && { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF "$WA_SERVER" && echo "$pid"
}

# wa_session: makes sure the prefix's wineserver runs and its registry holds the Snapdragon
# CPU values (they go with the server: HKLM\HARDWARE is volatile).
wa_session() {
  [ -n "$(wa_server_pid)" ] && return 0
  local t=$SECONDS reg="$WA/snapdragon.reg" i n
  wa_env
  n="$(nproc --all)"
  {
    printf 'Windows Registry Editor Version 5.00\n'
    for i in $(seq 0 $((n - 1))); do
      printf '\n[HKEY_LOCAL_MACHINE\\HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\%d]\n' "$i"
      printf '"ProcessorNameString"="%s"\n"VendorIdentifier"="Qualcomm Technologies Inc"\n' "$WA_CPU_NAME"
      printf '"CP 4000"=hex(b):%s\n' "$(printf '%016x' "0x$WA_CPU_MIDR" | sed -E 's/(..)/\1 /g' | awk '{for (i = NF; i >= 1; i--) printf "%s%s", $i, (i > 1 ? "," : "")}')"
      printf '"~MHz"=dword:%08x\n' "$WA_CPU_MHZ"
    done
  } >"$reg"
  # The server stays while programs run and for WINARM64_PERSIST seconds after (stop ends it).
  wa_ns "$WA_SERVER" -p"${WINARM64_PERSIST:-120}" </dev/null >/dev/null 2>&1
  wa_ns "$WA_WINE" wineboot </dev/null >/dev/null 2>&1
  wa_ns "$WA_WINE" regedit /S "$(winarm64_path "$reg")" </dev/null >/dev/null 2>&1 || die "winarm64: regedit failed"
  pgrep -f -- "$WA_SERVER" | head -n1 >"$WA/server.pid"
  [ -n "$(wa_server_pid)" ] || die "winarm64: the wineserver did not stay up"
  say "winarm64: wineserver started, Snapdragon X CPU facts in its registry ($((SECONDS - t)) s)"
}

# winarm64_setup: everything above, idempotent; on first use also the prefix (Windows 10,
# fonts in place before wineboot).
winarm64_setup() {
  local t=$SECONDS
  apt_ensure binutils xz-utils
  wa_binfmt
  wa_root
  [ -d /sys/devices/system/cpu/cpu0/cache ] || [ -f "$WA_SYS/cpu/cpu0/cache/index2/size" ] || wa_fake_cpus "$WA_SYS/cpu"
  if [ ! -f "$WA_PREFIX/.edgechat-ready" ]; then
    say "winarm64: creating the prefix $WA_PREFIX (Windows user $WA_USER)"
    wa_env
    rm -rf "$WA_PREFIX"
    wa_ns "$WA_WINE" wineboot -i </dev/null >/dev/null 2>&1
    wa_ns "$WA_WINE" winecfg /v win10 </dev/null >/dev/null 2>&1
    wa_ns "$WA_SERVER" -w
    [ -f "$WA_PREFIX/system.reg" ] || die "winarm64: wineboot made no prefix in $WA_PREFIX"
    touch "$WA_PREFIX/.edgechat-ready"
    say "winarm64: prefix ready in $((SECONDS - t)) s"
  fi
}

# winarm64_run PROGRAM ARGS...: runs a Windows Arm64 program; its output and exit code pass
# through. With WA_RUN_EXEC set the program takes this process's place.
winarm64_run() {
  [ $# -ge 1 ] || die "usage: packaging/winarm64.sh run PROGRAM [ARGS...]"
  winarm64_setup
  wa_session
  wa_env
  WA_EXEC="${WA_RUN_EXEC:-}" wa_ns "$WA_WINE" "$@"
}

# winarm64_stop: ends the prefix's wineserver and the programs it serves.
winarm64_stop() {
  [ -x "$WA_SERVER" ] || return 0
  wa_env
  wa_ns "$WA_SERVER" -k 2>/dev/null
  wa_ns "$WA_SERVER" -w 2>/dev/null
  rm -f "$WA/server.pid"
}

# winarm64_power ac|battery|none: what Wine's GetSystemPowerStatus reports from now on (a
# laptop on its charger at 80%, on battery at 40%, or no power supply at all).
winarm64_power() {
  local ps="$WA_SYS/class/power_supply"
  rm -rf "$WA_SYS/class.tmp"
  case "${1:-}" in
    none) rm -rf "$WA_SYS/class"; return 0 ;;
    ac | battery) ;;
    *) die "usage: packaging/winarm64.sh power ac|battery|none" ;;
  esac
  mkdir -p "$ps/AC" "$ps/BAT0"
  local online=1 status=Charging capacity=80
  [ "$1" = battery ] && online=0 status=Discharging capacity=40
  printf 'Mains\n' >"$ps/AC/type"
  printf '%s\n' "$online" >"$ps/AC/online"
  printf 'Battery\n' >"$ps/BAT0/type"
  printf '1\n' >"$ps/BAT0/present"
  printf '%s\n' "$status" >"$ps/BAT0/status"
  printf '%s\n' "$capacity" >"$ps/BAT0/capacity"
  # A 3.25 Ah (50.05 Wh) battery at 15.4 V: Wine sums whole mWh, and these give the exact
  # percent. Wine 10 reads the charge (µAh), the current (µA) and the voltage (µV) — charge_*,
  # current_now, voltage_now; energy (µWh) and power (µW), which other kernels' batteries
  # report instead, are written too for other readers.
  local full=3250000 rate=0
  [ "$1" = battery ] && rate=9000000
  printf '%s\n' $((full * capacity / 100)) >"$ps/BAT0/charge_now"
  printf '%s\n' "$full" >"$ps/BAT0/charge_full"
  printf '%s\n' "$full" >"$ps/BAT0/charge_full_design"
  printf '%s\n' $((rate * 1000000 / 15400000)) >"$ps/BAT0/current_now"
  printf '%s\n' $((50050000 * capacity / 100)) >"$ps/BAT0/energy_now"
  printf '50050000\n' >"$ps/BAT0/energy_full"
  printf '%s\n' "$rate" >"$ps/BAT0/power_now"
  printf '15400000\n' >"$ps/BAT0/voltage_now"
}

# winarm64_path FILE: FILE's Windows path (C: is the prefix's drive_c, Z: is /).
winarm64_path() {
  local p="$1"
  case "$p" in
    "$WA_PREFIX/drive_c/"*) p="C:/${p#"$WA_PREFIX/drive_c/"}" ;;
    *) p="Z:$p" ;;
  esac
  printf '%s' "${p//\//\\}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  cmd="${1:-setup}"
  [ $# -gt 0 ] && shift
  case "$cmd" in
    setup) winarm64_setup && wa_env && say "winarm64: $(wa_ns "$WA_WINE" --version 2>/dev/null) ready in $WA_PREFIX" ;;
    run) WA_RUN_EXEC=1 winarm64_run "$@" ;;
    stop) winarm64_stop ;;
    power) winarm64_power "$@" ;;
    path) winarm64_path "$1" && echo ;;
    *) die "usage: packaging/winarm64.sh [setup] | run PROGRAM ARGS... | power ac|battery|none | stop | path FILE" ;;
  esac
fi
