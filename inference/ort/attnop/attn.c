//go:build cgo && amd64 && (linux || windows)

// attn.c: the decode step's loops (op.c is the operator around them; tile.c has the prompt's).
// Per KV head, the cached rows are read in blocks of BLOCK: the scores of the group's G = H/KV
// query heads for each row read (the row comes from memory once, from L1 for the other
// vectors), an online softmax (running maximum, sum, rescaled accumulators), the value rows
// weighted into the vectors' accumulators. The loops run on AVX2 + FMA, or AVX-512 where the CPU
// has it (a head size a multiple of 64; AVX2 otherwise); an int8 cache's on decode8.c's integer
// loops where the CPU also has AVX512-BW and VNNI (a head size a multiple of 32).

#include <cpuid.h>
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernel.h"
#include "simd.h"
#include "part.h"

attnop_part_fn *attnop_part;
attnop_tile_fn *attnop_tile;

// softmaxBlock turns the scores s [nq][BLOCK] (rows past n set to -inf) into weights e^(s − m),
// m each vector's new running maximum, rescaling the vectors' sums l and accumulators acc
// [nq][d] to it.
AVX2 static void softmaxBlock(float s[MAXV][BLOCK], int nq, int d, float *m, float *l, float *acc) {
	for (int h = 0; h < nq; h++) {
		__m256 v[BLOCK / 8], mx = _mm256_set1_ps(-INFINITY);
		for (int j = 0; j < BLOCK / 8; j++)
			mx = _mm256_max_ps(mx, v[j] = _mm256_loadu_ps(&s[h][8 * j]));
		float bm = hmax8(mx);
		if (bm > m[h]) {
			float c = expf(m[h] - bm); // 0 for the first block (m = -inf)
			l[h] *= c;
			float *a = acc + (size_t)h * d;
			for (int i = 0; i < d; i++)
				a[i] *= c;
			m[h] = bm;
		}
		__m256 mh = _mm256_set1_ps(m[h]), sum = _mm256_setzero_ps();
		for (int j = 0; j < BLOCK / 8; j++) {
			__m256 e = exp8(_mm256_sub_ps(v[j], mh));
			_mm256_storeu_ps(&s[h][8 * j], e);
			sum = _mm256_add_ps(sum, e);
		}
		l[h] += hsum8(sum);
	}
}

// prefetch asks for the values of rows [t, t+4) of the block at Vb (read next, column by column:
// a stride the hardware prefetcher follows poorly) and, when next, for the keys a block on.
static inline void prefetch(const float *K, const int8_t *K8, const float *V, const int8_t *V8, size_t row, int ld, int next) {
	size_t bytes = 4 * (size_t)ld * (K8 ? 1 : 4);
	const char *vp = V8 ? (const char *)(V8 + row) : (const char *)(V + row);
	const char *kp = K8 ? (const char *)(K8 + row + BLOCK * ld) : (const char *)(K + row + BLOCK * ld);
	for (size_t o = 0; o < bytes; o += 64) {
		_mm_prefetch(vp + o, _MM_HINT_T0);
		if (next)
			_mm_prefetch(kp + o, _MM_HINT_T0);
	}
}

// scoresAVX2 fills s [nq][n] with the vectors' dot products with the block's n key rows: two
// vectors by four rows at a time.
AVX2 static void scoresAVX2(const float *q, int nq, int d, int ld, const float *K, const int8_t *K8, const float *V,
                            const int8_t *V8, int n, int next, float s[MAXV][BLOCK]) {
	int t = 0;
	for (; t + 4 <= n; t += 4) {
		size_t row = (size_t)t * ld;
		prefetch(K, K8, V, V8, row, ld, next);
		for (int h = 0; h < nq; h += 2) {
			const float *q0 = q + (size_t)h * d, *q1 = h + 1 < nq ? q0 + d : q0;
			__m256 a[2][4];
			for (int j = 0; j < 4; j++)
				a[0][j] = a[1][j] = _mm256_setzero_ps();
			for (int c = 0; c < d; c += 8) {
				__m256 x0 = _mm256_loadu_ps(q0 + c), x1 = _mm256_loadu_ps(q1 + c);
				for (int j = 0; j < 4; j++) {
					__m256 k = load8(K, K8, row + (size_t)j * ld + c);
					a[0][j] = _mm256_fmadd_ps(x0, k, a[0][j]);
					a[1][j] = _mm256_fmadd_ps(x1, k, a[1][j]);
				}
			}
			for (int i = 0; i < 2 && h + i < nq; i++) {
				__m256 h4 = _mm256_hadd_ps(_mm256_hadd_ps(a[i][0], a[i][1]), _mm256_hadd_ps(a[i][2], a[i][3]));
				_mm_storeu_ps(&s[h + i][t], _mm_add_ps(_mm256_castps256_ps128(h4), _mm256_extractf128_ps(h4, 1)));
			}
		}
	}
	for (; t < n; t++)
		for (int h = 0; h < nq; h++)
			s[h][t] = dot(q + (size_t)h * d, K ? K + (size_t)t * ld : NULL, K8 ? K8 + (size_t)t * ld : NULL, d);
}

