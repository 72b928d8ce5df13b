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
//   - the online softmax rounds each vector's weights of the block to int16 (the block's
//     largest → 32767) and the value rows summed by vpdpwssd two rows at a time (the
//     rows' elements interleaved in pairs), each vector's int32 sums converted and added to its
//     float accumulator once a block.
//
// The per-row cache (ld = ROWBYTES(d)): each block's scores are multiplied by its key rows'
// scales before the softmax; the weights e^(s − b) times the value rows' scales are what is
// rounded to int16 (the block's largest product → 32767), so the value sums stay integer.
//
// The cached rows stream from memory (after 3,000 tokens the 28-layer Qwen3-0.6B copy reads
// 177 MB a step): the loops prefetch them, the keys a block ahead in scores8 and, for d = 128
// with at most 2 vectors (values2x128), the next block's values while summing this block's.
//
// No sum overflows int32: |q16 · k| ≤ 32767 · 128 summed over at most 256 columns, |p16 · v| ≤
// 32767 · 128 over BLOCK8 rows.

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernel.h"

#define VNNI __attribute__((target("avx512f,avx512bw,avx512vnni,avx2,fma")))

#define BLOCK8 64 // cache rows whose scores are taken before their values are summed

// quant16 rounds n vectors x [n][d] to int16 y [n][d] with scales sc (x ≈ y · sc), each
// vector's largest magnitude to 32767 (a vector of zeros to zeros).
VNNI static void quant16(const float *x, int n, int d, int16_t *y, float *sc) {
	for (int h = 0; h < n; h++) {
		const float *v = x + (size_t)h * d;
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

// prefetchRows asks for the cache lines of bytes from p on (p need not be aligned: per-row
// cache rows are ROWBYTES(d) apart). Always inlined: gcc 12 takes a function that only
// prefetches for pure, so a call to it that its inliner leaves is dropped as dead code and the
// prefetches with it (a trial value loop lost them so and took 1.375x the time from memory).
static inline __attribute__((always_inline)) void prefetchRows(const int8_t *p, size_t bytes) {
	const char *a = (const char *)((uintptr_t)p & ~(uintptr_t)63), *end = (const char *)p + bytes;
	for (; a < end; a += 64)
		_mm_prefetch(a, _MM_HINT_T0);
}

// dot8 returns the products of the vectors x0 and x1 with the 8 rows at k (stride ld).
VNNI static inline __attribute__((always_inline)) void dot8(const int16_t *x0, const int16_t *x1, const int8_t *k, int d,
                                                           int ld, __m256i *s0, __m256i *s1) {
	__m512i a[8], b[8];
	for (int j = 0; j < 8; j++)
		a[j] = b[j] = _mm512_setzero_si512();
	for (int c = 0; c < d; c += 32) {
		__m512i w0 = _mm512_loadu_si512(x0 + c), w1 = _mm512_loadu_si512(x1 + c);
		for (int j = 0; j < 8; j++) {
			__m512i r = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(k + (size_t)j * ld + c)));
			a[j] = _mm512_dpwssd_epi32(a[j], r, w0);
			b[j] = _mm512_dpwssd_epi32(b[j], r, w1);
		}
	}
	*s0 = reduce8(a), *s1 = reduce8(b);
}

