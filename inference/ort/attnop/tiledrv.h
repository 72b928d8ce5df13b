//go:build cgo && (amd64 || arm64) && (linux || windows)

// tiledrv.h: the prompt tile's driver, the same on every CPU (tile.c on x86-64, attn_arm64.c on
// Arm): the tile's vectors transposed into parts of MAXV, each block of cached rows read (an int8
// one converted to float) once for every part that sees it, the masks and the rescaling; the
// CPU's own loops passed in (inlined: tile is always inlined into its callers).

#ifndef ATTNOP_TILEDRV_H
#define ATTNOP_TILEDRV_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernel.h"

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

// rescale multiplies each vector's accumulator by its factor c (1 when its maximum held).
static void rescale(const tileState *w, int nq, int d, float *acc) {
	for (int v = 0; v < nq; v++)
		if (w->c[v] != 1) {
			float c = w->c[v], *a = acc + (size_t)v * d;
			for (int i = 0; i < d; i++)
				a[i] *= c;
		}
}

typedef void scoresFn(const float *QT, int d, const float *K, int n, float *sT, int nz);
typedef void valuesFn(int nq, int d, const float *V, int n, const float *sT, float *acc);
typedef void softmaxFn(tileState *w, int nz); // nz groups of 8 vectors
typedef void convertFn(const int8_t *b, float *f, int n, int d, int ld); // n int8 rows (stride ld) to float [n][d]

// tile is attnop_tile on the given loops (convert: an int8 block to float, per-row scales applied
// when ld > d); lanes is the score loops' vector width. The tile's vectors are
// run in parts of MAXV; each block of cached rows (in L1 once read) serves every part that sees
// any of its rows.
static ALWAYS void tile(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8,
                        const int8_t *V8, int r1, const int *lim, float *l, float *acc, float *work,
                        scoresFn *scores, valuesFn *values, softmaxFn *softmax, convertFn *convert, int lanes) {
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
		if (K8) {
			convert(K8 + (size_t)b0 * ld, kf, n, d, ld);
			convert(V8 + (size_t)b0 * ld, vf, n, d, ld);
		}
		for (int p = 0; p < parts; p++) {
			if (b0 >= maxLim[p])
				continue; // the part's rows see none of this block's
			float *ap = acc + (size_t)p * MAXV * d;
			scores(w[p].QT, d, Kb, n, w[p].sT, (pn[p] + lanes - 1) / lanes);
			maskT(w[p].sT, pn[p], b0, n, lim + p * MAXV, minLim[p]);
			softmax(&w[p], (pn[p] + 7) / 8);
			rescale(&w[p], pn[p], d, ap);
			values(pn[p], d, Vb, n, w[p].sT, ap);
		}
	}
	for (int p = 0; p < parts; p++)
		memcpy(l + p * MAXV, w[p].l, sizeof(float) * pn[p]);
}

#endif
