#!/bin/sh
# build.sh OUT.so: builds the custom-operator library of ops.c and ../q4.c with gcc, against
# the ONNX Runtime C API header that the module's onnxruntime_go carries (ORT_API_VERSION 24).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/libkernbench_ops.so"}
ver=$(cd "$here" && go list -m -f '{{.Version}}' github.com/yalue/onnxruntime_go)
inc=$(go env GOMODCACHE)/github.com/yalue/onnxruntime_go@$ver
gcc -O3 -shared -fPIC -fvisibility=default -I"$inc" -o "$out" "$here/ops.c" "$here/../q4.c" -lm -lpthread
echo "$out"
