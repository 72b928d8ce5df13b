"""Reference outputs for a BERT-family (or XLM-RoBERTa-shaped) model folder (tools/mkmodel --bert embedding|reranker),
computed without ONNX Runtime and without EdgeChat's Go code: a numpy (float64) transcription
of Hugging Face transformers' modeling_bert.py (BertModel, BertForSequenceClassification) that
reads only config.json and the weights by their Hugging Face names, and sentence-transformers'
Pooling and Normalize modules as 1_Pooling/config.json and modules.json say. One text or pair
at a time, no padding. The [CLS]/[SEP] layout and truncation are BERT's, done here from the
plain ids of each text.

usage: bertref.py MODEL_DIR IN.json OUT.json
IN.json is a list of {"name", "ids"} (embedding: the text's ids without special tokens) or
{"name", "query", "passage"} (reranker: each text's ids); OUT.json is the same list with
"input" (the ids fed), and "vector" (embedding) or "score" (reranker's logit) added."""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "numpyref"))
from ops import gelu, layer_norm, linear, weights  # noqa: E402  (shared with the other references)


def roberta(c):
    return c["model_type"] in ("roberta", "xlm-roberta", "camembert")


def bert(W, c, ids, types):
    """BertModel's (XLMRobertaModel's) last_hidden_state [S, H] for one unpadded sequence."""
    S, H, nh = len(ids), c["hidden_size"], c["num_attention_heads"]
    hd = H // nh
    eps = c["layer_norm_eps"]
    pos = np.arange(S) + (c["pad_token_id"] + 1 if roberta(c) else 0)
    x = W["embeddings.word_embeddings.weight"][ids] + W["embeddings.position_embeddings.weight"][pos] \
        + W["embeddings.token_type_embeddings.weight"][types]
    x = layer_norm(x, W, "embeddings.LayerNorm", eps)
    for l in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % l
        heads = lambda y: y.reshape(S, nh, hd).transpose(1, 0, 2)
        q, k, v = (heads(linear(x, W, p + "attention.self." + n)) for n in ("query", "key", "value"))
        s = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
        s = np.exp(s - s.max(-1, keepdims=True))
        a = ((s / s.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(S, H)
        x = layer_norm(x + linear(a, W, p + "attention.output.dense"), W, p + "attention.output.LayerNorm", eps)
        f = gelu(linear(x, W, p + "intermediate.dense"))
        x = layer_norm(x + linear(f, W, p + "output.dense"), W, p + "output.LayerNorm", eps)
    return x


def read(d, name, default=None):
    p = os.path.join(d, name)
    return json.load(open(p)) if os.path.exists(p) else default


def max_length(d, c):
    """sentence_bert_config.json's max_seq_length, else tokenizer_config.json's
    model_max_length, never past max_position_embeddings."""
    n = read(d, "sentence_bert_config.json", {}).get("max_seq_length") or read(d, "tokenizer_config.json", {}).get("model_max_length") or 512
    return min(n, c["max_position_embeddings"] - (c["pad_token_id"] + 1 if roberta(c) else 0))


def main():
    d, inp, out = sys.argv[1:4]
    W = weights(os.path.join(d, "onnx", "model.onnx"))
    c = read(d, "config.json")
    vocab = json.load(open(os.path.join(d, "tokenizer.json")))["model"]["vocab"]
    cls, sep = (vocab["<s>"], vocab["</s>"]) if roberta(c) else (vocab["[CLS]"], vocab["[SEP]"])
    mid = [sep, sep] if roberta(c) else [sep]  # RoBERTa pairs: <s> q </s></s> p </s>
    n = max_length(d, c)
    items = json.load(open(inp))
    pooling = read(d, "1_Pooling/config.json", {})
    normalize = any(m["type"].endswith("Normalize") for m in read(d, "modules.json", []))
    for it in items:
        if "passage" in it:  # [CLS] q [SEP] p [SEP], longest first truncation
            a, b = list(it["query"]), list(it["passage"])
            while len(a) + len(b) > n - 2 - len(mid):
                if len(a) > len(b):
                    a.pop()
                else:
                    b.pop()
            ids = [cls] + a + mid + b + [sep]
            types = [0] * len(ids) if roberta(c) else [0] * (len(a) + 2) + [1] * (len(b) + 1)
            h = bert(W, c, ids, types)
            pooled = np.tanh(linear(h[0], W, "pooler.dense"))
            it["score"] = float(linear(pooled, W, "classifier")[0])
        else:
            ids = [cls] + it["ids"][: n - 2] + [sep]
            h = bert(W, c, ids, [0] * len(ids))
            if pooling.get("pooling_mode_cls_token"):
                v = h[0]
            elif pooling.get("pooling_mode_max_tokens"):
                v = h.max(0)
            else:
                v = h.mean(0)
            if normalize:
                v = v / np.linalg.norm(v)
            it["vector"] = [float(x) for x in v]
        it["input"] = ids
    json.dump(items, open(out, "w"), indent=1)


main()
