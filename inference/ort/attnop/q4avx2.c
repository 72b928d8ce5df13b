//go:build cgo && amd64 && (linux || windows)

// q4avx2.c: the int4 product's AVX2 loops (matmul.h), and the quantization of the activations
// both instruction sets use. The dot products are maddubs + madd (exact: |q| ≤ 127, w ≤ 15), or
// AVX-VNNI's vpdpbusd where the CPU has it.

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "matmul.h"

#define AVX2 __attribute__((target("avx2,fma")))
#define AVXVNNI __attribute__((target("avx2,fma,avxvnni")))
#define INLINE static inline __attribute__((always_inline))

static inline int32_t ld32(const int8_t *p) {
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

AVX2 INLINE float hmax8ps(__m256 v) {
	__m128 a = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
	a = _mm_max_ps(a, _mm_movehl_ps(a, a));
	a = _mm_max_ss(a, _mm_movehdup_ps(a));
	return _mm_cvtss_f32(a);
}

AVX2 INLINE int hsum8i(__m256i v) {
	__m128i a = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
	a = _mm_add_epi32(a, _mm_shuffle_epi32(a, _MM_SHUFFLE(1, 0, 3, 2)));
	a = _mm_add_epi32(a, _mm_shuffle_epi32(a, _MM_SHUFFLE(2, 3, 0, 1)));
	return _mm_cvtsi128_si32(a);
}

// quantBlock quantizes the 32 values x as MLAS does (scale amax/127, round-to-even(x · 127/amax)),
// writing the even elements to even [16] and the odd ones to odd [16].
AVX2 static void quantBlock(const float *x, int8_t *even, int8_t *odd, float *scale, int32_t *corr) {
	const __m256 sign = _mm256_set1_ps(-0.0f);
	__m256 v[4], mx = _mm256_setzero_ps();
	for (int i = 0; i < 4; i++) {
		v[i] = _mm256_loadu_ps(x + 8 * i);
		mx = _mm256_max_ps(mx, _mm256_andnot_ps(sign, v[i]));
	}
	float amax = hmax8ps(mx);
	*scale = amax / 127.f;
	__m256 inv = _mm256_set1_ps(amax != 0 ? 127.f / amax : 0);
	__m256i q[4], sum = _mm256_setzero_si256();
	for (int i = 0; i < 4; i++) {
		q[i] = _mm256_cvtps_epi32(_mm256_round_ps(_mm256_mul_ps(v[i], inv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
		sum = _mm256_add_epi32(sum, q[i]);
	}
	// packs works within 128-bit lanes: dwords of p are q0[0:4] q1[0:4] q2[0:4] q3[0:4] q0[4:8] ...
	__m256i p = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
	p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)); // x's order
	const __m256i eo = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12,
	                                    14, 1, 3, 5, 7, 9, 11, 13, 15);
	p = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(p, eo), _MM_SHUFFLE(3, 1, 2, 0));
	_mm_storeu_si128((__m128i *)even, _mm256_castsi256_si128(p));
	_mm_storeu_si128((__m128i *)odd, _mm256_extracti128_si256(p, 1));
	*corr = -8 * hsum8i(sum);
}

void q4_quant(q4Run *r, int m0, int m1) {
	for (int m = m0; m < m1; m++) {
		const float *x = r->A + (size_t)m * r->K;
		int8_t *q = r->qa + (size_t)m * r->stride;
		float *sa = r->sa + (size_t)m * r->nb;
		int32_t *corr = r->corr + (size_t)m * r->nb, *init = r->init ? r->init + (size_t)m * (r->stride / 8) : NULL;
		for (int b = 0; b < r->nb; b++) {
			size_t even = (size_t)32 * b, odd = even + 16;
			if (r->layout == Q4_GROUPS)
				even = (size_t)(b / 4) * 128 + (b % 4) * 16, odd = even + 64;
			quantBlock(x + 32 * b, q + even, q + odd, sa + b, corr + b);
		}
		if (r->layout == Q4_GROUPS)
			for (int b = 0; b < r->nb; b++) {
				init[4 * b] = corr[b], init[4 * b + 1] = init[4 * b + 2] = init[4 * b + 3] = 0;
			}
	}
}

// ---- the many-row product ----------------------------------------------------------------------

