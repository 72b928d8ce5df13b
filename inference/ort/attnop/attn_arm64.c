//go:build cgo && arm64 && (linux || windows)

// attn_arm64.c: the attention loops on Arm64 NEON (Windows on Arm, Linux arm64): the decode
// step's (attn.c's on x86-64) and the prompt tile's (tile.c's), on 4-float vectors. The drivers
// are the same as x86-64's (part.h's PART, tiledrv.h's tile); only the loops differ:
//
//   - decode: the scores of two query vectors by four cached rows at a time, 8 columns a step
//     (an int8 row widened to float on load), their four sums reduced together by pairwise adds;
//     the values of four vectors by 16 columns at a time;
//   - prompt: the scores of every vector of a part (groups of 4 lanes) against two rows at a
//     time, one key element broadcast (the query transposed, as tile.c does); the values as in
//     decode.
//
// Every Arm64 CPU has NEON with fused multiply-adds, so there is one set of loops and no
// detection (an int8 cache's integer products, which x86-64 runs on AVX-512 VNNI, are not
// built here: the per-row cache's decode is read-bound, 177 MB a step at 3,000 tokens of
// Qwen3-0.6B, and its float products run under the memory's pace).

#include <arm_neon.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernel.h"
#include "part.h"
#include "tiledrv.h"

attnop_part_fn *attnop_part;
attnop_tile_fn *attnop_tile;

// load8 reads 8 values at i of f, or of b (int8) widened to float, into lo and hi.
static inline __attribute__((always_inline)) void load8(const float *f, const int8_t *b, size_t i, float32x4_t *lo,
                                                        float32x4_t *hi) {
	if (b) {
		int16x8_t w = vmovl_s8(vld1_s8(b + i));
		*lo = vcvtq_f32_s32(vmovl_s16(vget_low_s16(w)));
		*hi = vcvtq_f32_s32(vmovl_s16(vget_high_s16(w)));
	} else {
		*lo = vld1q_f32(f + i);
		*hi = vld1q_f32(f + i + 4);
	}
}

// exp4 is e^x for x <= 0 (scores less their maximum), 0 below -87 (and for -inf): simd.h's
// exp8 (Cephes' polynomial, within 2 ulp) on 4 floats.
static inline float32x4_t exp4(float32x4_t x) {
	uint32x4_t under = vcltq_f32(x, vdupq_n_f32(-87.0f));
	x = vmaxq_f32(x, vdupq_n_f32(-87.0f));
	float32x4_t n = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(1.44269504088896341f)));
	x = vfmsq_f32(x, n, vdupq_n_f32(0.693359375f));
	x = vfmsq_f32(x, n, vdupq_n_f32(-2.12194440e-4f));
	float32x4_t p = vdupq_n_f32(1.9875691500e-4f);
	p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), p, x);
	p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, x);
	p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, x);
	p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, x);
	p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, x);
	p = vfmaq_f32(vaddq_f32(x, vdupq_n_f32(1)), p, vmulq_f32(x, x));
	int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
	float32x4_t r = vmulq_f32(p, vreinterpretq_f32_s32(e));
	return vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(r), under));
}

// accLoad reads g ≤ 4 vectors' accumulators acc [g][d] at columns [c, c+16) into a (zeros past g);
// accStore writes them back. The value loops (decode and prompt tiles) keep them in registers.
static inline void accLoad(float32x4_t a[4][4], const float *acc, int g, int d, int c) {
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			a[i][j] = i < g ? vld1q_f32(acc + (size_t)i * d + c + 4 * j) : vdupq_n_f32(0);
}

static inline void accStore(float32x4_t a[4][4], float *acc, int g, int d, int c) {
	for (int i = 0; i < g; i++)
		for (int j = 0; j < 4; j++)
			vst1q_f32(acc + (size_t)i * d + c + 4 * j, a[i][j]);
}

// ---- decode -----------------------------------------------------------------------------------

