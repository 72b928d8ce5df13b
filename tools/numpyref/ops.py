"""The numpy (float64) building blocks the independent reference passes share
(tools/archref/reference.py, tools/bertref/bertref.py): weights read from an ONNX file by
their Hugging Face names, LayerNorm, a linear layer and exact GELU, as transformers defines
them."""
import math

import numpy as np
import onnx
import onnx.numpy_helper as nh


def weights(path):
    return {t.name: nh.to_array(t).astype(np.float64) for t in onnx.load(path).graph.initializer}


def layer_norm(x, W, name, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * W[name + ".weight"] + W[name + ".bias"]


def linear(x, W, name):
    y = x @ W[name + ".weight"]
    if name + ".bias" in W:
        y = y + W[name + ".bias"]
    return y


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))