// unpack8 unpacks the blocks at blk[0..7] (8 columns' block b) into dwords w[d·Q4_PANEL + c]:
// a 4×4 dword transpose in each 128-bit lane (lane L holds columns 4L + i).
AVX2 static void unpack8(const uint8_t *const blk[8], int32_t *w) {
	const __m256i m4 = _mm256_set1_epi8(0x0F);
	__m256i lo[4], hi[4];
	for (int i = 0; i < 4; i++) {
		__m256i z = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)blk[i])),
		                                    _mm_loadu_si128((const __m128i *)blk[4 + i]), 1);
		lo[i] = _mm256_and_si256(z, m4);
		hi[i] = _mm256_and_si256(_mm256_srli_epi16(z, 4), m4);
	}
	for (int h = 0; h < 2; h++) {
		__m256i *x = h ? hi : lo;
		__m256i t0 = _mm256_unpacklo_epi32(x[0], x[1]), t1 = _mm256_unpackhi_epi32(x[0], x[1]);
		__m256i t2 = _mm256_unpacklo_epi32(x[2], x[3]), t3 = _mm256_unpackhi_epi32(x[2], x[3]);
		int32_t *o = w + 4 * h * Q4_PANEL;
		_mm256_storeu_si256((__m256i *)o, _mm256_unpacklo_epi64(t0, t2));
		_mm256_storeu_si256((__m256i *)(o + Q4_PANEL), _mm256_unpackhi_epi64(t0, t2));
		_mm256_storeu_si256((__m256i *)(o + 2 * Q4_PANEL), _mm256_unpacklo_epi64(t1, t3));
		_mm256_storeu_si256((__m256i *)(o + 3 * Q4_PANEL), _mm256_unpackhi_epi64(t1, t3));
	}
}

const uint8_t q4_zero[16];

void q4_blocks(const q4Run *r, int n0, int b, const uint8_t **blk, uint8_t tmp[Q4_PANEL][16]) {
	for (int c = 0; c < Q4_PANEL; c++) {
		int n = n0 + c;
		blk[c] = n < r->N ? q4_block(r, n, b, tmp[c]) : q4_zero;
	}
}

void q4_scales(const q4Run *r, int n0, float *ps) {
	for (int c = 0; c < Q4_PANEL; c++) {
		int n = n0 + c;
		for (int b = 0; b < r->nb; b++)
			ps[(size_t)b * Q4_PANEL + c] = n < r->N ? r->S[q4_scale(r, n, b)] : 0;
	}
}

void *q4_panel(const q4Run *r, int32_t **w, float **ps) {
	size_t words = (size_t)r->nb * 8 * Q4_PANEL;
	char *buf = malloc(sizeof(int32_t) * words + sizeof(float) * (size_t)r->nb * Q4_PANEL + 64);
	if (!buf)
		return NULL;
	char *al = buf + (64 - (uintptr_t)buf % 64);
	*w = (int32_t *)al, *ps = (float *)(al + sizeof(int32_t) * words);
	return buf;
}

AVX2 static void unpackPanel(const q4Run *r, int n0, int32_t *w, float *ps) {
	q4_scales(r, n0, ps);
	for (int b = 0; b < r->nb; b++) {
		const uint8_t *blk[Q4_PANEL];
		uint8_t tmp[Q4_PANEL][16];
		q4_blocks(r, n0, b, blk, tmp);
		for (int g = 0; g < Q4_PANEL / 8; g++)
			unpack8(blk + 8 * g, w + (size_t)b * 8 * Q4_PANEL + 8 * g);
	}
}

// TILE2 is a tile of R ≤ 4 rows from m0 × 8 columns (8g to 8g+7 of the panel), written to out.
#define TILE2(NAME, TARGET, DOT)                                                                          \
	TARGET INLINE void NAME(const q4Run *r, const int32_t *pw, const float *ps, int m0, int R, int g,   \
	                        float out[4][Q4_PANEL]) {                                                  \
		__m256 f[4];                                                                               \
		for (int i = 0; i < R; i++)                                                                \
			f[i] = _mm256_setzero_ps();                                                        \
		const int8_t *a = r->qa + (size_t)m0 * r->stride;                                          \
		for (int b = 0; b < r->nb; b++) {                                                          \
			__m256i acc[4];                                                                    \
			for (int i = 0; i < R; i++)                                                        \
				acc[i] = _mm256_set1_epi32(r->corr[(size_t)(m0 + i) * r->nb + b]);         \
			const int32_t *w = pw + (size_t)b * 8 * Q4_PANEL + 8 * g;                          \
			for (int d = 0; d < 8; d++) {                                                      \
				__m256i wv = _mm256_loadu_si256((const __m256i *)(w + d * Q4_PANEL));      \
				for (int i = 0; i < R; i++)                                                \
					acc[i] = DOT(acc[i], wv,                                           \
					             _mm256_set1_epi32(ld32(a + i * r->stride + 32 * b + 4 * d))); \
			}                                                                                  \
			__m256 s = _mm256_loadu_ps(ps + (size_t)b * Q4_PANEL + 8 * g);                     \
			for (int i = 0; i < R; i++)                                                        \
				f[i] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc[i]), s),          \
				                       _mm256_set1_ps(r->sa[(size_t)(m0 + i) * r->nb + b]), f[i]); \
		}                                                                                          \
		for (int i = 0; i < R; i++)                                                                \
			_mm256_storeu_ps(out[i] + 8 * g, f[i]);                                            \
	}

