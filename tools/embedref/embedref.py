"""Reference vectors for a synthetic embedding model folder (tools/mkmodel --layout embedding),
computed without ONNX Runtime and without EdgeChat's Go code: internal/testkit/synth/testdata/
reference.py's numpy transcription of Qwen3's forward pass (float64, from the weights and
config.json only; one text at a time, no padding) gives the hidden states, and the last
token's is L2-normalised, as Qwen3-Embedding pools.

usage: embedref.py MODEL_DIR IN.json OUT.json
IN.json is a list of {"name", "text", "ids"} (the ids EdgeChat's tokenizer gives, ending with
the end-of-text token); OUT.json is the same list with "vector" added."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "internal", "testkit", "synth", "testdata"))
import reference  # noqa: E402


def main():
    model_dir, inp, out = sys.argv[1:4]
    W = reference.weights(os.path.join(model_dir, "onnx", "model.onnx"))
    c = json.load(open(os.path.join(model_dir, "config.json")))
    items = json.load(open(inp))
    for it in items:
        v = reference.hidden(W, c, it["ids"])[-1]
        it["vector"] = [float(np.float32(x)) for x in v / np.linalg.norm(v)]
    json.dump(items, open(out, "w"), indent=1)


main()
