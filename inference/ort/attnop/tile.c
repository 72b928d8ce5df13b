//go:build cgo && amd64 && (linux || windows)

// tile.c: the prompt path's loops. An item is a tile of prompt rows of one KV head: its query
// vectors (the tile's rows × the group's heads, up to MAXT), in parts of MAXV, are transposed once
// into QT [d][MAXV],
// so that a block's scores come out as sT [BLOCK rows][MAXV vectors] with the vectors in vector
// lanes: one key element broadcast against the query column of every vector, no horizontal sums.
// Each cached row is read once a tile, for all its vectors; the online softmax runs down the
// lanes; the values are summed as in attn.c (four vectors by 16 or 64 columns at a time). Rows
// are masked per vector (row i of the tile sees the cache up to past + i). An int8 cache's blocks
// are converted to float once a block (a per-row cache's rows times their scales).

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernel.h"
#include "simd.h"

#define ALWAYS inline __attribute__((always_inline))

// tileState is one part's (MAXV vectors') share of an item's work buffer.
typedef struct {
	float *QT; // [d][MAXV]
	float *sT; // [BLOCK][MAXV]
	float *m, *l, *c; // [MAXV]: running maxima, sums, the block's rescale factors
} tileState;

// tileLayout lays out part p's state in the work buffer of TILE_WORK(d) floats, whose last
// 2·BLOCK·d floats hold an int8 block converted (kf, vf).
static tileState tileLayout(float *w, int d, int p) {
	tileState t = {.QT = w + (size_t)p * ((size_t)d * MAXV + BLOCK * MAXV + 3 * MAXV)};
	t.sT = t.QT + (size_t)d * MAXV;
	t.m = t.sT + BLOCK * MAXV, t.l = t.m + MAXV, t.c = t.l + MAXV;
	return t;
}

// maskT sets sT's entries of rows b0+t at or past each vector's end to -inf, and rows n to BLOCK.
static void maskT(float *sT, int nq, int b0, int n, const int *lim, int minLim) {
	for (int t = 0; t < BLOCK; t++) {
		float *row = sT + (size_t)t * MAXV;
		if (t >= n) {
			for (int v = 0; v < MAXV; v++)
				row[v] = -INFINITY;
		} else if (b0 + t >= minLim) {
			for (int v = 0; v < nq; v++)
				if (b0 + t >= lim[v])
					row[v] = -INFINITY;
		}
	}
}

// softmaxT turns sT's scores into weights e^(s − m) down the lanes of nz groups of 8 vectors,
// updating the running maxima and sums and setting c to each vector's rescale factor.
AVX2 static void softmaxT(tileState *w, int nz) {
	for (int j = 0; j < nz; j++) {
		__m256 mx = _mm256_set1_ps(-INFINITY);
		for (int t = 0; t < BLOCK; t++)
			mx = _mm256_max_ps(mx, _mm256_loadu_ps(w->sT + (size_t)t * MAXV + 8 * j));
		__m256 mold = _mm256_loadu_ps(w->m + 8 * j), mnew = _mm256_max_ps(mold, mx);
		__m256 c = exp8(_mm256_sub_ps(mold, mnew)), sum = _mm256_setzero_ps();
		_mm256_storeu_ps(w->m + 8 * j, mnew);
		_mm256_storeu_ps(w->c + 8 * j, c);
		for (int t = 0; t < BLOCK; t++) {
			float *p = w->sT + (size_t)t * MAXV + 8 * j;
			__m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(p), mnew));
			_mm256_storeu_ps(p, e);
			sum = _mm256_add_ps(sum, e);
		}
		_mm256_storeu_ps(w->l + 8 * j, _mm256_fmadd_ps(_mm256_loadu_ps(w->l + 8 * j), c, sum));
	}
}

// rescale multiplies each vector's accumulator by its factor c (1 when its maximum held).
static void rescale(const tileState *w, int nq, int d, float *acc) {
	for (int v = 0; v < nq; v++)
		if (w->c[v] != 1) {
			float c = w->c[v], *a = acc + (size_t)v * d;
			for (int i = 0; i < d; i++)
				a[i] *= c;
		}
}

// scoresT8 fills rows [0, n) of sT with the block's keys K [n][d] against QT: nz groups of 8
// vectors, two rows at a time (AVX2).
AVX2 static ALWAYS void scoresT8(const float *QT, int d, const float *K, int n, float *sT, int nz) {
	int t = 0;
	for (; t < n; t += 2) {
		int two = t + 1 < n;
		const float *k0 = K + (size_t)t * d, *k1 = two ? k0 + d : k0;
		__m256 a[2][4];
		for (int j = 0; j < 4; j++)
			a[0][j] = a[1][j] = _mm256_setzero_ps();
		for (int c = 0; c < d; c++) {
			__m256 x0 = _mm256_broadcast_ss(k0 + c), x1 = _mm256_broadcast_ss(k1 + c);
			for (int j = 0; j < nz; j++) {
				__m256 q = _mm256_loadu_ps(QT + (size_t)c * MAXV + 8 * j);
				a[0][j] = _mm256_fmadd_ps(x0, q, a[0][j]);
				a[1][j] = _mm256_fmadd_ps(x1, q, a[1][j]);
			}
		}
		for (int j = 0; j < nz; j++) {
			_mm256_storeu_ps(sT + (size_t)t * MAXV + 8 * j, a[0][j]);
			if (two)
				_mm256_storeu_ps(sT + (size_t)(t + 1) * MAXV + 8 * j, a[1][j]);
		}
	}
}

