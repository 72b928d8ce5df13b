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
#include "tiledrv.h"


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

// convert is an int8 block as float (tile's convertFn): a per-row cache's rows times their scales.
AVX2 static void convert(const int8_t *b, float *f, int n, int d, int ld) {
	if (ld != d)
		dequantRows(b, f, n, d, ld);
	else
		dequant(b, f, n, d);
}

AVX2 static void tileAVX2(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8,
                          const int8_t *V8, int r1, const int *lim, float *l, float *acc, float *work) {
	tile(q, nq, d, ld, K, V, K8, V8, r1, lim, l, acc, work, scoresAVX2, valuesT8, softmaxT, convert, 8);
}

AVX512 static void tileAVX512(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8,
                              const int8_t *V8, int r1, const int *lim, float *l, float *acc, float *work) {
	if (d % 64)
		tile(q, nq, d, ld, K, V, K8, V8, r1, lim, l, acc, work, scoresAVX512, valuesT8, softmaxT, convert, 16);
	else
		tile(q, nq, d, ld, K, V, K8, V8, r1, lim, l, acc, work, scoresAVX512, valuesT16, softmaxT, convert, 16);
}

// attnop_select_tile sets attnop_tile for attnop_select's choice (2 AVX-512, 1 AVX2).
void attnop_select_tile(int isa) {
	attnop_tile = isa >= 2 ? tileAVX512 : isa == 1 ? tileAVX2 : NULL;
}
