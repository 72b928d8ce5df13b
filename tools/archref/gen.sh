#!/bin/sh
# Regenerates inference/ort/decoder/testdata/arch_golden.json: for each family tools/mkmodel
# builds, the greedy tokens and first logits of tools/archref/reference.py (numpy, from the
# weights alone) on a fixed prompt. The decoder tests check the ONNX graphs against it.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3 # Debian's, with python3-numpy and python3-onnx
PROMPT="5 17 300 42 99 7 256 3 128 64 400 11 77 500 1 250 33 180 91 6"
N=24
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=inference/ort/decoder/testdata/arch_golden.json
{
	printf '{\n  "prompt": [%s],\n  "families": {\n' "$(echo $PROMPT | tr ' ' ',')"
	sep=""
	for f in gpt2 gpt_neo gpt_neox phi opt; do
		go run ./tools/mkmodel --out "$tmp/$f" --family "$f" >/dev/null
		printf '%s    "%s": ' "$sep" "$f"
		$PY tools/archref/reference.py "$tmp/$f" $N $PROMPT
		sep=",
"
	done
	printf '\n  }\n}\n'
} >"$out"
echo "wrote $out"