AVX2 static void scoresAVX2(const float *QT, int d, const float *K, int n, float *sT, int nz) {
	switch (nz) {
	case 1: scoresT8(QT, d, K, n, sT, 1); break;
	case 2: scoresT8(QT, d, K, n, sT, 2); break;
	case 3: scoresT8(QT, d, K, n, sT, 3); break;
	default: scoresT8(QT, d, K, n, sT, 4);
	}
}

// scoresT16 is scoresT8 on AVX-512: nz groups of 16 vectors, eight rows at a time.
AVX512 static ALWAYS void scoresT16(const float *QT, int d, const float *K, int n, float *sT, int nz) {
	for (int t = 0; t < n; t += 8) {
		int rows = n - t < 8 ? n - t : 8;
		const float *k[8];
		for (int r = 0; r < 8; r++)
			k[r] = K + (size_t)(t + (r < rows ? r : 0)) * d;
		__m512 a[8][2];
		for (int r = 0; r < 8; r++)
			a[r][0] = a[r][1] = _mm512_setzero_ps();
		for (int c = 0; c < d; c++) {
			__m512 q0 = _mm512_loadu_ps(QT + (size_t)c * MAXV), q1 = nz > 1 ? _mm512_loadu_ps(QT + (size_t)c * MAXV + 16) : q0;
			for (int r = 0; r < 8; r++) {
				__m512 x = _mm512_set1_ps(k[r][c]);
				a[r][0] = _mm512_fmadd_ps(x, q0, a[r][0]);
				if (nz > 1)
					a[r][1] = _mm512_fmadd_ps(x, q1, a[r][1]);
			}
		}
		for (int r = 0; r < rows; r++)
			for (int j = 0; j < nz; j++)
				_mm512_storeu_ps(sT + (size_t)(t + r) * MAXV + 16 * j, a[r][j]);
	}
}

AVX512 static void scoresAVX512(const float *QT, int d, const float *K, int n, float *sT, int nz) {
	if (nz > 1)
		scoresT16(QT, d, K, n, sT, 2);
	else
		scoresT16(QT, d, K, n, sT, 1);
}

// valuesT8 adds the block's n value rows weighted by sT into acc: four vectors by 16 columns.
AVX2 static void valuesT8(int nq, int d, const float *V, int n, const float *sT, float *acc) {
	for (int h = 0; h < nq; h += 4) {
		int g = nq - h < 4 ? nq - h : 4;
		for (int c = 0; c < d; c += 16) {
			__m256 a[4][2];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 2; j++)
					a[i][j] = i < g ? _mm256_loadu_ps(acc + (size_t)(h + i) * d + c + 8 * j) : _mm256_setzero_ps();
			for (int t = 0; t < n; t++) {
				const float *row = V + (size_t)t * d + c, *p = sT + (size_t)t * MAXV + h;
				__m256 v0 = _mm256_loadu_ps(row), v1 = _mm256_loadu_ps(row + 8);
				for (int i = 0; i < 4; i++) {
					__m256 x = _mm256_broadcast_ss(p + i); // past nq: a padding lane, summed but not stored
					a[i][0] = _mm256_fmadd_ps(x, v0, a[i][0]);
					a[i][1] = _mm256_fmadd_ps(x, v1, a[i][1]);
				}
			}
			for (int i = 0; i < g; i++)
				for (int j = 0; j < 2; j++)
					_mm256_storeu_ps(acc + (size_t)(h + i) * d + c + 8 * j, a[i][j]);
		}
	}
}

// valuesT16: four vectors by 64 columns (d a multiple of 64).
AVX512 static void valuesT16(int nq, int d, const float *V, int n, const float *sT, float *acc) {
	for (int h = 0; h < nq; h += 4) {
		int g = nq - h < 4 ? nq - h : 4;
		for (int c = 0; c < d; c += 64) {
			__m512 a[4][4];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					a[i][j] = i < g ? _mm512_loadu_ps(acc + (size_t)(h + i) * d + c + 16 * j) : _mm512_setzero_ps();
			for (int t = 0; t < n; t++) {
				const float *row = V + (size_t)t * d + c, *p = sT + (size_t)t * MAXV + h;
				__m512 v0 = _mm512_loadu_ps(row), v1 = _mm512_loadu_ps(row + 16), v2 = _mm512_loadu_ps(row + 32), v3 = _mm512_loadu_ps(row + 48);
				for (int i = 0; i < 4; i++) {
					__m512 x = _mm512_set1_ps(p[i]);
					a[i][0] = _mm512_fmadd_ps(x, v0, a[i][0]);
					a[i][1] = _mm512_fmadd_ps(x, v1, a[i][1]);
					a[i][2] = _mm512_fmadd_ps(x, v2, a[i][2]);
					a[i][3] = _mm512_fmadd_ps(x, v3, a[i][3]);
				}
			}
			for (int i = 0; i < g; i++)
				for (int j = 0; j < 4; j++)
					_mm512_storeu_ps(acc + (size_t)(h + i) * d + c + 16 * j, a[i][j]);
		}
	}
}

