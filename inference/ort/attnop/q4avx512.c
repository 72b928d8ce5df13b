//go:build cgo && amd64 && (linux || windows)

// q4avx512.c: the int4 product's AVX-512 VNNI loops (matmul.h), and the choice of loops.
//
// Many rows: a panel of 32 columns is unpacked once (matmul.h) and every tile of 6 rows runs
// over it: 12 zmm of int32 sums (6 rows × 32 columns) for a block, 12 of float sums, vpdpbusd
// with the block's unpacked weights as the unsigned operand and a broadcast dword of the row's
// quantized activations as the signed one. Up to Q4_GEMV_ROWS rows: the weights stream straight
// from B, 4 blocks (64 bytes) of a column a step (Q4_GROUPS layout), as kernbench's q4.c did.

#include <cpuid.h>
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "matmul.h"

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vnni,avx512dq,avx2,fma")))
#define INLINE static inline __attribute__((always_inline))
#define ROWS 6 // rows of a many-row tile

static inline int32_t ld32(const int8_t *p) {
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

// unpack16 unpacks the blocks at blk[0..15] (16 columns' block b) into dwords w[d·Q4_PANEL + c]:
// a 4×4 dword transpose in each 128-bit lane, lane L holding columns 4L + i.
AVX512 static void unpack16(const uint8_t *const blk[16], int32_t *w) {
	const __m512i m4 = _mm512_set1_epi8(0x0F);
	__m512i lo[4], hi[4];
	for (int i = 0; i < 4; i++) {
		__m512i z = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)blk[i]));
		z = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)blk[4 + i]), 1);
		z = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)blk[8 + i]), 2);
		z = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)blk[12 + i]), 3);
		lo[i] = _mm512_and_si512(z, m4);
		hi[i] = _mm512_and_si512(_mm512_srli_epi16(z, 4), m4);
	}
	for (int h = 0; h < 2; h++) {
		__m512i *x = h ? hi : lo;
		__m512i t0 = _mm512_unpacklo_epi32(x[0], x[1]), t1 = _mm512_unpackhi_epi32(x[0], x[1]);
		__m512i t2 = _mm512_unpacklo_epi32(x[2], x[3]), t3 = _mm512_unpackhi_epi32(x[2], x[3]);
		int32_t *o = w + 4 * h * Q4_PANEL;
		_mm512_storeu_si512(o, _mm512_unpacklo_epi64(t0, t2));
		_mm512_storeu_si512(o + Q4_PANEL, _mm512_unpackhi_epi64(t0, t2));
		_mm512_storeu_si512(o + 2 * Q4_PANEL, _mm512_unpacklo_epi64(t1, t3));
		_mm512_storeu_si512(o + 3 * Q4_PANEL, _mm512_unpackhi_epi64(t1, t3));
	}
}

// unpackCols16 is unpack16 over the panel of columns from n0 for weights in Q4_W_COLS16, whose
// blocks are already in its order: dword k of a layout-1 panel's block holds its 16 columns'
// dwords k side by side, so each 64-byte load gives w's rows k (low nibbles) and 4 + k (high)
// for 16 columns, with no gather (q4_block's byte-by-byte one made prompts 1.1x slower).
// Columns past N (the panel's second half when N - n0 is 16) are zeros, as q4_zero unpacks.
AVX512 static void unpackCols16(const q4Run *r, int n0, int32_t *w) {
	const __m512i m4 = _mm512_set1_epi8(0x0F);
	for (int h = 0; h < Q4_PANEL / Q4_W16; h++) {
		int n = n0 + Q4_W16 * h;
		for (int b = 0; b < r->nb; b++) {
			int32_t *o = w + (size_t)b * 8 * Q4_PANEL + Q4_W16 * h;
			if (n >= r->N) {
				for (int d = 0; d < 8; d++)
					_mm512_storeu_si512(o + (size_t)d * Q4_PANEL, _mm512_setzero_si512());
				continue;
			}
			const uint8_t *p = r->B + ((size_t)(n / Q4_W16) * r->nb + b) * 16 * Q4_W16;
			for (int k = 0; k < 4; k++) {
				__m512i z = _mm512_loadu_si512(p + 64 * k);
				_mm512_storeu_si512(o + (size_t)k * Q4_PANEL, _mm512_and_si512(z, m4));
				_mm512_storeu_si512(o + (size_t)(4 + k) * Q4_PANEL, _mm512_and_si512(_mm512_srli_epi16(z, 4), m4));
			}
		}
	}
}

