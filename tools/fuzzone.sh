#!/usr/bin/env bash
# fuzzone.sh FUZZTIME GO package:Target — runs one fuzz target for FUZZTIME (make fuzz runs
# several at once through xargs). It fails when the fuzzer writes a failing input or panics,
# not on Go 1.26's fuzz coordinator deadline race (golang/go#75804), and prints the run's log
# only when it fails.
set -uo pipefail
fuzztime="$1" go="$2" target="$3"
pkg="${target%%:*}" fn="${target##*:}"
echo "fuzz $pkg $fn ($fuzztime)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! "$go" test "./$pkg" -run '^$' -fuzz "^$fn\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s >"$log" 2>&1; then
  if grep -q 'context deadline exceeded' "$log" && ! grep -qE 'Failing input written|panic:' "$log"; then
    echo "  $pkg $fn: no failing input: Go 1.26's fuzz coordinator hit its own deadline (golang/go#75804), ignored"
  else
    echo "fuzz $pkg $fn FAILED:"
    cat "$log"
    exit 1
  fi
fi