AVX2 INLINE __m256i dotMadd(__m256i acc, __m256i w, __m256i a) {
	return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w, a), _mm256_set1_epi16(1)));
}
AVXVNNI INLINE __m256i dotVNNI(__m256i acc, __m256i w, __m256i a) { return _mm256_dpbusd_avx_epi32(acc, w, a); }

TILE2(tileMadd, AVX2, dotMadd)
TILE2(tileVNNI, AVXVNNI, dotVNNI)

// PANEL2 is the panel item of the AVX2 loops of tile TILE.
#define PANEL2(NAME, TARGET, TILE)                                                                        \
	TARGET static void NAME(q4Run *r, int p) {                                                         \
		int32_t *w;                                                                                \
		float *ps;                                                                                 \
		void *buf = q4_panel(r, &w, &ps);                                                            \
		if (!buf) {                                                                                \
			r->nomem = 1;                                                                      \
			return;                                                                            \
		}                                                                                          \
		int n0 = p * Q4_PANEL, nc = r->N - n0 < Q4_PANEL ? r->N - n0 : Q4_PANEL;                   \
		unpackPanel(r, n0, w, ps);                                                                 \
		for (int m0 = 0; m0 < r->M; m0 += 4) {                                                     \
			int R = r->M - m0 < 4 ? r->M - m0 : 4;                                             \
			float out[4][Q4_PANEL];                                                            \
			for (int g = 0; g < Q4_PANEL / 8 && 8 * g < nc; g++)                               \
				switch (R) {                                                               \
				case 4: TILE(r, w, ps, m0, 4, g, out); break;                              \
				case 3: TILE(r, w, ps, m0, 3, g, out); break;                              \
				case 2: TILE(r, w, ps, m0, 2, g, out); break;                              \
				default: TILE(r, w, ps, m0, 1, g, out);                                    \
				}                                                                          \
			for (int i = 0; i < R; i++)                                                        \
				q4_store(out[i], nc, r->bias ? r->bias + n0 : NULL, r->Y + (size_t)(m0 + i) * r->N + n0); \
		}                                                                                          \
		free(buf);                                                                                 \
	}

PANEL2(panelMadd, AVX2, tileMadd)
PANEL2(panelVNNI, AVXVNNI, tileVNNI)

// ---- the one-row product -----------------------------------------------------------------------

// GEMV2 computes columns [n0, n1) of row m (layout Q4_ROWS), four columns at a time (the
// last ones computed again where fewer are left), each block's weights unpacked as they stream.
#define GEMV2(NAME, TARGET, DOT)                                                                          \
	TARGET static void NAME(q4Run *r, int m, int n0, int n1) {                                         \
		const __m128i m4 = _mm_set1_epi8(0x0F);                                                    \
		const int nb = r->nb;                                                                      \
		const int8_t *qa = r->qa + (size_t)m * r->stride;                                          \
		const float *sa = r->sa + (size_t)m * nb;                                                  \
		const int32_t *corr = r->corr + (size_t)m * nb;                                            \
		float *y = r->Y + (size_t)m * r->N;                                                        \
		for (int n = n0; n < n1; n += 4) {                                                         \
			const uint8_t *w[4];                                                               \
			const float *s[4];                                                                 \
			__m256 f[4];                                                                       \
			for (int c = 0; c < 4; c++) {                                                      \
				int cn = n + c < n1 ? n + c : n1 - 1;                                      \
				w[c] = r->B + (size_t)cn * nb * 16, s[c] = r->S + (size_t)cn * nb;         \
				f[c] = _mm256_setzero_ps();                                                \
			}                                                                                  \
			for (int b = 0; b < nb; b++) {                                                     \
				__m256i a = _mm256_loadu_si256((const __m256i *)(qa + 32 * b));            \
				__m256i init = _mm256_castsi128_si256(_mm_cvtsi32_si128(corr[b]));         \
				for (int c = 0; c < 4; c++) {                                              \
					__m128i x = _mm_loadu_si128((const __m128i *)(w[c] + 16 * b));     \
					__m256i wv = _mm256_inserti128_si256(                              \
					    _mm256_castsi128_si256(_mm_and_si128(x, m4)),                  \
					    _mm_and_si128(_mm_srli_epi16(x, 4), m4), 1);                   \
					__m256i dot = DOT(init, wv, a);                                    \
					f[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot),                    \
					                       _mm256_set1_ps(sa[b] * s[c][b]), f[c]);     \
				}                                                                          \
			}                                                                                  \
			for (int c = 0; c < 4 && n + c < n1; c++) {                                        \
				__m128 h = _mm_add_ps(_mm256_castps256_ps128(f[c]), _mm256_extractf128_ps(f[c], 1)); \
				h = _mm_add_ps(h, _mm_movehl_ps(h, h));                                    \
				h = _mm_add_ss(h, _mm_movehdup_ps(h));                                     \
				float v = _mm_cvtss_f32(h);                                                \
				y[n + c] = r->bias ? v + r->bias[n + c] : v;                               \
			}                                                                                  \
		}                                                                                          \
	}