// tile runs R ≤ ROWS rows from m0 over the panel (pw, ps), writing out [R][Q4_PANEL].
AVX512 INLINE void tile(const q4Run *r, const int32_t *pw, const float *ps, int m0, int R, float out[ROWS][Q4_PANEL]) {
	__m512 f0[ROWS], f1[ROWS];
	for (int i = 0; i < R; i++)
		f0[i] = f1[i] = _mm512_setzero_ps();
	const int8_t *a = r->qa + (size_t)m0 * r->stride;
	const float *sa = r->sa + (size_t)m0 * r->nb;
	const int32_t *corr = r->corr + (size_t)m0 * r->nb;
	for (int b = 0; b < r->nb; b++) {
		__m512i i0[ROWS], i1[ROWS];
		for (int i = 0; i < R; i++)
			i0[i] = i1[i] = _mm512_set1_epi32(corr[(size_t)i * r->nb + b]);
		const int32_t *w = pw + (size_t)b * 8 * Q4_PANEL;
		for (int d = 0; d < 8; d++) {
			__m512i w0 = _mm512_load_si512(w + d * Q4_PANEL), w1 = _mm512_load_si512(w + d * Q4_PANEL + 16);
			for (int i = 0; i < R; i++) {
				__m512i x = _mm512_set1_epi32(ld32(a + i * r->stride + 32 * b + 4 * d));
				i0[i] = _mm512_dpbusd_epi32(i0[i], w0, x);
				i1[i] = _mm512_dpbusd_epi32(i1[i], w1, x);
			}
		}
		__m512 s0 = _mm512_load_ps(ps + (size_t)b * Q4_PANEL), s1 = _mm512_load_ps(ps + (size_t)b * Q4_PANEL + 16);
		for (int i = 0; i < R; i++) {
			__m512 x = _mm512_set1_ps(sa[(size_t)i * r->nb + b]);
			f0[i] = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(i0[i]), s0), x, f0[i]);
			f1[i] = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(i1[i]), s1), x, f1[i]);
		}
	}
	for (int i = 0; i < R; i++) {
		_mm512_storeu_ps(out[i], f0[i]);
		_mm512_storeu_ps(out[i] + 16, f1[i]);
	}
}

AVX512 static void panel(q4Run *r, int p) {
	int32_t *w;
	float *ps;
	void *buf = q4_panel(r, &w, &ps);
	if (!buf) {
		r->nomem = 1;
		return;
	}
	int n0 = p * Q4_PANEL, nc = r->N - n0 < Q4_PANEL ? r->N - n0 : Q4_PANEL;
	q4_scales(r, n0, ps);
	if (r->wlayout == Q4_W_COLS16)
		unpackCols16(r, n0, w);
	else
		for (int b = 0; b < r->nb; b++) {
			const uint8_t *blk[Q4_PANEL];
			uint8_t tmp[Q4_PANEL][16];
			q4_blocks(r, n0, b, blk, tmp);
			unpack16(blk, w + (size_t)b * 8 * Q4_PANEL);
			unpack16(blk + 16, w + (size_t)b * 8 * Q4_PANEL + 16);
		}
	for (int m0 = 0; m0 < r->M; m0 += ROWS) {
		int R = r->M - m0 < ROWS ? r->M - m0 : ROWS;
		float out[ROWS][Q4_PANEL];
		switch (R) {
		case 6: tile(r, w, ps, m0, 6, out); break;
		case 5: tile(r, w, ps, m0, 5, out); break;
		case 4: tile(r, w, ps, m0, 4, out); break;
		case 3: tile(r, w, ps, m0, 3, out); break;
		case 2: tile(r, w, ps, m0, 2, out); break;
		default: tile(r, w, ps, m0, 1, out);
		}
		for (int i = 0; i < R; i++)
			q4_store(out[i], nc, r->bias ? r->bias + n0 : NULL, r->Y + (size_t)(m0 + i) * r->N + n0);
	}
	free(buf);
}

#ifndef PF
#define PF 16 // columns ahead the one-row loop prefetches
#endif
#ifndef GCOLS
#define GCOLS 8 // columns the one-row loop runs together
#endif