// scores8 fills s [nq][n] with the vectors q16 (scales qs) times the block's n key rows K8:
// 8 rows by two vectors at a time (a last group of fewer rows is copied out and padded with
// zeros; its scores past n are written, and set to -inf after). It prefetches the key rows ahead
// rows on (of the rest from K8) and, when values, the block's value rows.
VNNI static void scores8(const int16_t *q16, const float *qs, int nq, int d, int ld, const int8_t *K8, const int8_t *V8,
                         int n, int rest, int ahead, int values, float s[MAXG][BLOCK8]) {
	int8_t tail[8 * ROWBYTES(MAXD)];
	for (int t = 0; t < n; t += 8) {
		if (values)
			prefetchRows(V8 + (size_t)t * ld, 8 * (size_t)ld);
		if (t + ahead < rest)
			prefetchRows(K8 + (size_t)(t + ahead) * ld, 8 * (size_t)ld);
		const int8_t *k = K8 + (size_t)t * ld;
		if (t + 8 > n) {
			memset(tail, 0, 8 * (size_t)ld);
			memcpy(tail, k, (size_t)(n - t) * ld);
			k = tail;
		}
		for (int h = 0; h < nq; h += 2) {
			const int16_t *q0 = q16 + (size_t)h * d, *q1 = h + 1 < nq ? q0 + d : q0;
			__m256i a, b;
			if (d == 128) // a constant trip count: the loop unrolled, no copies of the sums
				dot8(q0, q1, k, 128, ld, &a, &b);
			else
				dot8(q0, q1, k, d, ld, &a, &b);
			_mm256_storeu_ps(&s[h][t], _mm256_mul_ps(_mm256_cvtepi32_ps(a), _mm256_set1_ps(qs[h])));
			if (h + 1 < nq)
				_mm256_storeu_ps(&s[h + 1][t], _mm256_mul_ps(_mm256_cvtepi32_ps(b), _mm256_set1_ps(qs[h + 1])));
		}
	}
}

// exp16 is simd.h's exp8 on 16 floats: e^x for x <= 0, 0 below -87 (and for -inf).
VNNI static inline __m512 exp16(__m512 x) {
	__mmask16 under = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.0f), _CMP_LT_OQ);
	x = _mm512_max_ps(x, _mm512_set1_ps(-87.0f));
	__m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	x = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
	x = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), x);
	__m512 p = _mm512_set1_ps(1.9875691500e-4f);
	p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(1.3981999507e-3f));
	p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(8.3334519073e-3f));
	p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(4.1665795894e-2f));
	p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(1.6666665459e-1f));
	p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(5.0000001201e-1f));
	p = _mm512_fmadd_ps(p, _mm512_mul_ps(x, x), _mm512_add_ps(x, _mm512_set1_ps(1)));
	__m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
	return _mm512_maskz_mul_ps(~under, p, _mm512_castsi512_ps(e));
}

// exp1 is exp16 of one float.
VNNI static inline float exp1(float x) { return _mm512_cvtss_f32(exp16(_mm512_set1_ps(x))); }

// softmax8 is the online softmax of a block's scores s [nq][BLOCK8] (rows past n at -inf), its
// weights rounded to int16: p16 = round(32767 · e^(s − b)), b the vector's block maximum, whose
// scale ps = e^(b − m) / 32767 refers them to the running maximum m (raised to b, and the sum l
// and accumulator acc [nq][d] rescaled, when b is above it). With the value rows' scales vs
// (per-row cache; else NULL) the weights times them are rounded instead, their largest → 32767.
VNNI static void softmax8(float s[MAXG][BLOCK8], int nq, int d, float *m, float *l, float *acc, const float *vs,
                          int16_t p16[MAXG][BLOCK8], float *ps) {
	for (int h = 0; h < nq; h++) {
		__m512 v[BLOCK8 / 16], mx = _mm512_set1_ps(-INFINITY);
		for (int j = 0; j < BLOCK8 / 16; j++)
			mx = _mm512_max_ps(mx, v[j] = _mm512_loadu_ps(&s[h][16 * j]));
		// w = e^(b − m): 1 when b raises m. The scalar exponentials are exp16's (one lane): a
		// call to libm's expf spills the loop's vectors (every zmm is caller-saved), and with
		// one exponential a block instead of two the step takes 0.94-0.95x the time (paired
		// microbenchmark, 28 layers after 3,000 tokens, from memory and from cache).
		float b = _mm512_reduce_max_ps(mx), w = 1;
		if (b > m[h]) {
			float c = exp1(m[h] - b); // 0 for the first block (m = -inf)
			__m512 cv = _mm512_set1_ps(c);
			float *a = acc + (size_t)h * d;
			for (int i = 0; i < d; i += 16)
				_mm512_storeu_ps(a + i, _mm512_mul_ps(_mm512_loadu_ps(a + i), cv));
			l[h] *= c;
			m[h] = b;
		} else
			w = exp1(b - m[h]);
		__m512 bv = _mm512_set1_ps(b), sum = _mm512_setzero_ps(), top = _mm512_setzero_ps();
		for (int j = 0; j < BLOCK8 / 16; j++) {
			__m512 e = exp16(_mm512_sub_ps(v[j], bv));
			sum = _mm512_add_ps(sum, e);
			if (vs)
				top = _mm512_max_ps(top, v[j] = _mm512_mul_ps(e, _mm512_loadu_ps(vs + 16 * j)));
			else
				v[j] = e;
		}
		float big = vs ? _mm512_reduce_max_ps(top) : 1; // the largest weight (e^0 = 1 without row scales)
		__m512 mul = _mm512_set1_ps(big > 0 ? 32767 / big : 0);
		for (int j = 0; j < BLOCK8 / 16; j++) {
			__m512i r = _mm512_cvtps_epi32(_mm512_mul_ps(v[j], mul));
			_mm256_storeu_si256((__m256i *)&p16[h][16 * j], _mm512_cvtsepi32_epi16(r));
		}
		l[h] += w * _mm512_reduce_add_ps(sum);
		ps[h] = w * big / 32767;
	}
}

