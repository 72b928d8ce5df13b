//go:build cgo && amd64 && (linux || windows)

// kernel.h: the attention loops of attn.c, for op.c.

#ifndef ATTNOP_KERNEL_H
#define ATTNOP_KERNEL_H

#include <stdint.h>

#define BLOCK 32 // cache rows whose scores are taken before their values are summed
#define MAXG 8   // query heads a KV head serves, at most
#define MAXD 256 // head size, at most
#define MAXV 32  // query vectors one pass over the cache serves: a prompt tile's rows × the group's heads

// attnop_part runs the online softmax of nq query vectors q [nq][d] (rotated and scaled; for an
// int8 cache also multiplied by the key scales) over rows [r0, r1) of one KV head's keys and
// values (row stride d; float32, or int8 when K8/V8 are set), updating each vector's running
// maximum m, sum l and accumulator acc [nq][d] (the values' scales not applied). lim, when not
// NULL, is each vector's end: rows from lim[v] on are masked (causal prompt rows). scratch, when
// not NULL, holds 2·BLOCK·d floats into which an int8 cache's blocks are converted once for all
// nq vectors.
typedef void attnop_part_fn(const float *q, int nq, int d, const float *K, const float *V, const int8_t *K8,
                            const int8_t *V8, int r0, int r1, const int *lim, float *m, float *l, float *acc,
                            float *scratch);

// attnop_select picks the loops for this CPU: 2 AVX-512, 1 AVX2 + FMA, 0 none (no kernels).
// avx2 keeps AVX2 where the CPU has AVX-512 (tests).
int attnop_select(int avx2);
extern attnop_part_fn *attnop_part;

#endif
