"""Greedy answers of conect2ai's TinyGPT-SLM in numpy (float64), read from its ORIGINAL
published files (gpt_model.cpp: weights and vocabulary; gpt_model.h: the shape), written
from its PyTorch definition (codes/src/model: pre-LayerNorm blocks with eps 1e-5 and biased
variance, learned positions, causal multi-head attention scaled by 1/sqrt(head_dim), no QKV
bias, GELU tanh, untied output layer without bias) and its Python tokenizer
(re.sub(r'[^\\w\\s]', '', text).lower().split(), unknown words <unk>). Independent of the
converter and of the ONNX graph: it recomputes the whole sequence at every step.

usage: reference.py SOURCE.cpp HEADER.h QUESTIONS.txt   (one question a line)
prints JSON: per question the prompt ids (<sos> question <sep>), the greedy ids up to <eos>
or <pad> (included) or the 22nd position, the answer text, and the logits after the prompt."""
import json
import re
import sys

import numpy as np


def parse(src, hdr):
    defs = {m.group(1): int(m.group(2)) for m in re.finditer(r"(?m)^\s*#define\s+(\w+)\s+(-?\d+)\s*$", hdr)}
    arrays = {}
    for m in re.finditer(r"const float MODEL_DATA_STORAGE (\w+)((?:\[[^\]]+\])+)\s*=\s*\{(.*?)\};", src, re.S):
        nums = re.findall(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?f", m.group(3))
        shape = [eval(d, {}, defs) for d in m.group(2)[1:-1].split("][")]
        arrays[m.group(1)] = np.array([float(x[:-1]) for x in nums], dtype=np.float32).astype(np.float64).reshape(shape)
    table = re.search(r"token_strings\[VOCAB_SIZE\]\s*=\s*\{(.*?)\};", src, re.S).group(1)
    vocab = [json.loads('"' + s + '"') for s in re.findall(r'"((?:[^"\\]|\\.)*)"', table)]
    return defs, arrays, vocab


def layer_norm(x, scale, shift):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return scale * (x - mean) / np.sqrt(var + 1e-5) + shift


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def forward(defs, A, ids):
    T, D, H = len(ids), defs["EMB_DIM"], defs["N_HEADS"]
    hd = D // H
    x = A["tok_emb_weight"][ids] + A["pos_emb_weight"][:T]
    causal = np.triu(np.ones((T, T), dtype=bool), 1)
    for l in range(defs["N_LAYERS"]):
        h = layer_norm(x, A["trf_norm1_scale"][l], A["trf_norm1_shift"][l])
        heads = lambda W: (h @ W[l].T).reshape(T, H, hd).transpose(1, 0, 2)
        q, k, v = heads(A["trf_att_W_query_weight"]), heads(A["trf_att_W_key_weight"]), heads(A["trf_att_W_value_weight"])
        s = q @ k.transpose(0, 2, 1)
        s[:, causal] = -np.inf
        s = s / np.sqrt(hd)
        p = np.exp(s - s.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        ctx = (p @ v).transpose(1, 0, 2).reshape(T, D)
        x = x + ctx @ A["trf_att_out_proj_weight"][l].T + A["trf_att_out_proj_bias"][l]
        h = layer_norm(x, A["trf_norm2_scale"][l], A["trf_norm2_shift"][l])
        f = gelu(h @ A["trf_ff_lin1_weight"][l].T + A["trf_ff_lin1_bias"][l])
        x = x + f @ A["trf_ff_lin2_weight"][l].T + A["trf_ff_lin2_bias"][l]
    x = layer_norm(x, A["final_norm_scale"], A["final_norm_shift"])
    return x @ A["out_head_weight"].T


def main():
    src, hdr, questions = sys.argv[1], sys.argv[2], sys.argv[3]
    defs, A, vocab = parse(open(src).read(), open(hdr).read())
    index = {w: i for i, w in enumerate(vocab)}
    stop = {defs["EOS_TOKEN_ID"], defs["PAD_TOKEN_ID"]}
    out = []
    for q in open(questions).read().splitlines():
        if not q.strip():
            continue
        words = re.sub(r"[^\w\s]", "", q).lower().split()
        prompt = [defs["SOS_TOKEN_ID"]] + [index.get(w, defs["UNK_TOKEN_ID"]) for w in words] + [defs["SEP_TOKEN_ID"]]
        if len(prompt) > defs["CONTEXT_LENGTH"]:
            sys.exit("question too long for the model's %d positions: %s" % (defs["CONTEXT_LENGTH"], q))
        ids, first = list(prompt), forward(defs, A, prompt)[-1]
        logits = first
        while len(ids) < defs["CONTEXT_LENGTH"]:
            if len(ids) > len(prompt):
                logits = forward(defs, A, ids)[-1]
            n = int(np.argmax(logits))
            ids.append(n)
            if n in stop:
                break
        tokens = ids[len(prompt):]
        text = " ".join(vocab[t] for t in tokens if t not in stop)
        out.append({"question": q, "prompt": prompt, "tokens": tokens, "text": text,
                    "logits": [round(float(v), 6) for v in first]})
    json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
    print()


main()