// softmaxBlock turns the scores s [nq][BLOCK] (rows past n set to -inf) into weights e^(s − m),
// m each vector's new running maximum, rescaling the vectors' sums l and accumulators acc
// [nq][d] to it (attn.c's, on NEON).
static void softmaxBlock(float s[MAXV][BLOCK], int nq, int d, float *m, float *l, float *acc) {
	for (int h = 0; h < nq; h++) {
		float32x4_t v[BLOCK / 4], mx = vdupq_n_f32(-INFINITY);
		for (int j = 0; j < BLOCK / 4; j++)
			mx = vmaxq_f32(mx, v[j] = vld1q_f32(&s[h][4 * j]));
		float bm = vmaxvq_f32(mx);
		if (bm > m[h]) {
			float c = expf(m[h] - bm); // 0 for the first block (m = -inf)
			l[h] *= c;
			float *a = acc + (size_t)h * d;
			for (int i = 0; i < d; i++)
				a[i] *= c;
			m[h] = bm;
		}
		float32x4_t mh = vdupq_n_f32(m[h]), sum = vdupq_n_f32(0);
		for (int j = 0; j < BLOCK / 4; j++) {
			float32x4_t e = exp4(vsubq_f32(v[j], mh));
			vst1q_f32(&s[h][4 * j], e);
			sum = vaddq_f32(sum, e);
		}
		l[h] += vaddvq_f32(sum);
	}
}

// scaleScores multiplies each vector's scores (or weights) s [nq][BLOCK] by the rows' scales.
static void scaleScores(float s[MAXV][BLOCK], int nq, const float *sc) {
	for (int h = 0; h < nq; h++)
		for (int j = 0; j < BLOCK; j += 4)
			vst1q_f32(&s[h][j], vmulq_f32(vld1q_f32(&s[h][j]), vld1q_f32(sc + j)));
}

// prefetch asks for the values of rows [t, t+4) of the block (read next, column by column) and,
// when next, for the keys a block on.
static inline void prefetch(const float *K, const int8_t *K8, const float *V, const int8_t *V8, size_t row, int ld, int next) {
	size_t bytes = 4 * (size_t)ld * (K8 ? 1 : 4);
	const char *vp = V8 ? (const char *)(V8 + row) : (const char *)(V + row);
	const char *kp = K8 ? (const char *)(K8 + row + BLOCK * ld) : (const char *)(K + row + BLOCK * ld);
	for (size_t o = 0; o < bytes; o += 64) {
		__builtin_prefetch(vp + o, 0, 3);
		if (next)
			__builtin_prefetch(kp + o, 0, 3);
	}
}

// scoresNEON fills s [nq][n] with the vectors' dot products with the block's n key rows: two
// vectors by four rows at a time, 8 columns a step.
static void scoresNEON(const float *q, int nq, int d, int ld, const float *K, const int8_t *K8, const float *V,
                       const int8_t *V8, int n, int next, float s[MAXV][BLOCK]) {
	int t = 0;
	for (; t + 4 <= n; t += 4) {
		size_t row = (size_t)t * ld;
		prefetch(K, K8, V, V8, row, ld, next);
		for (int h = 0; h < nq; h += 2) {
			const float *q0 = q + (size_t)h * d, *q1 = h + 1 < nq ? q0 + d : q0;
			float32x4_t a[2][4];
			for (int j = 0; j < 4; j++)
				a[0][j] = a[1][j] = vdupq_n_f32(0);
			for (int c = 0; c < d; c += 8) {
				float32x4_t x0 = vld1q_f32(q0 + c), y0 = vld1q_f32(q0 + c + 4);
				float32x4_t x1 = vld1q_f32(q1 + c), y1 = vld1q_f32(q1 + c + 4);
				for (int j = 0; j < 4; j++) {
					float32x4_t lo, hi;
					load8(K, K8, row + (size_t)j * ld + c, &lo, &hi);
					a[0][j] = vfmaq_f32(vfmaq_f32(a[0][j], x0, lo), y0, hi);
					a[1][j] = vfmaq_f32(vfmaq_f32(a[1][j], x1, lo), y1, hi);
				}
			}
			for (int i = 0; i < 2 && h + i < nq; i++)
				vst1q_f32(&s[h + i][t], vpaddq_f32(vpaddq_f32(a[i][0], a[i][1]), vpaddq_f32(a[i][2], a[i][3])));
		}
	}
	for (; t < n; t++)
		for (int h = 0; h < nq; h++)
			s[h][t] = dot(q + (size_t)h * d, K ? K + (size_t)t * ld : NULL, K8 ? K8 + (size_t)t * ld : NULL, d);
}