// gemvGroups runs column pointers w, s over blocks [16j, 16j + 16) (all of them there), adding
// to f: a 64-byte load holds 4 blocks of a column, its low nibbles meeting the blocks' even
// activations, its high nibbles the odd ones; block i's sum is in lanes 4i to 4i+3.
AVX512 INLINE void gemvGroups(const q4Run *r, int m, const uint8_t *const w[GCOLS], const float *const s[GCOLS], int j,
                              int left, __m512 f[GCOLS]) {
	const int8_t *qa = r->qa + (size_t)m * r->stride;
	const int32_t *in0 = r->init + (size_t)m * (r->stride / 8);
	const __m512i m4 = _mm512_set1_epi8(0x0F);
	const size_t ahead = PF * (size_t)r->nb * 16;
	__mmask16 sm = left >= 16 ? 0xFFFF : (__mmask16)((1u << left) - 1);
	__m512 sc[GCOLS];
	__m512 da = _mm512_maskz_loadu_ps(sm, r->sa + (size_t)m * r->nb + 16 * j);
	for (int c = 0; c < GCOLS; c++)
		sc[c] = _mm512_mul_ps(_mm512_maskz_loadu_ps(sm, s[c] + 16 * j), da);
	for (int g = 0; g < 4 && 4 * g < left; g++) {
		int b = 16 * j + 4 * g, in = left - 4 * g;
		__mmask64 wm = in >= 4 ? ~0ULL : (1ULL << (16 * in)) - 1;
		__m512i ae = _mm512_loadu_si512(qa + 32 * b), ao = _mm512_loadu_si512(qa + 32 * b + 64);
		__m512i init = _mm512_loadu_si512(in0 + 4 * b);
		__m512i idx = _mm512_set_epi32(4 * g + 3, 4 * g + 3, 4 * g + 3, 4 * g + 3, 4 * g + 2, 4 * g + 2, 4 * g + 2, 4 * g + 2,
		                               4 * g + 1, 4 * g + 1, 4 * g + 1, 4 * g + 1, 4 * g, 4 * g, 4 * g, 4 * g);
		for (int c = 0; c < GCOLS; c++) {
			_mm_prefetch((const char *)(w[c] + 16 * b + ahead), _MM_HINT_T0);
			__m512i x = _mm512_maskz_loadu_epi8(wm, w[c] + 16 * b);
			__m512i lo = _mm512_and_si512(x, m4), hi = _mm512_and_si512(_mm512_srli_epi16(x, 4), m4);
			__m512i dot = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(init, lo, ae), hi, ao);
			f[c] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_permutexvar_ps(idx, sc[c]), f[c]);
		}
	}
}

// gemv computes columns [n0, n1) of row m, GCOLS at a time (the last again where fewer are
// left).
AVX512 static void gemv(q4Run *r, int m, int n0, int n1) {
	const int nb = r->nb;
	for (int n = n0; n < n1; n += GCOLS) {
		const uint8_t *w[GCOLS];
		const float *s[GCOLS];
		__m512 f[GCOLS];
		for (int c = 0; c < GCOLS; c++) {
			int cn = n + c < n1 ? n + c : n1 - 1;
			w[c] = r->B + (size_t)cn * nb * 16, s[c] = r->S + (size_t)cn * nb;
			f[c] = _mm512_setzero_ps();
		}
		int j = 0;
		for (; 16 * j + 16 <= nb; j++)
			gemvGroups(r, m, w, s, j, 16, f);
		if (16 * j < nb)
			gemvGroups(r, m, w, s, j, nb - 16 * j, f);
		for (int c = 0; c < GCOLS && n + c < n1; c++) {
			float v = _mm512_reduce_add_ps(f[c]);
			r->Y[(size_t)m * r->N + n + c] = r->bias ? v + r->bias[n + c] : v;
		}
	}
}

#ifndef PF16
#define PF16 2048 // bytes ahead the Q4_W_COLS16 one-row loop prefetches
#endif

// cols16 adds block b of the panel at w (Q4_W_COLS16, 256 bytes) times row qa's block b to the
// int32 sums lo (low nibbles) and hi (high nibbles, left at 16 times their values: one AND, no
// shift, and the sum stays exact, |Σ| ≤ 32 · 127 · 240).
AVX512 INLINE void cols16(const uint8_t *w, const int8_t *qa, int b, __m512i *lo, __m512i *hi) {
	const __m512i m4 = _mm512_set1_epi8(0x0F), m4h = _mm512_set1_epi8((char)0xF0);
	if (PF16) {
		_mm_prefetch((const char *)w + PF16, _MM_HINT_T0);
		_mm_prefetch((const char *)w + PF16 + 64, _MM_HINT_T0);
		_mm_prefetch((const char *)w + PF16 + 128, _MM_HINT_T0);
		_mm_prefetch((const char *)w + PF16 + 192, _MM_HINT_T0);
	}
	for (int k = 0; k < 4; k++) {
		__m512i x = _mm512_loadu_si512(w + 64 * k); // the file's bytes: 64-byte alignment is not promised
		*lo = _mm512_dpbusd_epi32(*lo, _mm512_and_si512(x, m4), _mm512_set1_epi32(ld32(qa + 32 * b + 4 * k)));
		*hi = _mm512_dpbusd_epi32(*hi, _mm512_and_si512(x, m4h), _mm512_set1_epi32(ld32(qa + 32 * b + 16 + 4 * k)));
	}
}

