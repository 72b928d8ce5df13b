//go:build cgo && amd64 && (linux || windows)

// decode8.c: the decode step's loops over an int8 cache on AVX-512 with VNNI (attn.c hands them
// its int8 calls where the CPU has AVX512-BW and VNNI and the head size is a multiple of 32).
// The products are integer, one float conversion per score and per accumulator a block:
//
//   - each query vector (rotated, scaled, times the key scales) is rounded to int16 with a scale
//     of its own (its largest magnitude → 32767): an error of 2^-16 of that magnitude, far under
//     the cache's own rounding of the keys (half a step of a channel's 1/127 range);
//   - q·k is vpdpwssd of the query's int16 against the key row widened to int16, the sums of 8
//     rows reduced together by one transposition (no horizontal sum per score);
//   - after the online softmax, each vector's weights of the block are rounded to int16 (the
//     block's largest → 32767) and the value rows summed by vpdpwssd two rows at a time (the
//     rows' elements interleaved in pairs), each vector's int32 sums converted and added to its
//     float accumulator once a block.
//
// No sum overflows int32: |q16 · k| ≤ 32767 · 128 summed over at most 256 columns, |p16 · v| ≤
// 32767 · 128 over BLOCK rows.

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernel.h"
#include "simd.h"

#define VNNI __attribute__((target("avx512f,avx512bw,avx512vnni,avx2,fma")))

// quant16 rounds n vectors x [n][stride] (their first d values) to int16 y [n][d] with scales
// sc (x ≈ y · sc), each vector's largest magnitude to 32767 (a vector of zeros to zeros).
VNNI static void quant16(const float *x, int n, int d, size_t stride, int16_t *y, float *sc) {
	for (int h = 0; h < n; h++) {
		const float *v = x + (size_t)h * stride;
		__m512 mx = _mm512_setzero_ps();
		for (int c = 0; c < d; c += 16)
			mx = _mm512_max_ps(mx, _mm512_abs_ps(_mm512_loadu_ps(v + c)));
		float m = _mm512_reduce_max_ps(mx);
		sc[h] = m / 32767;
		__m512 mul = _mm512_set1_ps(m > 0 ? 32767 / m : 0);
		for (int c = 0; c < d; c += 16) {
			__m512i r = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(v + c), mul));
			_mm256_storeu_si256((__m256i *)(y + (size_t)h * d + c), _mm512_cvtsepi32_epi16(r));
		}
	}
}

// reduce8 returns the sums of the 16 lanes of each of a[0..7], in that order: a transposition
// tree (pairs of lanes, then of pairs, then of 128-bit quarters) instead of 8 horizontal sums.
VNNI static inline __m256i reduce8(const __m512i a[8]) {
	__m512i b[4], c[2];
	for (int i = 0; i < 4; i++)
		b[i] = _mm512_add_epi32(_mm512_unpacklo_epi32(a[2 * i], a[2 * i + 1]), _mm512_unpackhi_epi32(a[2 * i], a[2 * i + 1]));
	for (int i = 0; i < 2; i++)
		c[i] = _mm512_add_epi32(_mm512_unpacklo_epi64(b[2 * i], b[2 * i + 1]), _mm512_unpackhi_epi64(b[2 * i], b[2 * i + 1]));
	// c[i]'s quarter j holds rows 4i..4i+3 summed over the lanes of quarter j.
	__m512i z = _mm512_add_epi32(_mm512_shuffle_i32x4(c[0], c[1], _MM_SHUFFLE(2, 0, 2, 0)),
	                             _mm512_shuffle_i32x4(c[0], c[1], _MM_SHUFFLE(3, 1, 3, 1)));
	__m512i w = _mm512_shuffle_i32x4(z, z, _MM_SHUFFLE(3, 1, 2, 0));
	return _mm256_add_epi32(_mm512_castsi512_si256(w), _mm512_extracti64x4_epi64(w, 1));
}

// prefetchRows asks for bytes from p on.
static inline void prefetchRows(const int8_t *p, size_t bytes) {
	for (size_t o = 0; o < bytes; o += 64)
		_mm_prefetch((const char *)p + o, _MM_HINT_T0);
}

