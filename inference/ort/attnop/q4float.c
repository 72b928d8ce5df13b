//go:build cgo && amd64 && (linux || windows)

// q4float.c: the int4 product at accuracy level 0 (matmul.h): a panel's weights dequantized to
// float32, (w − 8) · scale, and float32 sums (AVX2 + FMA). The app's checks compare float-compute
// twins at this level, so it is written to be right; it is not a fast path.

#include <immintrin.h>
#include <stdlib.h>

#include "matmul.h"

#define AVX2 __attribute__((target("avx2,fma")))

AVX2 void q4_float(q4Run *r, int p) {
	const int K = r->K, nb = r->nb;
	int n0 = p * Q4_PANEL, nc = r->N - n0 < Q4_PANEL ? r->N - n0 : Q4_PANEL;
	float *wf = malloc(sizeof(float) * (size_t)K * Q4_PANEL); // [K][Q4_PANEL]
	if (!wf) {
		r->nomem = 1;
		return;
	}
	for (int c = 0; c < Q4_PANEL; c++)
		for (int b = 0; b < nb; b++) {
			float *o = wf + (size_t)32 * b * Q4_PANEL + c;
			if (c >= nc) { // past N: zero
				for (int i = 0; i < 32; i++)
					o[(size_t)i * Q4_PANEL] = 0;
				continue;
			}
			uint8_t tmp[16];
			const uint8_t *x = q4_block(r, n0 + c, b, tmp);
			float s = r->S[q4_scale(r, n0 + c, b)];
			for (int i = 0; i < 16; i++) {
				o[(size_t)(2 * i) * Q4_PANEL] = (float)((x[i] & 15) - 8) * s;
				o[(size_t)(2 * i + 1) * Q4_PANEL] = (float)((x[i] >> 4) - 8) * s;
			}
		}
	for (int m = 0; m < r->M; m += 2) { // two rows a pass: eight independent sums
		int two = m + 1 < r->M;
		const float *a0 = r->A + (size_t)m * K, *a1 = two ? a0 + K : a0;
		__m256 f[2][4];
		for (int j = 0; j < 4; j++)
			f[0][j] = f[1][j] = _mm256_setzero_ps();
		for (int k = 0; k < K; k++) {
			__m256 x0 = _mm256_set1_ps(a0[k]), x1 = _mm256_set1_ps(a1[k]);
			const float *w = wf + (size_t)k * Q4_PANEL;
			for (int j = 0; j < 4; j++) {
				__m256 wv = _mm256_loadu_ps(w + 8 * j);
				f[0][j] = _mm256_fmadd_ps(x0, wv, f[0][j]);
				f[1][j] = _mm256_fmadd_ps(x1, wv, f[1][j]);
			}
		}
		for (int i = 0; i <= two; i++) {
			float out[Q4_PANEL];
			for (int j = 0; j < 4; j++)
				_mm256_storeu_ps(out + 8 * j, f[i][j]);
			q4_store(out, nc, r->bias ? r->bias + n0 : NULL, r->Y + (size_t)(m + i) * r->N + n0);
		}
	}
	free(wf);
}