typedef void scoresFn(const float *QT, int d, const float *K, int n, float *sT, int nz);
typedef void valuesFn(int nq, int d, const float *V, int n, const float *sT, float *acc);

// tile is attnop_tile on the given loops; lanes is their vector width. The tile's vectors are
// run in parts of MAXV; each block of cached rows (in L1 once read) serves every part that sees
// any of its rows.
static ALWAYS void tile(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8,
                        const int8_t *V8, int r1, const int *lim, float *l, float *acc, float *work,
                        scoresFn *scores, valuesFn *values, int lanes) {
	int parts = (nq + MAXV - 1) / MAXV, pn[SUBS], minLim[SUBS], maxLim[SUBS];
	tileState w[SUBS];
	float *kf = work + SUBS * ((size_t)d * MAXV + BLOCK * MAXV + 3 * MAXV), *vf = kf + BLOCK * (size_t)d;
	for (int p = 0; p < parts; p++) {
		w[p] = tileLayout(work, d, p);
		pn[p] = nq - p * MAXV < MAXV ? nq - p * MAXV : MAXV;
		memset(w[p].QT, 0, sizeof(float) * (size_t)d * MAXV);
		minLim[p] = r1, maxLim[p] = 0;
		for (int v = 0; v < MAXV; v++) {
			w[p].m[v] = -INFINITY, w[p].l[v] = 0;
			if (v >= pn[p])
				continue;
			const float *qv = q + (size_t)(p * MAXV + v) * d;
			for (int c = 0; c < d; c++)
				w[p].QT[(size_t)c * MAXV + v] = qv[c];
			int e = lim[p * MAXV + v];
			minLim[p] = e < minLim[p] ? e : minLim[p];
			maxLim[p] = e > maxLim[p] ? e : maxLim[p];
		}
	}
	memset(acc, 0, sizeof(float) * (size_t)nq * d);
	for (int b0 = 0; b0 < r1; b0 += BLOCK) {
		int n = r1 - b0 < BLOCK ? r1 - b0 : BLOCK;
		const float *Kb = K ? K + (size_t)b0 * d : kf, *Vb = V ? V + (size_t)b0 * d : vf;
		if (K8 && ld != d) {
			dequantRows(K8 + (size_t)b0 * ld, kf, n, d, ld);
			dequantRows(V8 + (size_t)b0 * ld, vf, n, d, ld);
		} else if (K8) {
			dequant(K8 + (size_t)b0 * d, kf, n, d);
			dequant(V8 + (size_t)b0 * d, vf, n, d);
		}
		for (int p = 0; p < parts; p++) {
			if (b0 >= maxLim[p])
				continue; // the part's rows see none of this block's
			float *ap = acc + (size_t)p * MAXV * d;
			scores(w[p].QT, d, Kb, n, w[p].sT, (pn[p] + lanes - 1) / lanes);
			maskT(w[p].sT, pn[p], b0, n, lim + p * MAXV, minLim[p]);
			softmaxT(&w[p], (pn[p] + 7) / 8);
			rescale(&w[p], pn[p], d, ap);
			values(pn[p], d, Vb, n, w[p].sT, ap);
		}
	}
	for (int p = 0; p < parts; p++)
		memcpy(l + p * MAXV, w[p].l, sizeof(float) * pn[p]);
}

AVX2 static void tileAVX2(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8,
                          const int8_t *V8, int r1, const int *lim, float *l, float *acc, float *work) {
	tile(q, nq, d, ld, K, V, K8, V8, r1, lim, l, acc, work, scoresAVX2, valuesT8, 8);
}

AVX512 static void tileAVX512(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8,
                              const int8_t *V8, int r1, const int *lim, float *l, float *acc, float *work) {
	if (d % 64)
		tile(q, nq, d, ld, K, V, K8, V8, r1, lim, l, acc, work, scoresAVX512, valuesT8, 16);
	else
		tile(q, nq, d, ld, K, V, K8, V8, r1, lim, l, acc, work, scoresAVX512, valuesT16, 16);
}

// attnop_select_tile sets attnop_tile for attnop_select's choice (2 AVX-512, 1 AVX2).
void attnop_select_tile(int isa) {
	attnop_tile = isa >= 2 ? tileAVX512 : isa == 1 ? tileAVX2 : NULL;
}
