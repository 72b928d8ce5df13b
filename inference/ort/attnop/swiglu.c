//go:build cgo && amd64 && (linux || windows)

// swiglu.c: the int4 product's gated activation (matmul.h, attribute swiglu 1): a row of A is
// gate | up, K values each, and the product's input is h = (gate · sigmoid(gate)) · up, the
// order ONNX Runtime computes QuickGelu (alpha 1) and then the Mul by up in. sigmoid is
// 1 / (1 + e^−x) with e^x from its own polynomial (AVX2 + FMA): within ~2 ulp of expf, where
// ONNX Runtime's Sigmoid and QuickGelu use MLAS's rational approximation of the logistic; the
// two differ by a few 1e-7 of sigmoid's value (matmul_test.go measures it through the product).

#include <immintrin.h>
#include <string.h>

#include "matmul.h"

#define AVX2 __attribute__((target("avx2,fma")))

// expNeg is e^−x for 8 lanes: x clamped to [−88, 88], −x = n·ln2 + f with |f| ≤ ln2/2 (ln2 in
// two parts, so f is exact), e^f by its Taylor polynomial to degree 7 (Horner, relative error
// under 2e-8 on [−ln2/2, ln2/2]), times 2^n built in the exponent bits.
AVX2 static __m256 expNeg(__m256 x) {
	__m256 y = _mm256_sub_ps(_mm256_setzero_ps(), x);
	y = _mm256_max_ps(_mm256_set1_ps(-88.0f), _mm256_min_ps(_mm256_set1_ps(88.0f), y));
	__m256 n = _mm256_round_ps(_mm256_mul_ps(y, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	__m256 f = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), y);
	f = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), f);
	__m256 p = _mm256_set1_ps(1.0f / 5040);
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f / 720));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f / 120));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f / 24));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f / 6));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(0.5f));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
	__m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
	return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

// swiglu8 is h for 8 lanes of gate g and up u.
AVX2 static __m256 swiglu8(__m256 g, __m256 u) {
	__m256 s = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_add_ps(_mm256_set1_ps(1.0f), expNeg(g)));
	return _mm256_mul_ps(_mm256_mul_ps(g, s), u);
}

AVX2 void q4_swiglu(const float *a, float *h, int K, int m0, int m1) {
	for (int m = m0; m < m1; m++) {
		const float *g = a + (size_t)m * 2 * K, *u = g + K;
		float *o = h + (size_t)m * K;
		int i = 0;
		for (; i + 8 <= K; i += 8)
			_mm256_storeu_ps(o + i, swiglu8(_mm256_loadu_ps(g + i), _mm256_loadu_ps(u + i)));
		if (i < K) { // K is a multiple of 32: never, but the loop does not rely on it
			float gt[8] = {0}, ut[8] = {0}, ot[8];
			memcpy(gt, g + i, sizeof(float) * (size_t)(K - i));
			memcpy(ut, u + i, sizeof(float) * (size_t)(K - i));
			_mm256_storeu_ps(ot, swiglu8(_mm256_loadu_ps(gt), _mm256_loadu_ps(ut)));
			memcpy(o + i, ot, sizeof(float) * (size_t)(K - i));
		}
	}
}
