#!/usr/bin/env bash
# arm64test.sh: runs a package's tests as an Arm64 Linux program on this x86-64 machine:
# cross-compiled with Debian's gcc-aarch64-linux-gnu, run under qemu user-mode emulation
# (qemu-user, the Arm64 C library from libc6-dev-arm64-cross), against ONNX Runtime 1.30's
# linux-arm64 library from onnxruntime-node@1.30.0 (checksum checked, kept in the cache). It
# checks that EdgeChat's attention kernels (inference/ort/attnop's NEON loops) give ONNX
# Runtime's answers on Arm: the kernels' users are mostly on Windows on Arm, whose loops are
# the same C.
#
#   tools/arm64test.sh [PACKAGE] [go test flags...]    (default ./inference/ort/attnop/)
#
# It installs what is missing (apt-get: gcc-aarch64-linux-gnu libc6-dev-arm64-cross
# qemu-user; root or sudo) and is not part of `make test`: the attnop package takes ~14 minutes
# of emulated CPU (2 cores, shared). Speed cannot be measured under emulation.
# QEMU_CPU=neoverse-n1 by default (ARMv8.2 with the dot product, like packaging/winarm64.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/packaging/lib.sh"
SAY_PREFIX=arm64test

pkg="./inference/ort/attnop/"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  pkg="$1"
  shift
fi
apt_ensure gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
ort="$(ort_libs linux-arm64)/libonnxruntime.so.1"
bin="$(mktemp -d)/arm64.test"
trap 'rm -rf "$(dirname "$bin")"' EXIT
say "building $pkg's tests for linux/arm64"
(cd "$ROOT" && CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc go test -c -o "$bin" "$pkg")
say "running them under qemu-aarch64 ($ort)"
cd "$ROOT/$pkg"
EDGECHAT_ORT_LIB="$ort" QEMU_CPU="${QEMU_CPU:-neoverse-n1}" \
  qemu-aarch64 -L /usr/aarch64-linux-gnu "$bin" -test.count=1 "$@"