// gemv16 is gemv over weights in Q4_W_COLS16: a panel of 16 columns a zmm, two blocks a step
// (four independent sums), B and the scales read front to back.
AVX512 static void gemv16(q4Run *r, int m, int n0, int n1) {
	const int nb = r->nb;
	const int8_t *qa = r->qa + (size_t)m * r->stride;
	const float *sa = r->sa + (size_t)m * nb;
	const int32_t *corr = r->corr + (size_t)m * nb;
	for (int n = n0; n < n1; n += Q4_W16) {
		const uint8_t *w = r->B + (size_t)(n / Q4_W16) * nb * 16 * Q4_W16;
		const float *s = r->S + (size_t)(n / Q4_W16) * nb * Q4_W16;
		__m512 f0 = _mm512_setzero_ps(), f1 = _mm512_setzero_ps();
		int b = 0;
		for (; b + 2 <= nb; b += 2) {
			__m512i l0 = _mm512_set1_epi32(corr[b]), h0 = _mm512_setzero_si512();
			__m512i l1 = _mm512_set1_epi32(corr[b + 1]), h1 = _mm512_setzero_si512();
			cols16(w + 256 * (size_t)b, qa, b, &l0, &h0);
			cols16(w + 256 * (size_t)(b + 1), qa, b + 1, &l1, &h1);
			l0 = _mm512_add_epi32(l0, _mm512_srai_epi32(h0, 4));
			l1 = _mm512_add_epi32(l1, _mm512_srai_epi32(h1, 4));
			f0 = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(l0), _mm512_loadu_ps(s + 16 * b)), _mm512_set1_ps(sa[b]), f0);
			f1 = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(l1), _mm512_loadu_ps(s + 16 * b + 16)), _mm512_set1_ps(sa[b + 1]), f1);
		}
		if (b < nb) {
			__m512i l0 = _mm512_set1_epi32(corr[b]), h0 = _mm512_setzero_si512();
			cols16(w + 256 * (size_t)b, qa, b, &l0, &h0);
			l0 = _mm512_add_epi32(l0, _mm512_srai_epi32(h0, 4));
			f0 = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(l0), _mm512_loadu_ps(s + 16 * b)), _mm512_set1_ps(sa[b]), f0);
		}
		__m512 v = _mm512_add_ps(f0, f1);
		if (r->bias)
			v = _mm512_add_ps(v, _mm512_loadu_ps(r->bias + n));
		_mm512_storeu_ps(r->Y + (size_t)m * r->N + n, v);
	}
}

const q4Kernels q4_avx512 = {.panel = panel, .gemv = gemv, .layout = Q4_GROUPS, .gemv16 = gemv16};

const q4Kernels *q4_kernels;

// vnni reports from CPUID whether the CPU has AVX-512 F, BW, DQ and VNNI with the OS saving
// the zmm registers, and AVX-VNNI with AVX2 and FMA and the OS saving the ymm registers.
static void vnni(int *avx512, int *avx) {
	unsigned a, b, c, d, lo, hi;
	*avx512 = *avx = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)) || !(c & (1u << 12)))
		return; // no OSXSAVE or no FMA
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 6) != 6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 5)))
		return; // no AVX state or no AVX2
	*avx512 = (lo & 0xe0) == 0xe0 && (b & (1u << 16)) && (b & (1u << 30)) && (b & (1u << 17)) && (c & (1u << 11));
	if (__get_cpuid_count(7, 1, &a, &b, &c, &d))
		*avx = (a & (1u << 4)) != 0;
}

int q4_use(int which) {
	int v512, vavx;
	vnni(&v512, &vavx);
	const q4Kernels *k[3] = {&q4_avx2, vavx ? &q4_avxvnni : NULL, v512 ? &q4_avx512 : NULL};
	if (which < 0 || which > 2 || !k[which] || !q4_kernels)
		return 0;
	q4_kernels = k[which];
	return 1;
}

int q4_select(int isa) {
	int v512, vavx;
	vnni(&v512, &vavx);
	if (isa == 2 && v512) {
		q4_kernels = &q4_avx512;
		return 2;
	}
	if (isa >= 1) {
		q4_kernels = vavx ? &q4_avxvnni : &q4_avx2;
		return 1;
	}
	q4_kernels = NULL;
	return 0;
}