// scores8 fills s [nq][n] with the vectors q16 (scales qs) times the block's n key rows K8:
// 8 rows by two vectors at a time (a last group's rows past n repeat row n − 1; its scores
// past n are written, and padded after). It prefetches the block's value rows and, when next,
// the next block's keys.
VNNI static void scores8(const int16_t *q16, const float *qs, int nq, int d, const int8_t *K8, const int8_t *V8,
                         int n, int next, float s[MAXV][BLOCK]) {
	for (int t = 0; t < n; t += 8) {
		prefetchRows(V8 + (size_t)t * d, 8 * (size_t)d);
		if (next)
			prefetchRows(K8 + (size_t)(t + BLOCK) * d, 8 * (size_t)d);
		const int8_t *row[8];
		for (int j = 0; j < 8; j++)
			row[j] = K8 + (size_t)(t + j < n ? t + j : n - 1) * d;
		for (int h = 0; h < nq; h += 2) {
			const int16_t *q0 = q16 + (size_t)h * d, *q1 = h + 1 < nq ? q0 + d : q0;
			__m512i a[2][8];
			for (int j = 0; j < 8; j++)
				a[0][j] = a[1][j] = _mm512_setzero_si512();
			for (int c = 0; c < d; c += 32) {
				__m512i x0 = _mm512_loadu_si512(q0 + c), x1 = _mm512_loadu_si512(q1 + c);
				for (int j = 0; j < 8; j++) {
					__m512i k = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(row[j] + c)));
					a[0][j] = _mm512_dpwssd_epi32(a[0][j], k, x0);
					a[1][j] = _mm512_dpwssd_epi32(a[1][j], k, x1);
				}
			}
			for (int i = 0; i < 2 && h + i < nq; i++)
				_mm256_storeu_ps(&s[h + i][t], _mm256_mul_ps(_mm256_cvtepi32_ps(reduce8(a[i])), _mm256_set1_ps(qs[h + i])));
		}
	}
}

// values8 adds the n value rows V8 weighted by p16 (scales ps) into acc [nq][d]: up to 4
// vectors by 32 columns at a time, two rows a vpdpwssd. Interleaving rows t and t+1 puts
// columns {0-3, 8-11, 16-19, 24-27} in one sum and the rest in the other; they are put back in
// order when added to acc.
VNNI static void values8(int nq, int d, const int8_t *V8, int n, int16_t p16[MAXG][BLOCK], const float *ps, float *acc) {
	const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
	const __m512i hi = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
	for (int h = 0; h < nq; h += 4) {
		int g = nq - h < 4 ? nq - h : 4;
		for (int c = 0; c < d; c += 32) {
			__m512i a[4][2];
			for (int i = 0; i < 4; i++)
				a[i][0] = a[i][1] = _mm512_setzero_si512();
			for (int t = 0; t < n; t += 2) {
				const int8_t *r = V8 + (size_t)t * d + c;
				__m512i x = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)r));
				__m512i y = t + 1 < n ? _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(r + d))) : _mm512_setzero_si512();
				__m512i u = _mm512_unpacklo_epi16(x, y), v = _mm512_unpackhi_epi16(x, y);
				for (int i = 0; i < 4; i++)
					if (i < g) {
						int32_t pair;
						memcpy(&pair, &p16[h + i][t], sizeof pair); // weights of rows t, t+1
						__m512i p = _mm512_set1_epi32(pair);
						a[i][0] = _mm512_dpwssd_epi32(a[i][0], u, p);
						a[i][1] = _mm512_dpwssd_epi32(a[i][1], v, p);
					}
			}
			for (int i = 0; i < g; i++) {
				float *o = acc + (size_t)(h + i) * d + c;
				__m512 sc = _mm512_set1_ps(ps[h + i]);
				_mm512_storeu_ps(o, _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_permutex2var_epi32(a[i][0], lo, a[i][1])), sc, _mm512_loadu_ps(o)));
				_mm512_storeu_ps(o + 16, _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_permutex2var_epi32(a[i][0], hi, a[i][1])), sc, _mm512_loadu_ps(o + 16)));
			}
		}
	}
}

// attnop_part8 is attnop_part for an int8 cache on AVX-512 VNNI (d a multiple of 32).
VNNI void attnop_part8(const float *q, int nq, int d, const float *K, const float *V, const int8_t *K8,
                       const int8_t *V8, int r0, int r1, float *m, float *l, float *acc) {
	(void)K, (void)V;
	int16_t q16[MAXG * MAXD], p16[MAXG][BLOCK];
	float qs[MAXG], ps[MAXG], s[MAXV][BLOCK];
	quant16(q, nq, d, (size_t)d, q16, qs);
	for (int b0 = r0; b0 < r1; b0 += BLOCK) {
		int n = r1 - b0 < BLOCK ? r1 - b0 : BLOCK;
		size_t off = (size_t)b0 * d;
		scores8(q16, qs, nq, d, K8 + off, V8 + off, n, b0 + BLOCK < r1, s);
		pad(s, nq, n);
		softmaxBlock(s, nq, d, m, l, acc);
		quant16(&s[0][0], nq, BLOCK, BLOCK, &p16[0][0], ps);
		values8(nq, d, V8 + off, n, p16, ps, acc);
	}
}
