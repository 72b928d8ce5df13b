#!/bin/sh
# Regenerates inference/ort/decoder/testdata/tinygpt_golden.json: tools/tinygpt/reference.py
# (numpy, from the ORIGINAL C++ checkpoint in internal/testkit/tinygpt/testdata) on the
# questions in tools/tinygpt/questions.txt (training questions of the model, paraphrases from
# its test set, and two it never saw). The decoder tests check the converted folder against it.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3 # Debian's, with python3-numpy
td=internal/testkit/tinygpt/testdata
$PY tools/tinygpt/reference.py $td/gpt_model.cpp $td/gpt_model.h tools/tinygpt/questions.txt \
	>inference/ort/decoder/testdata/tinygpt_golden.json
echo "wrote inference/ort/decoder/testdata/tinygpt_golden.json"