// valuesAVX2 adds the n value rows weighted by s into acc: four vectors by 16 columns at a time.
AVX2 static void valuesAVX2(int nq, int d, int ld, const float *V, const int8_t *V8, int n, float s[MAXV][BLOCK], float *acc) {
	for (int h = 0; h < nq; h += 4) {
		int g = nq - h < 4 ? nq - h : 4;
		for (int c = 0; c < d; c += 16) {
			__m256 a[4][2];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 2; j++)
					a[i][j] = i < g ? _mm256_loadu_ps(acc + (size_t)(h + i) * d + c + 8 * j) : _mm256_setzero_ps();
			for (int t = 0; t < n; t++) {
				size_t row = (size_t)t * ld + c;
				__m256 v0 = load8(V, V8, row), v1 = load8(V, V8, row + 8);
				for (int i = 0; i < 4; i++)
					if (i < g) {
						__m256 p = _mm256_broadcast_ss(&s[h + i][t]);
						a[i][0] = _mm256_fmadd_ps(p, v0, a[i][0]);
						a[i][1] = _mm256_fmadd_ps(p, v1, a[i][1]);
					}
			}
			for (int i = 0; i < g; i++)
				for (int j = 0; j < 2; j++)
					_mm256_storeu_ps(acc + (size_t)(h + i) * d + c + 8 * j, a[i][j]);
		}
	}
}

// reduce8ps returns the sums of the 16 lanes of each of a[0..7], in that order (decode8.c's
// reduce8 on floats).
AVX512 static inline __m256 reduce8ps(const __m512 a[8]) {
	__m512 b[4], c[2];
	for (int i = 0; i < 4; i++)
		b[i] = _mm512_add_ps(_mm512_unpacklo_ps(a[2 * i], a[2 * i + 1]), _mm512_unpackhi_ps(a[2 * i], a[2 * i + 1]));
	for (int i = 0; i < 2; i++) {
		__m512d x = _mm512_castps_pd(b[2 * i]), y = _mm512_castps_pd(b[2 * i + 1]);
		c[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)), _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
	}
	__m512 z = _mm512_add_ps(_mm512_shuffle_f32x4(c[0], c[1], _MM_SHUFFLE(2, 0, 2, 0)),
	                         _mm512_shuffle_f32x4(c[0], c[1], _MM_SHUFFLE(3, 1, 3, 1)));
	__m512d w = _mm512_castps_pd(_mm512_shuffle_f32x4(z, z, _MM_SHUFFLE(3, 1, 2, 0)));
	return _mm256_add_ps(_mm256_castpd_ps(_mm512_castpd512_pd256(w)), _mm256_castpd_ps(_mm512_extractf64x4_pd(w, 1)));
}

// dot8x2 returns the products of the vectors x0 and x1 with the 8 rows at offsets o of K or K8.
AVX512 static inline __attribute__((always_inline)) void dot8x2(const float *x0, const float *x1, const float *K, const int8_t *K8,
                                                               const size_t o[8], int d, __m256 *s0, __m256 *s1) {
	__m512 a[8], b[8];
	for (int j = 0; j < 8; j++)
		a[j] = b[j] = _mm512_setzero_ps();
	for (int c = 0; c < d; c += 16) {
		__m512 w0 = _mm512_loadu_ps(x0 + c), w1 = _mm512_loadu_ps(x1 + c);
		for (int j = 0; j < 8; j++) {
			__m512 k = load16(K, K8, o[j] + c);
			a[j] = _mm512_fmadd_ps(w0, k, a[j]);
			b[j] = _mm512_fmadd_ps(w1, k, b[j]);
		}
	}
	*s0 = reduce8ps(a), *s1 = reduce8ps(b);
}