// valuesNEON adds the n value rows weighted by s into acc: four vectors by 16 columns at a time.
static void valuesNEON(int nq, int d, int ld, const float *V, const int8_t *V8, int n, float s[MAXV][BLOCK], float *acc) {
	for (int h = 0; h < nq; h += 4) {
		int g = nq - h < 4 ? nq - h : 4;
		for (int c = 0; c < d; c += 16) {
			float32x4_t a[4][4];
			accLoad(a, acc + (size_t)h * d, g, d, c);
			for (int t = 0; t < n; t++) {
				size_t row = (size_t)t * ld + c;
				float32x4_t v[4];
				load8(V, V8, row, &v[0], &v[1]);
				load8(V, V8, row + 8, &v[2], &v[3]);
				for (int i = 0; i < 4; i++)
					if (i < g) {
						float32x4_t p = vdupq_n_f32(s[h + i][t]);
						for (int j = 0; j < 4; j++)
							a[i][j] = vfmaq_f32(a[i][j], p, v[j]);
					}
			}
			accStore(a, acc + (size_t)h * d, g, d, c);
		}
	}
}

PART(partNEON, scoresNEON, valuesNEON)

// ---- prompt tiles -----------------------------------------------------------------------------

// softmaxT turns sT's scores into weights e^(s − m) down the lanes of nz groups of 8 vectors
// (two of 4 lanes each), updating the running maxima and sums and setting c to each vector's
// rescale factor (tile.c's, on NEON).
static void softmaxT(tileState *w, int nz) {
	for (int j = 0; j < 2 * nz; j++) {
		float32x4_t mx = vdupq_n_f32(-INFINITY);
		for (int t = 0; t < BLOCK; t++)
			mx = vmaxq_f32(mx, vld1q_f32(w->sT + (size_t)t * MAXV + 4 * j));
		float32x4_t mold = vld1q_f32(w->m + 4 * j), mnew = vmaxq_f32(mold, mx);
		float32x4_t c = exp4(vsubq_f32(mold, mnew)), sum = vdupq_n_f32(0);
		vst1q_f32(w->m + 4 * j, mnew);
		vst1q_f32(w->c + 4 * j, c);
		for (int t = 0; t < BLOCK; t++) {
			float *p = w->sT + (size_t)t * MAXV + 4 * j;
			float32x4_t e = exp4(vsubq_f32(vld1q_f32(p), mnew));
			vst1q_f32(p, e);
			sum = vaddq_f32(sum, e);
		}
		vst1q_f32(w->l + 4 * j, vfmaq_f32(sum, vld1q_f32(w->l + 4 * j), c));
	}
}

