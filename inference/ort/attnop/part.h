//go:build cgo && (amd64 || arm64) && (linux || windows)

// part.h: the decode step's loops that are the same on every CPU (attn.c on x86-64,
// attn_arm64.c on Arm): the scalar dot product for leftover rows, the padding of a block's
// scores, the per-row cache's scales, and PART, which runs a block at a time on a CPU's score,
// softmax and value loops. Its includer defines softmaxBlock and scaleScores before expanding
// PART.

#ifndef ATTNOP_PART_H
#define ATTNOP_PART_H

#include <math.h>
#include <stdint.h>

#include "kernel.h"

// dot is q · k over d values (d a multiple of 16), for the rows a 4-row step leaves over.
static inline float dot(const float *q, const float *k, const int8_t *k8, int d) {
	float a[16] = {0};
	for (int c = 0; c < d; c += 16)
		for (int j = 0; j < 16; j++)
			a[j] += q[c + j] * (k8 ? (float)k8[c + j] : k[c + j]);
	for (int j = 8; j > 0; j >>= 1)
		for (int i = 0; i < j; i++)
			a[i] += a[i + j];
	return a[0];
}

// pad sets the scores of rows n to BLOCK to -inf.
static void pad(float s[MAXV][BLOCK], int nq, int n) {
	for (int h = 0; h < nq; h++)
		for (int t = n; t < BLOCK; t++)
			s[h][t] = -INFINITY;
}

// rowScales reads the scales of a per-row block's n key and value rows into ks and vs (0 past n).
static void rowScales(const int8_t *K8, const int8_t *V8, int d, int ld, int n, float *ks, float *vs) {
	for (int t = 0; t < BLOCK; t++)
		ks[t] = t < n ? rowScale(K8 + (size_t)t * ld, d) : 0, vs[t] = t < n ? rowScale(V8 + (size_t)t * ld, d) : 0;
}

// part is attnop_part on the given score and value loops. A per-row cache (ld > d) has each
// block's scores times its key rows' scales, and its weights (after the sums l took them) times
// its value rows' scales.
#define PART(name, scores, values)                                                                             \
	static void name(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8, \
	                 const int8_t *V8, int r0, int r1, float *m, float *l, float *acc) {                    \
		float s[MAXV][BLOCK], ks[BLOCK], vs[BLOCK];                                                     \
		int perRow = K8 && ld != d;                                                                     \
		for (int b0 = r0; b0 < r1; b0 += BLOCK) {                                                       \
			int n = r1 - b0 < BLOCK ? r1 - b0 : BLOCK, next = b0 + BLOCK < r1;                      \
			size_t off = (size_t)b0 * ld;                                                           \
			const float *Kb = K ? K + off : NULL, *Vb = V ? V + off : NULL;                         \
			const int8_t *K8b = K8 ? K8 + off : NULL, *V8b = V8 ? V8 + off : NULL;                  \
			scores(q, nq, d, ld, Kb, K8b, Vb, V8b, n, next, s);                                     \
			if (perRow) {                                                                           \
				rowScales(K8b, V8b, d, ld, n, ks, vs);                                          \
				scaleScores(s, nq, ks);                                                         \
			}                                                                                       \
			pad(s, nq, n);                                                                          \
			softmaxBlock(s, nq, d, m, l, acc);                                                      \
			if (perRow)                                                                             \
				scaleScores(s, nq, vs);                                                         \
			values(nq, d, ld, Vb, V8b, n, s, acc);                                                  \
		}                                                                                               \
	}

#endif