// scoresAVX512 is scoresAVX2 on 16-float vectors, 8 rows at a time, their sums reduced together
// (a last group of fewer rows repeats row n − 1; its scores past n are padded after).
AVX512 static void scoresAVX512(const float *q, int nq, int d, int ld, const float *K, const int8_t *K8, const float *V,
                                const int8_t *V8, int n, int next, float s[MAXV][BLOCK]) {
	for (int t = 0; t < n; t += 8) {
		size_t o[8];
		for (int j = 0; j < 8; j++)
			o[j] = (size_t)(t + j < n ? t + j : n - 1) * ld;
		prefetch(K, K8, V, V8, (size_t)t * ld, ld, next);
		prefetch(K, K8, V, V8, (size_t)(t + 4) * ld, ld, next);
		for (int h = 0; h < nq; h += 2) {
			const float *q0 = q + (size_t)h * d, *q1 = h + 1 < nq ? q0 + d : q0;
			__m256 a, b;
			if (d == 128) // a constant trip count: the loop unrolled, no copies of the sums
				dot8x2(q0, q1, K, K8, o, 128, &a, &b);
			else
				dot8x2(q0, q1, K, K8, o, d, &a, &b);
			_mm256_storeu_ps(&s[h][t], a);
			if (h + 1 < nq)
				_mm256_storeu_ps(&s[h + 1][t], b);
		}
	}
}

// valuesAVX512: four vectors by 64 columns at a time (d a multiple of 64).
AVX512 static void valuesAVX512(int nq, int d, int ld, const float *V, const int8_t *V8, int n, float s[MAXV][BLOCK], float *acc) {
	for (int h = 0; h < nq; h += 4) {
		int g = nq - h < 4 ? nq - h : 4;
		for (int c = 0; c < d; c += 64) {
			__m512 a[4][4];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					a[i][j] = i < g ? _mm512_loadu_ps(acc + (size_t)(h + i) * d + c + 16 * j) : _mm512_setzero_ps();
			for (int t = 0; t < n; t++) {
				size_t row = (size_t)t * ld + c;
				__m512 v0 = load16(V, V8, row), v1 = load16(V, V8, row + 16), v2 = load16(V, V8, row + 32), v3 = load16(V, V8, row + 48);
				for (int i = 0; i < 4; i++)
					if (i < g) {
						__m512 p = _mm512_set1_ps(s[h + i][t]);
						a[i][0] = _mm512_fmadd_ps(p, v0, a[i][0]);
						a[i][1] = _mm512_fmadd_ps(p, v1, a[i][1]);
						a[i][2] = _mm512_fmadd_ps(p, v2, a[i][2]);
						a[i][3] = _mm512_fmadd_ps(p, v3, a[i][3]);
					}
			}
			for (int i = 0; i < g; i++)
				for (int j = 0; j < 4; j++)
					_mm512_storeu_ps(acc + (size_t)(h + i) * d + c + 16 * j, a[i][j]);
		}
	}
}

// scaleScores multiplies each vector's scores (or weights) s [nq][BLOCK] by the rows' scales.
AVX2 static void scaleScores(float s[MAXV][BLOCK], int nq, const float *sc) {
	for (int h = 0; h < nq; h++)
		for (int j = 0; j < BLOCK; j += 8)
			_mm256_storeu_ps(&s[h][j], _mm256_mul_ps(_mm256_loadu_ps(&s[h][j]), _mm256_loadu_ps(sc + j)));
}

AVX2 PART(partAVX2, scoresAVX2, valuesAVX2)
AVX512 PART(partAVX512only, scoresAVX512, valuesAVX512)

static int vnni; // the int8 cache's calls run decode8.c's loops

AVX512 static void partAVX512(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8,
                              const int8_t *V8, int r0, int r1, float *m, float *l, float *acc) {
	if (K8 && vnni && d % 32 == 0)
		attnop_part8(q, nq, d, ld, K, V, K8, V8, r0, r1, m, l, acc);
	else if (d % 64)
		partAVX2(q, nq, d, ld, K, V, K8, V8, r0, r1, m, l, acc);
	else
		partAVX512only(q, nq, d, ld, K, V, K8, V8, r0, r1, m, l, acc);
}

// cpu reports AVX2 + FMA (1), AVX-512F (2) and AVX-512F with BW and VNNI (3) from CPUID, each
// only where the OS saves the registers (XCR0): the compiler's __builtin_cpu_supports needs a
// runtime library that zig's Windows target lacks.
static int cpu(void) {
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)) || !(c & (1u << 12)))
		return 0; // no OSXSAVE or no FMA
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 6) != 6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 5)))
		return 0; // no AVX state or no AVX2
	if (!(b & (1u << 16)) || (lo & 0xe0) != 0xe0)
		return 1;
	return (b & (1u << 30)) && (c & (1u << 11)) ? 3 : 2; // AVX512-BW, AVX512-VNNI
}

int attnop_select(int most) {
	int isa = cpu();
	if (most > 0 && isa > most)
		isa = most;
	vnni = isa == 3;
	attnop_part = isa >= 2 ? partAVX512 : isa == 1 ? partAVX2 : NULL;
	attnop_select_tile(isa);
	return isa;
}