// addPairSums adds 32 columns' int32 sums of interleaved row pairs (a0: columns {0-3, 8-11,
// 16-19, 24-27}, a1 the rest; see values8) times sc to o [32], the columns back in order.
VNNI static inline __attribute__((always_inline)) void addPairSums(float *o, __m512i a0, __m512i a1, __m512 sc) {
	const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
	const __m512i hi = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
	_mm512_storeu_ps(o, _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_permutex2var_epi32(a0, lo, a1)), sc, _mm512_loadu_ps(o)));
	_mm512_storeu_ps(o + 16, _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_permutex2var_epi32(a0, hi, a1)), sc, _mm512_loadu_ps(o + 16)));
}

// values8 adds the n value rows V8 weighted by p16 (scales ps) into acc [nq][d]: up to 4
// vectors by 32 columns at a time, two rows a vpdpwssd. Interleaving rows t and t+1 puts
// columns {0-3, 8-11, 16-19, 24-27} in one sum and the rest in the other; they are put back in
// order when added to acc.
VNNI static void values8(int nq, int d, int ld, const int8_t *V8, int n, int16_t p16[MAXG][BLOCK8], const float *ps, float *acc) {
	for (int h = 0; h < nq; h += 4) {
		int g = nq - h < 4 ? nq - h : 4;
		for (int c = 0; c < d; c += 32) {
			__m512i a[4][2];
			for (int i = 0; i < 4; i++)
				a[i][0] = a[i][1] = _mm512_setzero_si512();
			for (int t = 0; t < n; t += 2) {
				const int8_t *r = V8 + (size_t)t * ld + c;
				__m512i x = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)r));
				__m512i y = t + 1 < n ? _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(r + ld))) : _mm512_setzero_si512();
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
				addPairSums(o, a[i][0], a[i][1], sc);
			}
		}
	}
}

