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
	printf '\n  },\n'
	# GPT-2 at its real vocabulary with GPT-2's tokenizer: the engine's end-to-end check.
	# "Once upon a time there was a" in GPT-2's ids; the text decoded from vocab.json alone.
	G2PROMPT="7454 2402 257 640 612 373 257"
	zcat tokenizer/testdata/real/gpt2.json.gz >"$tmp/tokenizer.json"
	go run ./tools/mkmodel --out "$tmp/g2" --family gpt2 --vocab 50257 --max-pos 1024 >/dev/null
	ids=$($PY tools/archref/reference.py "$tmp/g2" 16 $G2PROMPT | $PY -c 'import json,sys; print(" ".join(map(str, json.load(sys.stdin)["tokens"])))')
	printf '  "gpt2_vocab50257": {"prompt": [%s], "tokens": [%s], "text": %s}\n}\n' \
		"$(echo $G2PROMPT | tr ' ' ',')" "$(echo $ids | tr ' ' ',')" "$($PY tools/archref/gpt2text.py "$tmp/tokenizer.json" $ids)"
} >"$out"
echo "wrote $out"
