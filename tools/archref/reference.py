"""Greedy decoding in numpy (float64) for GPT-2, GPT-Neo, GPT-NeoX/Pythia, Phi-1/2 and OPT,
written from Hugging Face transformers' modeling_{gpt2,gpt_neo,gpt_neox,phi,opt}.py and
independent of the ONNX graph: it reads only config.json and the weights, by their Hugging
Face names (matrices stored [in, out], as the ONNX MatMul initializers are), and recomputes
the whole sequence at every step (no KV cache).

usage: reference.py MODEL_DIR N ID [ID ...]
prints JSON: {"tokens": the N greedy ids, "logits": the logits after the prompt}."""
import glob
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "numpyref"))
from ops import gelu, layer_norm, linear, weights  # noqa: E402  (shared with the other references)


def gelu_new(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


ACT = {"gelu_new": gelu_new, "gelu": gelu, "relu": lambda x: np.maximum(x, 0)}


def attend(q, k, v, scale, allowed):
    """q, k, v [heads, S, hd]; allowed [S, S] booleans."""
    s = q @ k.transpose(0, 2, 1)
    if scale:
        s = s / math.sqrt(q.shape[-1])
    s = np.where(allowed, s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    a = (s / s.sum(-1, keepdims=True)) @ v
    return a.transpose(1, 0, 2).reshape(q.shape[1], -1)


def rotate(x, rot, base):
    """Partial rotary (rotate_half) on the first rot dims of x [heads, S, hd]."""
    S = x.shape[1]
    inv = 1.0 / (base ** (np.arange(0, rot, 2) / rot))
    freqs = np.outer(np.arange(S), inv)
    emb = np.concatenate([freqs, freqs], -1)
    xr, xp = x[..., :rot], x[..., rot:]
    x1, x2 = xr[..., : rot // 2], xr[..., rot // 2 :]
    xr = xr * np.cos(emb) + np.concatenate([-x2, x1], -1) * np.sin(emb)
    return np.concatenate([xr, xp], -1)


def heads(x, n):
    S = x.shape[0]
    return x.reshape(S, n, -1).transpose(1, 0, 2)


def forward(c, W, ids):
    """Logits [S, vocab] for ids."""
    t = c["model_type"]
    S = len(ids)
    causal = np.tril(np.ones((S, S), bool))
    if t == "gpt2":
        n, eps, act = c["n_head"], c["layer_norm_epsilon"], ACT[c["activation_function"]]
        x = W["transformer.wte.weight"][ids] + W["transformer.wpe.weight"][np.arange(S)]
        for l in range(c["n_layer"]):
            p = f"transformer.h.{l}."
            h = layer_norm(x, W, p + "ln_1", eps)
            q, k, v = np.split(linear(h, W, p + "attn.c_attn"), 3, -1)
            x = x + linear(attend(heads(q, n), heads(k, n), heads(v, n), True, causal), W, p + "attn.c_proj")
            h = layer_norm(x, W, p + "ln_2", eps)
            x = x + linear(act(linear(h, W, p + "mlp.c_fc")), W, p + "mlp.c_proj")
        x = layer_norm(x, W, "transformer.ln_f", eps)
        return x @ W["transformer.wte.weight"].T
    if t == "gpt_neo":
        n, eps, act = c["num_heads"], c["layer_norm_epsilon"], ACT[c["activation_function"]]
        kinds = [k for kinds, reps in c["attention_types"] for _ in range(reps) for k in kinds]
        idx = np.arange(S)
        local = causal & (idx[:, None] - idx[None, :] < c["window_size"])
        x = W["transformer.wte.weight"][ids] + W["transformer.wpe.weight"][np.arange(S)]
        for l in range(c["num_layers"]):
            p = f"transformer.h.{l}."
            h = layer_norm(x, W, p + "ln_1", eps)
            a = p + "attn.attention."
            q, k, v = (heads(linear(h, W, a + m), n) for m in ("q_proj", "k_proj", "v_proj"))
            mask = local if kinds[l] == "local" else causal
            x = x + linear(attend(q, k, v, False, mask), W, a + "out_proj")  # GPT-Neo does not scale
            h = layer_norm(x, W, p + "ln_2", eps)
            x = x + linear(act(linear(h, W, p + "mlp.c_fc")), W, p + "mlp.c_proj")
        x = layer_norm(x, W, "transformer.ln_f", eps)
        return x @ W["transformer.wte.weight"].T
    if t == "gpt_neox":
        n, eps, act = c["num_attention_heads"], c["layer_norm_eps"], ACT[c["hidden_act"]]
        hd = c["hidden_size"] // n
        rot = int(hd * c["rotary_pct"])
        x = W["gpt_neox.embed_in.weight"][ids]
        for l in range(c["num_hidden_layers"]):
            p = f"gpt_neox.layers.{l}."
            h = layer_norm(x, W, p + "input_layernorm", eps)
            qkv = linear(h, W, p + "attention.query_key_value").reshape(S, n, 3 * hd).transpose(1, 0, 2)
            q, k, v = qkv[..., :hd], qkv[..., hd : 2 * hd], qkv[..., 2 * hd :]
            q, k = rotate(q, rot, c["rotary_emb_base"]), rotate(k, rot, c["rotary_emb_base"])
            att = linear(attend(q, k, v, True, causal), W, p + "attention.dense")
            m = linear(act(linear(layer_norm(x, W, p + "post_attention_layernorm", eps), W, p + "mlp.dense_h_to_4h")), W, p + "mlp.dense_4h_to_h")
            assert c["use_parallel_residual"]
            x = x + att + m
        x = layer_norm(x, W, "gpt_neox.final_layer_norm", eps)
        return linear(x, W, "embed_out")
    if t == "phi":
        n, eps, act = c["num_attention_heads"], c["layer_norm_eps"], ACT[c["hidden_act"]]
        hd = c["hidden_size"] // n
        rot = int(hd * c["partial_rotary_factor"])
        x = W["model.embed_tokens.weight"][ids]
        for l in range(c["num_hidden_layers"]):
            p = f"model.layers.{l}."
            h = layer_norm(x, W, p + "input_layernorm", eps)
            q, k, v = (heads(linear(h, W, p + "self_attn." + m), n) for m in ("q_proj", "k_proj", "v_proj"))
            q, k = rotate(q, rot, c["rope_theta"]), rotate(k, rot, c["rope_theta"])
            att = linear(attend(q, k, v, True, causal), W, p + "self_attn.dense")
            x = x + att + linear(act(linear(h, W, p + "mlp.fc1")), W, p + "mlp.fc2")
        x = layer_norm(x, W, "model.final_layernorm", eps)
        return linear(x, W, "lm_head")
    if t == "opt":
        n, act = c["num_attention_heads"], ACT[c["activation_function"]]
        eps = 1e-5  # OPT's nn.LayerNorm default
        assert c["do_layer_norm_before"]
        pos = np.cumsum(np.ones(S, np.int64)) - 1 + 2  # attention_mask all ones; offset 2
        x = W["model.decoder.embed_tokens.weight"][ids] + W["model.decoder.embed_positions.weight"][pos]
        for l in range(c["num_hidden_layers"]):
            p = f"model.decoder.layers.{l}."
            h = layer_norm(x, W, p + "self_attn_layer_norm", eps)
            q, k, v = (heads(linear(h, W, p + "self_attn." + m), n) for m in ("q_proj", "k_proj", "v_proj"))
            x = x + linear(attend(q, k, v, True, causal), W, p + "self_attn.out_proj")
            h = layer_norm(x, W, p + "final_layer_norm", eps)
            x = x + linear(act(linear(h, W, p + "fc1")), W, p + "fc2")
        x = layer_norm(x, W, "model.decoder.final_layer_norm", eps)
        return x @ W["model.decoder.embed_tokens.weight"].T
    raise SystemExit(f"model_type {t} is not one this reference computes")


def main():
    d, n = sys.argv[1], int(sys.argv[2])
    ids = [int(a) for a in sys.argv[3:]]
    c = json.load(open(os.path.join(d, "config.json")))
    W = weights(sorted(glob.glob(os.path.join(d, "onnx", "*.onnx")))[0])
    first = None
    out = []
    for _ in range(n):
        logits = forward(c, W, ids + out)[-1]
        if first is None:
            first = logits
        out.append(int(np.argmax(logits)))
    json.dump({"tokens": out, "logits": [round(float(v), 5) for v in first]}, sys.stdout)


if __name__ == "__main__":
    main()
