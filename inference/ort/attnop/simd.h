//go:build cgo && amd64 && (linux || windows)

// simd.h: the vector helpers attn.c (decode steps) and tile.c (prompt tiles) share.

#ifndef ATTNOP_SIMD_H
#define ATTNOP_SIMD_H

#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#include "kernel.h"

#define AVX2 __attribute__((target("avx2,fma")))
#define AVX512 __attribute__((target("avx512f,avx2,fma")))

AVX2 static inline __m256 load8(const float *f, const int8_t *b, size_t i) {
	if (b)
		return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(b + i))));
	return _mm256_loadu_ps(f + i);
}

// exp8 is e^x for x <= 0 (scores less their maximum), 0 below -87 (and for -inf): Cephes'
// polynomial, within 2 ulp.
AVX2 static inline __m256 exp8(__m256 x) {
	__m256 under = _mm256_cmp_ps(x, _mm256_set1_ps(-87.0f), _CMP_LT_OQ);
	x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
	__m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	x = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
	x = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), x);
	__m256 p = _mm256_set1_ps(1.9875691500e-4f);
	p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.3981999507e-3f));
	p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(8.3334519073e-3f));
	p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(4.1665795894e-2f));
	p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.6666665459e-1f));
	p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(5.0000001201e-1f));
	p = _mm256_fmadd_ps(p, _mm256_mul_ps(x, x), _mm256_add_ps(x, _mm256_set1_ps(1)));
	__m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
	return _mm256_andnot_ps(under, _mm256_mul_ps(p, _mm256_castsi256_ps(e)));
}

AVX2 static inline float hmax8(__m256 v) {
	__m128 a = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
	a = _mm_max_ps(a, _mm_movehl_ps(a, a));
	a = _mm_max_ss(a, _mm_movehdup_ps(a));
	return _mm_cvtss_f32(a);
}

AVX2 static inline float hsum8(__m256 v) {
	__m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
	a = _mm_add_ps(a, _mm_movehl_ps(a, a));
	a = _mm_add_ss(a, _mm_movehdup_ps(a));
	return _mm_cvtss_f32(a);
}

AVX512 static inline __m512 load16(const float *f, const int8_t *b, size_t i) {
	if (b)
		return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(b + i))));
	return _mm512_loadu_ps(f + i);
}

// dequant converts n rows of d int8 values to float.
AVX2 static inline void dequant(const int8_t *b, float *f, int n, int d) {
	for (size_t i = 0; i < (size_t)n * d; i += 8)
		_mm256_storeu_ps(f + i, load8(NULL, b, i));
}

// dequantRows converts n rows of the per-row int8 cache (stride ld, d values then the row's
// scale) to float [n][d], each row times its scale.
AVX2 static inline void dequantRows(const int8_t *b, float *f, int n, int d, int ld) {
	for (int t = 0; t < n; t++) {
		const int8_t *r = b + (size_t)t * ld;
		__m256 sc = _mm256_set1_ps(rowScale(r, d));
		for (int c = 0; c < d; c += 8)
			_mm256_storeu_ps(f + (size_t)t * d + c, _mm256_mul_ps(load8(NULL, r, c), sc));
	}
}

#endif
