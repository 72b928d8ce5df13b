//go:build cgo && (amd64 || arm64) && (linux || windows)

// kernel.h: the attention loops of attn.c, for op.c.

#ifndef ATTNOP_KERNEL_H
#define ATTNOP_KERNEL_H

#include <stdint.h>

#define BLOCK 32 // cache rows whose scores are taken before their values are summed
#define MAXG 8   // query heads a KV head serves, at most
#define MAXD 256 // head size, at most
#define MAXV 32  // query vectors one pass of the loops serves (a decode step's group; a part of a prompt tile)
#define SUBS 4   // parts of MAXV vectors in a prompt tile, which read each block of cached rows once
#define MAXT (SUBS * MAXV) // query vectors in a prompt tile: its rows × the group's heads

// ROWBYTES is an int8 row's size in the per-row cache (DomainRow): its d values, then the
// row's float32 scale (little-endian, unaligned) at byte d.
#define ROWBYTES(d) ((d) + 4)

// rowScale reads the scale of the per-row cache's row at r (d values).
static inline float rowScale(const int8_t *r, int d) {
	float s;
	__builtin_memcpy(&s, r + d, sizeof s);
	return s;
}

// attnop_part runs the online softmax of a decode step's nq ≤ MAXG query vectors q [nq][d]
// (rotated and scaled; for a per-channel int8 cache also multiplied by the key scales) over rows
// [r0, r1) of one KV head's keys and values (float32, or int8 when K8/V8 are set), updating
// each vector's running maximum m, sum l and accumulator acc [nq][d] (per-channel value scales
// not applied). ld is the row stride in elements: d, or ROWBYTES(d) for the per-row int8 cache,
// whose row scales the loops apply (key scales to the scores, value scales folded into the
// weights).
typedef void attnop_part_fn(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8,
                            const int8_t *V8, int r0, int r1, float *m, float *l, float *acc);
extern attnop_part_fn *attnop_part;

// attnop_tile runs the causal attention of a prompt tile's nq ≤ MAXT query vectors q [nq][d]
// (rotated and scaled as for attnop_part) over rows [0, r1) of one KV head's keys and values:
// vector v sees rows [0, lim[v]). It writes each vector's softmax sum l [nq] and accumulator
// acc [nq][d] (per-channel value scales not applied; per-row ones are, ld as for attnop_part);
// work holds TILE_WORK(d) floats.
typedef void attnop_tile_fn(const float *q, int nq, int d, int ld, const float *K, const float *V, const int8_t *K8,
                            const int8_t *V8, int r1, const int *lim, float *l, float *acc, float *work);
#define TILE_WORK(d) (SUBS * ((size_t)(d) * MAXV + BLOCK * MAXV + 3 * MAXV) + 2 * BLOCK * (size_t)(d))
extern attnop_tile_fn *attnop_tile;

// attnop_part8 is attnop_part for an int8 cache on AVX-512 with BW and VNNI, d a multiple of 32
// (decode8.c: integer products).
attnop_part_fn attnop_part8;

// attnop_select picks the loops for this CPU: 3 AVX-512 with VNNI (decode8.c's for an int8
// cache), 2 AVX-512, 1 AVX2 + FMA, 0 none (no kernels). most > 0 caps the choice (tests).
int attnop_select(int most);
void attnop_select_tile(int isa); // tile.c's part of attnop_select

#endif