// scoresT4 fills rows [0, n) of sT with the block's keys K [n][d] against QT: nz groups of 4
// vectors, two rows at a time.
static inline __attribute__((always_inline)) void scoresT4(const float *QT, int d, const float *K, int n, float *sT, int nz) {
	for (int t = 0; t < n; t += 2) {
		int two = t + 1 < n;
		const float *k0 = K + (size_t)t * d, *k1 = two ? k0 + d : k0;
		float32x4_t a[2][MAXV / 4];
		for (int j = 0; j < nz; j++)
			a[0][j] = a[1][j] = vdupq_n_f32(0);
		for (int c = 0; c < d; c++) {
			float32x4_t x0 = vdupq_n_f32(k0[c]), x1 = vdupq_n_f32(k1[c]);
			for (int j = 0; j < nz; j++) {
				float32x4_t q = vld1q_f32(QT + (size_t)c * MAXV + 4 * j);
				a[0][j] = vfmaq_f32(a[0][j], x0, q);
				a[1][j] = vfmaq_f32(a[1][j], x1, q);
			}
		}
		for (int j = 0; j < nz; j++) {
			vst1q_f32(sT + (size_t)t * MAXV + 4 * j, a[0][j]);
			if (two)
				vst1q_f32(sT + (size_t)(t + 1) * MAXV + 4 * j, a[1][j]);
		}
	}
}

// scoresT is scoresT4 on nz groups of 8 vectors (tile's lanes), its group count a constant (the
// loops unrolled, the sums in registers).
static void scoresT(const float *QT, int d, const float *K, int n, float *sT, int nz) {
	switch (nz) {
	case 1: scoresT4(QT, d, K, n, sT, 2); break;
	case 2: scoresT4(QT, d, K, n, sT, 4); break;
	case 3: scoresT4(QT, d, K, n, sT, 6); break;
	default: scoresT4(QT, d, K, n, sT, 8);
	}
}

// valuesT adds the block's n value rows weighted by sT into acc: four vectors by 16 columns.
static void valuesT(int nq, int d, const float *V, int n, const float *sT, float *acc) {
	for (int h = 0; h < nq; h += 4) {
		int g = nq - h < 4 ? nq - h : 4;
		for (int c = 0; c < d; c += 16) {
			float32x4_t a[4][4];
			accLoad(a, acc + (size_t)h * d, g, d, c);
			for (int t = 0; t < n; t++) {
				const float *row = V + (size_t)t * d + c;
				float32x4_t p = vld1q_f32(sT + (size_t)t * MAXV + h); // past nq: padding lanes, summed but not stored
				float32x4_t v[4] = {vld1q_f32(row), vld1q_f32(row + 4), vld1q_f32(row + 8), vld1q_f32(row + 12)};
				for (int j = 0; j < 4; j++) {
					a[0][j] = vfmaq_laneq_f32(a[0][j], v[j], p, 0);
					a[1][j] = vfmaq_laneq_f32(a[1][j], v[j], p, 1);
					a[2][j] = vfmaq_laneq_f32(a[2][j], v[j], p, 2);
					a[3][j] = vfmaq_laneq_f32(a[3][j], v[j], p, 3);
				}
			}
			accStore(a, acc + (size_t)h * d, g, d, c);
		}
	}
}

// convert is an int8 block as float [n][d] (tile's convertFn): a per-row cache's rows (stride
// ld > d) times their scales.
static void convert(const int8_t *b, float *f, int n, int d, int ld) {
	for (int t = 0; t < n; t++) {
		const int8_t *r = b + (size_t)t * ld;
		float32x4_t sc = vdupq_n_f32(ld != d ? rowScale(r, d) : 1);
		for (int c = 0; c < d; c += 8) {
			float32x4_t lo, hi;
			load8(NULL, r, c, &lo, &hi);
			vst1q_f32(f + (size_t)t * d + c, vmulq_f32(lo, sc));
			vst1q_f32(f + (size_t)t * d + c + 4, vmulq_f32(hi, sc));
		}
	}
}

static void tileNEON(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8,
                     const int8_t *V8, int r1, const int *lim, float *l, float *acc, float *work) {
	tile(q, nq, d, ld, K, V, K8, V8, r1, lim, l, acc, work, scoresT, valuesT, softmaxT, convert, 8);
}

// attnop_select picks the loops: NEON (1) on every Arm64 CPU; most is x86-64's cap (tests) and
// changes nothing here.
int attnop_select(int most) {
	(void)most;
	attnop_part = partNEON;
	attnop_tile = tileNEON;
	return 1;
}