// values2x128 is values8 for d = 128 and nq <= 2 (Qwen3-0.6B: 2 query heads a KV head), two rows
// at a time over all 128 columns (16 sums), each pair of weights broadcast once; and it
// prefetches the next block's value rows (ahead: the rows after this block), so that the
// prefetches spread over the step, the keys' in scores8, the values' here. After 3,000 tokens
// on the 28-layer copy's shapes (177 MB read a step) that takes 0.85-0.88x the attention time of
// values8 with the values prefetched in scores8 (paired microbenchmark, from memory; about the
// same from cache).
VNNI static void values2x128(int nq, int ld, const int8_t *V8, int n, int ahead, int16_t p16[MAXG][BLOCK8], const float *ps,
                             float *acc) {
	__m512i a[2][4][2]; // [vector][32 columns][the interleaved halves]
	for (int i = 0; i < 2; i++)
		for (int c = 0; c < 4; c++)
			a[i][c][0] = a[i][c][1] = _mm512_setzero_si512();
	const int16_t *p1 = nq > 1 ? p16[1] : p16[0]; // a lone vector's sums computed twice, the second unused
	for (int t = 0; t < n; t += 2) {
		const int8_t *r = V8 + (size_t)t * ld;
		if ((t & 7) == 0 && t < ahead)
			prefetchRows(r + (size_t)BLOCK8 * ld, 8 * (size_t)ld);
		int32_t w0, w1;
		memcpy(&w0, &p16[0][t], sizeof w0), memcpy(&w1, &p1[t], sizeof w1); // weights of rows t, t+1
		__m512i p = _mm512_set1_epi32(w0), pq = _mm512_set1_epi32(w1);
		for (int c = 0; c < 4; c++) {
			__m512i x = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(r + 32 * c)));
			__m512i y = t + 1 < n ? _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(r + ld + 32 * c))) : _mm512_setzero_si512();
			__m512i u = _mm512_unpacklo_epi16(x, y), v = _mm512_unpackhi_epi16(x, y);
			a[0][c][0] = _mm512_dpwssd_epi32(a[0][c][0], u, p);
			a[0][c][1] = _mm512_dpwssd_epi32(a[0][c][1], v, p);
			a[1][c][0] = _mm512_dpwssd_epi32(a[1][c][0], u, pq);
			a[1][c][1] = _mm512_dpwssd_epi32(a[1][c][1], v, pq);
		}
	}
	for (int i = 0; i < nq; i++)
		for (int c = 0; c < 4; c++) {
			float *o = acc + (size_t)i * 128 + 32 * c;
			__m512 sc = _mm512_set1_ps(ps[i]);
			addPairSums(o, a[i][c][0], a[i][c][1], sc);
		}
}

// attnop_part8 is attnop_part for an int8 cache on AVX-512 VNNI (d a multiple of 32).
VNNI void attnop_part8(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8,
                       const int8_t *V8, int r0, int r1, float *m, float *l, float *acc) {
	(void)K, (void)V;
	int16_t q16[MAXG * MAXD], p16[MAXG][BLOCK8];
	float qs[MAXG], ps[MAXG], s[MAXG][BLOCK8], ks[BLOCK8], vs[BLOCK8];
	int perRow = ld != d, two = d == 128 && nq <= 2; // two: values2x128, which prefetches the next block's values
	quant16(q, nq, d, q16, qs);
	for (int b0 = r0; b0 < r1; b0 += BLOCK8) {
		int n = r1 - b0 < BLOCK8 ? r1 - b0 : BLOCK8;
		size_t off = (size_t)b0 * ld;
		// With values2x128 the keys 48 rows ahead: 0.95-0.96x the step of 64 (a block), from memory.
		scores8(q16, qs, nq, d, ld, K8 + off, V8 + off, n, r1 - b0, two ? 48 : BLOCK8, !two || b0 == r0, s);
		if (perRow) {
			// The rows' scales, 16 rows a gather (rows past n masked to 0).
			__m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(ld));
			idx = _mm512_add_epi32(idx, _mm512_set1_epi32(d));
			for (int j = 0; j < BLOCK8; j += 16) {
				__mmask16 live = n - j >= 16 ? 0xffff : n - j <= 0 ? 0 : (__mmask16)((1u << (n - j)) - 1);
				const int8_t *kb = K8 + off + (size_t)j * ld, *vb = V8 + off + (size_t)j * ld;
				_mm512_storeu_ps(ks + j, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), live, idx, kb, 1));
				_mm512_storeu_ps(vs + j, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), live, idx, vb, 1));
			}
			for (int h = 0; h < nq; h++)
				for (int j = 0; j < BLOCK8; j += 16)
					_mm512_storeu_ps(&s[h][j], _mm512_mul_ps(_mm512_loadu_ps(&s[h][j]), _mm512_loadu_ps(ks + j)));
		}
		for (int h = 0; h < nq; h++)
			for (int t = n; t < BLOCK8; t++)
				s[h][t] = -INFINITY;
		softmax8(s, nq, d, m, l, acc, perRow ? vs : NULL, p16, ps);
		if (two)
			values2x128(nq, ld, V8 + off, n, r1 - b0 - n, p16, ps, acc);
		else
			values8(nq, d, ld, V8 + off, n, p16, ps, acc);
	}
}
