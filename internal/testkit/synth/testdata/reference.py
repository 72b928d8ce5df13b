"""Qwen3's forward pass in numpy (float64), written from Hugging Face's modeling_qwen3.py,
independent of the ONNX graph: it reads only the weights and config.json.

usage: reference.py MODEL.onnx CONFIG.json OUT.f32 ID [ID ...]
writes the logits of the last token as float32. tools/embedref imports hidden()."""
import json
import sys

import numpy as np
import onnx
import onnx.numpy_helper as nh


def main():
    model, config, out = sys.argv[1:4]
    ids = [int(a) for a in sys.argv[4:]]
    c = json.load(open(config))
    W = weights(model)
    x = hidden(W, c, ids)
    (x[-1] @ W["model.embed_tokens.weight"].T).astype(np.float32).tofile(out)


def weights(model):
    """The initializers of an ONNX file, as float64 arrays by name."""
    return {t.name: nh.to_array(t).astype(np.float64) for t in onnx.load(model).graph.initializer}


def hidden(W, c, ids):
    """The hidden states [S, hidden] after the final norm for token ids."""
    eps, hd = c["rms_norm_eps"], c["head_dim"]
    nh_, nkv = c["num_attention_heads"], c["num_key_value_heads"]
    S = len(ids)

    def rms(x, w):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w

    inv = 1.0 / (c["rope_theta"] ** (np.arange(0, hd, 2) / hd))
    freqs = np.outer(np.arange(S), inv)
    emb = np.concatenate([freqs, freqs], -1)
    cos, sin = np.cos(emb), np.sin(emb)

    def rope(x):
        x1, x2 = x[..., : hd // 2], x[..., hd // 2 :]
        return x * cos + np.concatenate([-x2, x1], -1) * sin

    E = W["model.embed_tokens.weight"]
    x = E[ids]
    causal = np.triu(np.full((S, S), -np.inf), 1)
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = rms(x, W[p + "input_layernorm.weight"])
        q = rms((h @ W[p + "self_attn.q_proj.weight"]).reshape(S, nh_, hd), W[p + "self_attn.q_norm.weight"])
        k = rms((h @ W[p + "self_attn.k_proj.weight"]).reshape(S, nkv, hd), W[p + "self_attn.k_norm.weight"])
        v = (h @ W[p + "self_attn.v_proj.weight"]).reshape(S, nkv, hd)
        q, k, v = rope(q.transpose(1, 0, 2)), rope(k.transpose(1, 0, 2)), v.transpose(1, 0, 2)
        k, v = np.repeat(k, nh_ // nkv, 0), np.repeat(v, nh_ // nkv, 0)  # HF repeat_kv
        s = q @ k.transpose(0, 2, 1) / np.sqrt(hd) + causal
        s = np.exp(s - s.max(-1, keepdims=True))
        a = (s / s.sum(-1, keepdims=True)) @ v
        x = x + a.transpose(1, 0, 2).reshape(S, nh_ * hd) @ W[p + "self_attn.o_proj.weight"]
        h = rms(x, W[p + "post_attention_layernorm.weight"])
        g = h @ W[p + "mlp.gate_proj.weight"]
        x = x + (g / (1 + np.exp(-g)) * (h @ W[p + "mlp.up_proj.weight"])) @ W[p + "mlp.down_proj.weight"]
    return rms(x, W["model.norm.weight"])


if __name__ == "__main__":
    main()