GEMV2(gemvMadd, AVX2, dotMadd)
GEMV2(gemvVNNI, AVXVNNI, dotVNNI)

// GEMV16 is gemv over weights in Q4_W_COLS16 (n0, n1 multiples of Q4_W16): a panel's 16 columns
// as two halves of 8 a ymm, the low nibbles' and the high nibbles' sums apart (four independent
// sums), B and the scales read front to back.
#define GEMV16(NAME, TARGET, DOT)                                                                         \
	TARGET static void NAME(q4Run *r, int m, int n0, int n1) {                                         \
		const __m256i m4 = _mm256_set1_epi8(0x0F);                                                 \
		const int nb = r->nb;                                                                      \
		const int8_t *qa = r->qa + (size_t)m * r->stride;                                          \
		const float *sa = r->sa + (size_t)m * nb;                                                  \
		const int32_t *corr = r->corr + (size_t)m * nb;                                            \
		for (int n = n0; n < n1; n += Q4_W16) {                                                    \
			const uint8_t *w = r->B + (size_t)(n / Q4_W16) * nb * 16 * Q4_W16;                 \
			const float *s = r->S + (size_t)(n / Q4_W16) * nb * Q4_W16;                        \
			__m256 f0 = _mm256_setzero_ps(), f1 = _mm256_setzero_ps();                         \
			for (int b = 0; b < nb; b++, w += 16 * Q4_W16) {                                   \
				_mm_prefetch((const char *)w + 2048, _MM_HINT_T0);                         \
				_mm_prefetch((const char *)w + 2048 + 64, _MM_HINT_T0);                    \
				_mm_prefetch((const char *)w + 2048 + 128, _MM_HINT_T0);                   \
				_mm_prefetch((const char *)w + 2048 + 192, _MM_HINT_T0);                   \
				__m256i c = _mm256_set1_epi32(corr[b]);                                    \
				__m256i e0 = c, e1 = c, o0 = _mm256_setzero_si256(), o1 = o0;             \
				for (int k = 0; k < 4; k++) {                                              \
					__m256i ae = _mm256_set1_epi32(ld32(qa + 32 * b + 4 * k));         \
					__m256i ao = _mm256_set1_epi32(ld32(qa + 32 * b + 16 + 4 * k));    \
					__m256i x0 = _mm256_loadu_si256((const __m256i *)(w + 64 * k));    \
					__m256i x1 = _mm256_loadu_si256((const __m256i *)(w + 64 * k + 32)); \
					e0 = DOT(e0, _mm256_and_si256(x0, m4), ae);                        \
					o0 = DOT(o0, _mm256_and_si256(_mm256_srli_epi16(x0, 4), m4), ao);  \
					e1 = DOT(e1, _mm256_and_si256(x1, m4), ae);                        \
					o1 = DOT(o1, _mm256_and_si256(_mm256_srli_epi16(x1, 4), m4), ao);  \
				}                                                                          \
				__m256 a = _mm256_set1_ps(sa[b]);                                          \
				f0 = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(e0, o0)), \
				                                   _mm256_loadu_ps(s + 16 * b)), a, f0);    \
				f1 = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(e1, o1)), \
				                                   _mm256_loadu_ps(s + 16 * b + 8)), a, f1); \
			}                                                                                  \
			float *y = r->Y + (size_t)m * r->N + n;                                            \
			if (r->bias) {                                                                     \
				f0 = _mm256_add_ps(f0, _mm256_loadu_ps(r->bias + n));                      \
				f1 = _mm256_add_ps(f1, _mm256_loadu_ps(r->bias + n + 8));                  \
			}                                                                                  \
			_mm256_storeu_ps(y, f0);                                                           \
			_mm256_storeu_ps(y + 8, f1);                                                       \
		}                                                                                          \
	}

GEMV16(gemv16Madd, AVX2, dotMadd)
GEMV16(gemv16VNNI, AVXVNNI, dotVNNI)

const q4Kernels q4_avx2 = {.panel = panelMadd, .gemv = gemvMadd, .layout = Q4_ROWS, .gemv16 = gemv16Madd};
const q4Kernels q4_avxvnni = {.panel = panelVNNI, .gemv = gemvVNNI, .layout = Q4_ROWS, .gemv16 = gemv16VNNI};
