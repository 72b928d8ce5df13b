//go:build cgo && amd64 && (linux || windows)

// prenorm.c: the int4 product's RMS norm of its input (matmul.h, attribute prenorm 1): the
// residual add and the norm a layer's QKV or gate|up product reads, done in the product's pass
// over the activations instead of in a node of their own. Each rounds as the ONNX Runtime 1.30
// node it replaces does on x64 (measured: 0 of 65,536 values differ, TestPreNormExact):
//
//   - with skip, com.microsoft SkipSimplifiedLayerNormalization (contrib_ops/cpu/
//     skip_layer_norm.cc): s = a + skip, the squares s·s rounded and added one after the other,
//     r = sqrt(sum / K + epsilon), each element (s / r) × weight;
//   - without, SimplifiedLayerNormalization: op.c's rmsNorm (8 lanes of fused multiply-adds,
//     (x × (1 / r)) × weight).
//
// The first is a serial sum of rounded products on purpose: this file is built for the
// baseline x86-64 (no FMA), so the compiler cannot fuse s·s into the sum, and without
// -ffast-math it does not reorder the additions. It costs ~1 µs a row of 1024 (~4 cycles an add).

#include <math.h>

#include "matmul.h"

void q4_prenorm(const q4Norm *n, int m0, int m1) {
	const int K = n->K;
	for (int m = m0; m < m1; m++) {
		const float *a = n->a + (size_t)m * K;
		float *h = n->h + (size_t)m * K;
		if (!n->skip) {
			rmsNorm(a, h, K, n->gamma, n->eps);
			continue;
		}
		const float *b = n->skip + (size_t)m * K;
		float *s = n->sum ? n->sum + (size_t)m * K : h; // h holds s until it is normed
		float ss = 0;
		for (int i = 0; i < K; i++) {
			float v = a[i] + b[i];
			s[i] = v;
			float sq = v * v;
			ss += sq;
		}
		float r = sqrtf(ss / (float)K + n->eps);
		for (int i = 0; i < K; i++)
			h[i] = s[i] / r * n->gamma[i];
	}
}
