//go:build cgo && (amd64 || arm64) && (linux || windows)

// op.c: the attention operators (attn.c's loops) as ONNX Runtime custom operators, and their
// registration. Both take GroupQueryAttention's CPU contract as EdgeChat's optimized copies use
// it, so that a copy switches by changing its nodes' domain:
//
//	inputs   query [1, S, H·D], key and value [1, S, KV·D], past_key and past_value
//	         [1, KV, capacity, D] (the shared buffer: present is the same buffer, appended in
//	         place at the past length), seqlens_k [1] int32 (total − 1), total_sequence_length
//	         (int32), cos_cache and sin_cache [positions, D/2]; with an int8 cache also
//	         inputs 12 and 13, k_scale and v_scale [KV·D] (per channel); optionally inputs 14
//	         and 15, q_norm and k_norm [D]: Qwen3's RMS norms of each query and key head
//	         (both or neither)
//	outputs  output [1, S, H·D], present_key and present_value (the past buffers)
//	attrs    num_heads, kv_num_heads, scale (0: 1/√D), do_rotary 1, rotary_interleaved 0,
//	         qk_norm_epsilon (the norms' epsilon)
//
// Packed QKV (key and value absent, as com.microsoft GroupQueryAttention allows): query is
// [1, S, (H + 2·KV)·D], each row its queries, keys and values in turn.
//
// The norms (onnx/optimize's qknorm.go folds a layer's Reshape, SimplifiedLayerNormalization
// and Reshape of queries and keys into them) round as ONNX Runtime's float32
// SimplifiedLayerNormalization does (rmsNorm). They are applied before rotary.
//
// Rotary is done inside, as GroupQueryAttention does (non-interleaved halves), on the new rows'
// queries and keys, which are written into the buffer at the past length. A decode step (S = 1)
// is split into items of one KV head and a chunk of its cached rows (merged after;
// decodeChunk); a prompt (S > 1) into items of one KV head and a tile of query rows, each
// reading the cached rows once for all the tile's rows (causal: row i sees the cache rows up to past + i). Items run on ONNX Runtime's
// intra-op threads (KernelContext_ParallelFor), the costliest first.
//
// The int8 cache (DomainInt8) is ONNX Runtime's per-channel one: value = q · scale[c], written as
// round(x · (1 / scale)) (ONNX Runtime's rounding) saturated to [-128, 127]. The key scales fold
// into the query once; the value scales multiply the accumulators at the end.
//
// The per-row int8 cache (DomainRow, ai.edgechat.kvrow) needs no scales from outside: each row
// written (one token of one KV head; keys after the norm and rotary) is quantized with its own
// scale, max|x| / 127 (0 for a row of zeros), as q = round(x · 127 / max|x|), so nothing clips
// and a value's error is at most half a step, max|x| / 254. The buffers are [1, KV, capacity,
// head size + 4] int8: each row its head size values, then its scale as a little-endian float32
// in the last 4 bytes (ROWBYTES), so that the app moves rows as opaque bytes. The op has no
// inputs 12 and 13 (k_scale and v_scale must be absent); the head size is the buffers' last
// dimension less 4. The loops apply the key rows' scales to the scores and fold the value rows'
// into the softmax weights.

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attnop.h"
#include "kernel.h"
#if defined(__x86_64__)
#include "matmul.h" // the int4 product is built for x86-64 only (MLAS's MatMulNBits serves Arm)
#endif
#include "opdef.h"
#include "ortapi.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define OP_ISA __attribute__((target("avx2,fma"))) // this file's vector loops (norms, rotary, new rows): the op runs only where the CPU has both
#else
#define OP_ISA
#endif

// A decode step's items are long: each reads its rows as two streams (keys, values) that the
// loops prefetch a block ahead, and a new item starts cold (its first block unprefetched, the
// CPU's stream prefetchers untrained). On the 28-layer Qwen3-0.6B copy after 3,000 tokens (8 KV
// heads, 2 threads, the per-row cache: 177 MB read a step) one item per KV head (3,000 rows)
// takes 0.79-0.81x the attention time of items of 256 rows, 1,500 rows 0.84-0.86x (paired
// microbenchmark). So a head's rows are split only past MAXCHUNK rows, or where the heads are
// too few for the threads (at least MINITEMS items), into equal chunks.
#define MAXCHUNK 4096 // cached rows of one decode item, at most
#define MINITEMS 8    // decode items a step makes at least, where rows allow
#define CHUNKVAR "EDGECHAT_ATTN_CHUNK" // rows of a decode item instead (measurements: 256 was the old size)
#define NIN 16    // inputs: GroupQueryAttention's 14, q_norm and k_norm

const OrtApi *attnop_api;

#define CHECK(expr)                                                                                \
	do {                                                                                       \
		OrtStatus *st_ = (expr);                                                           \
		if (st_)                                                                           \
			return st_;                                                                \
	} while (0)


typedef struct {
	int64_t H, KV;
	float scale; // 0: 1/√D
	float eps;   // qk_norm_epsilon
	int int8;    // an int8 cache: per channel (k_scale, v_scale), or per row when perRow
	int perRow;
	int chunk; // rows of a decode item (CHUNKVAR), or 0: decodeChunk's
} attnKernel;

// attnRun is one call's state shared by its items.
typedef struct {
	int S, H, KV, G, D, ld, past, cap, nchunk, chunk, rows, ntile; // ld: a cached row's stride (elements)
	const float *q;       // [KV][S][G][D], rotated and scaled (times the key scales for int8)
	const float *K, *V;   // [KV][cap][D]
	const int8_t *K8, *V8;
	const float *vscale;  // [KV][D] or NULL
	float *out;           // [S][H][D]
	float *pm, *pl, *pacc; // decode partials: [KV][nchunk][G], [..][G], [..][G][D]
	volatile int nomem;
} attnRun;

static void headRows(const attnRun *r, int kv, const float **K, const float **V, const int8_t **K8, const int8_t **V8) {
	size_t head = (size_t)kv * r->cap * r->ld;
	*K = r->K ? r->K + head : NULL, *V = r->V ? r->V + head : NULL;
	*K8 = r->K8 ? r->K8 + head : NULL, *V8 = r->V8 ? r->V8 + head : NULL;
}

// decodeItem runs item i on running sums of its own stack and copies them out at the end. The
// loops store a vector's sum l (and its maximum m when it rises) every block of rows; in the
// shared partials, all items' m and l sit in one or two cache lines, so two threads' items took
// that line from each other every block. With its own sums an item after 3,000 tokens of the
// 28-layer copy takes ~1.6 ms less CPU a step (8.4-8.5 against 10.0-10.4 ms, 2 threads), and the
// step after 3,000 tokens is 1.27-1.32x the step after 100 instead of 1.30-1.37x (stepbench,
// paired, three runs).
static void decodeItem(void *p, size_t i) {
	attnRun *r = p;
	int kv = (int)i / r->nchunk, c = (int)i % r->nchunk;
	int total = r->past + 1, r0 = c * r->chunk, r1 = r0 + r->chunk < total ? r0 + r->chunk : total;
	size_t base = i * r->G;
	float m[MAXG], l[MAXG], acc[MAXG * MAXD] __attribute__((aligned(64)));
	for (int h = 0; h < r->G; h++)
		m[h] = -INFINITY, l[h] = 0;
	memset(acc, 0, sizeof(float) * r->G * r->D);
	const float *K, *V;
	const int8_t *K8, *V8;
	headRows(r, kv, &K, &V, &K8, &V8);
	attnop_part(r->q + (size_t)kv * r->G * r->D, r->G, r->D, r->ld, K, V, K8, V8, r0, r1, m, l, acc);
	memcpy(r->pm + base, m, sizeof(float) * r->G);
	memcpy(r->pl + base, l, sizeof(float) * r->G);
	memcpy(r->pacc + base * r->D, acc, sizeof(float) * r->G * r->D);
}

// finish writes acc / l (times the value scales) of n vectors to out [n][D].
static void finish(const attnRun *r, int kv, int n, const float *l, const float *acc, float *out) {
	const float *vs = r->vscale ? r->vscale + (size_t)kv * r->D : NULL;
	for (int h = 0; h < n; h++) {
		float inv = 1 / l[h];
		for (int i = 0; i < r->D; i++) {
			float v = acc[(size_t)h * r->D + i] * inv;
			out[(size_t)h * r->D + i] = vs ? v * vs[i] : v;
		}
	}
}

// promptItem is tile ntile−1−i/KV (the later tiles, which see more rows, first) of KV head i%KV.
static void promptItem(void *p, size_t i) {
	attnRun *r = p;
	int kv = (int)(i % r->KV), tile = r->ntile - 1 - (int)(i / r->KV);
	int s0 = tile * r->rows, s1 = s0 + r->rows < r->S ? s0 + r->rows : r->S, G = r->G, D = r->D;
	int nq = (s1 - s0) * G;
	float l[MAXT];
	int lim[MAXT];
	float *acc = malloc(sizeof(float) * ((size_t)nq * D + TILE_WORK(D)));
	if (!acc) {
		r->nomem = 1;
		return;
	}
	for (int v = 0; v < nq; v++)
		lim[v] = r->past + s0 + v / G + 1;
	const float *K, *V;
	const int8_t *K8, *V8;
	headRows(r, kv, &K, &V, &K8, &V8);
	attnop_tile(r->q + ((size_t)kv * r->S + s0) * G * D, nq, D, r->ld, K, V, K8, V8, r->past + s1, lim, l, acc,
	            acc + (size_t)nq * D);
	for (int s = s0; s < s1; s++) {
		int v = (s - s0) * G;
		finish(r, kv, G, l + v, acc + (size_t)v * D, r->out + ((size_t)s * r->H + kv * G) * D);
	}
	free(acc);
}

// rotate applies the non-interleaved rotary embedding of position pos to x [D] into y, times mul,
// rounding as ONNX Runtime's Linux release build (GCC) does, so that the keys written are the
// same bits: on x86-64 the first product of each half fused into a multiply-add, on Arm64 the
// second (measured under qemu against 1.30's linux-arm64 library: TestAgainstGroupQueryAttention).
// (Its Windows build rounds differently, by an ulp at times: see gqa_test.go.) Compiled for AVX2
// and FMA on x86-64 (the op runs only where the CPU has both): the loop becomes vector
// instructions instead of two calls to fmaf a pair, the same bits (fmaf is exact either way).
OP_ISA static void rotate(const float *x, float *y, int D, const float *cosc, const float *sinc, int pos, float mul) {
	int h = D / 2;
	const float *c = cosc + (size_t)pos * h, *s = sinc + (size_t)pos * h;
	for (int i = 0; i < h; i++) {
		float a = x[i], b = x[i + h];
#if defined(__aarch64__)
		y[i] = fmaf(-b, s[i], a * c[i]) * mul;
		y[i + h] = fmaf(b, c[i], a * s[i]) * mul;
#else
		y[i] = fmaf(a, c[i], -(b * s[i])) * mul;
		y[i + h] = fmaf(a, s[i], b * c[i]) * mul;
#endif
	}
}

// rmsNorm writes x [D] (D a multiple of 8) over its root mean square, times w, into y, rounding
// as ONNX Runtime 1.30's float32 SimplifiedLayerNormalization does. On x64 (measured,
// TestQKNormPacked): the squares summed in 8 lanes by fused multiply-adds, the lanes added
// pairwise (i and i+4, then i and i+2, then 0 and 1), r = 1 / sqrt(sum / D + epsilon), and each
// element (x × r) × weight; compiled for AVX2 and FMA (the kernels run only where the CPU has
// both), so that the lanes' multiply-adds are instructions, not calls. On Arm64 (measured under
// qemu against the linux-arm64 library): the squares summed in order by fused multiply-adds and
// each element x / sqrt(sum / D + epsilon) × weight, the same bits at head size 16; at 128 a
// row differs by an ulp at times (an order of its sums not found), which TestQKNormPacked allows
// there.
#if defined(__x86_64__)
OP_ISA void rmsNorm(const float *x, float *y, int D, const float *w, float eps) {
	float p[8] = {0};
	for (int i = 0; i < D; i += 8)
		for (int j = 0; j < 8; j++)
			p[j] = fmaf(x[i + j], x[i + j], p[j]);
	float ss = ((p[0] + p[4]) + (p[2] + p[6])) + ((p[1] + p[5]) + (p[3] + p[7]));
	float r = 1 / sqrtf(ss / (float)D + eps);
	for (int i = 0; i < D; i++)
		y[i] = x[i] * r * w[i];
}
#else
void rmsNorm(const float *x, float *y, int D, const float *w, float eps) {
	float ss = 0;
	for (int i = 0; i < D; i++)
		ss = fmaf(x[i], x[i], ss);
	float root = sqrtf(ss / (float)D + eps);
	for (int i = 0; i < D; i++)
		y[i] = x[i] / root * w[i];
}
#endif

static int8_t quant8(float x, float scale) {
	float q = nearbyintf(x * (1 / scale));
	return (int8_t)(q > 127 ? 127 : q < -128 ? -128 : q);
}

// quantRow writes x [D] as a per-row cache row y [ROWBYTES(D)]: round(x · 127 / max|x|), then
// the scale max|x| / 127 (a row of zeros: zeros, scale 0). On x86-64 8 values a step (D a
// multiple of 8), rounding as nearbyintf does (to nearest, ties to even) and ignoring NaNs in
// the maximum as fmaxf does: the same bytes as the scalar loop, which called nearbyintf and
// fmaxf for every value (a decode step's 16 rows a layer took ~1% of the step's CPU, all on the
// first thread before the items start).
#if defined(__x86_64__)
OP_ISA static void quantRow(const float *x, int8_t *y, int D) {
	const __m256 abs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
	__m256 mx = _mm256_setzero_ps();
	for (int c = 0; c < D; c += 8)
		mx = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(x + c), abs), mx); // a NaN gives the second operand
	__m128 m4 = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
	m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
	m4 = _mm_max_ss(m4, _mm_shuffle_ps(m4, m4, 1));
	float top = _mm_cvtss_f32(m4);
	float inv = top > 0 ? 127 / top : 0, sc = top / 127;
	const __m256 mul = _mm256_set1_ps(inv), lo = _mm256_set1_ps(-127), hi = _mm256_set1_ps(127);
	for (int c = 0; c < D; c += 8) {
		__m256 q = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x + c), mul), _MM_FROUND_CUR_DIRECTION | _MM_FROUND_NO_EXC);
		__m256i v = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(q, lo), hi));
		__m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
		_mm_storel_epi64((__m128i *)(y + c), _mm_packs_epi16(w, w));
	}
	memcpy(y + D, &sc, sizeof sc);
}
#else
static void quantRow(const float *x, int8_t *y, int D) {
	float top = 0;
	for (int c = 0; c < D; c++)
		top = fmaxf(top, fabsf(x[c]));
	float inv = top > 0 ? 127 / top : 0, sc = top / 127;
	for (int c = 0; c < D; c++) {
		float q = nearbyintf(x[c] * inv);
		y[c] = (int8_t)(q > 127 ? 127 : q < -127 ? -127 : q);
	}
	memcpy(y + D, &sc, sizeof sc);
}
#endif

// dims reads v's shape into d (at most max dimensions) and its element count into count.
static OrtStatus *dims(const OrtValue *v, int64_t *d, size_t *nd, size_t max, int64_t *count) {
	OrtTensorTypeAndShapeInfo *info;
	CHECK(ORT(GetTensorTypeAndShape)(v, &info));
	OrtStatus *st = ORT(GetDimensionsCount)(info, nd);
	if (!st && *nd > max)
		st = op_fail("EdgeChat attention: an input has too many dimensions");
	if (!st)
		st = ORT(GetDimensions)(info, d, *nd);
	ORT(ReleaseTensorTypeAndShapeInfo)(info);
	*count = 1;
	for (size_t i = 0; !st && i < *nd; i++)
		*count *= d[i];
	return st;
}

static OrtStatus *data(const OrtValue *v, void *p) {
	return ORT(GetTensorMutableData)((OrtValue *)v, (void **)p);
}

// shape is what Compute reads of its inputs, checked.
typedef struct {
	int S, D, cap, past, total, packed, norms;
} attnShape;

static OrtStatus *checkShapes(const attnKernel *k, const OrtValue **in, attnShape *sh) {
	int64_t qd[4], kd[4], vd[4], pk[4], pv[4], cd[4], sd[4], ks[4], n;
	size_t nq, nk, nv, npk, npv, nc, ns;
	int packed = !in[1] && !in[2], norms = in[14] || in[15];
	if (!packed && (!in[1] || !in[2]))
		return op_fail("EdgeChat attention: key and value must both be given, or both absent (packed QKV in query)");
	if (norms && (!in[14] || !in[15]))
		return op_fail("EdgeChat attention: q_norm and k_norm (inputs 14 and 15) must both be given, or both absent");
	CHECK(dims(in[0], qd, &nq, 4, &n));
	CHECK(dims(in[3], pk, &npk, 4, &n));
	CHECK(dims(in[4], pv, &npv, 4, &n));
	if (nq != 3 || qd[0] != 1 || qd[1] < 1 || npk != 4 || pk[0] != 1 || pk[1] != k->KV || npv != 4 ||
	    memcmp(pk, pv, sizeof pk))
		return op_fail("EdgeChat attention: query [1, S, H·D] (batch 1) and past_key, past_value [1, kv_num_heads, capacity, D] expected");
	int64_t S = qd[1], D = pk[3] - (k->perRow ? 4 : 0), cap = pk[2];
	if (D % 16 || D <= 0 || D > MAXD || k->H % k->KV || k->H / k->KV > MAXG ||
	    qd[2] != (packed ? k->H + 2 * k->KV : k->H) * D)
		return op_fail("EdgeChat attention: the head size (a per-row int8 cache's last dimension less 4) must be a multiple of 16 up to 256, num_heads a multiple of kv_num_heads at most 8 times it, and query's last dimension num_heads × head size ((num_heads + 2 × kv_num_heads) × head size with packed QKV)");
	if (!packed) {
		CHECK(dims(in[1], kd, &nk, 4, &n));
		CHECK(dims(in[2], vd, &nv, 4, &n));
		if (nk != 3 || nv != 3 || kd[0] != 1 || vd[0] != 1 || kd[1] != S || vd[1] != S || kd[2] != k->KV * D || vd[2] != k->KV * D)
			return op_fail("EdgeChat attention: key and value must be [1, S, kv_num_heads × head size], S the query's");
	}
	for (int i = 14; norms && i <= 15; i++) {
		CHECK(dims(in[i], ks, &ns, 4, &n));
		if (n != D)
			return op_fail("EdgeChat attention: q_norm and k_norm must hold head size values");
	}
	CHECK(dims(in[7], cd, &nc, 4, &n));
	CHECK(dims(in[8], sd, &ns, 4, &n));
	if (nc != 2 || ns != 2 || cd[1] != D / 2 || memcmp(cd, sd, 2 * sizeof cd[0]))
		return op_fail("EdgeChat attention: cos_cache and sin_cache must be [positions, head size / 2]");
	CHECK(dims(in[5], sd, &ns, 4, &n));
	if (n < 1)
		return op_fail("EdgeChat attention: seqlens_k is empty");
	CHECK(dims(in[6], sd, &ns, 4, &n));
	if (n < 1)
		return op_fail("EdgeChat attention: total_sequence_length is empty");
	if (k->int8 && !k->perRow)
		for (int i = 12; i <= 13; i++) {
			CHECK(dims(in[i], ks, &ns, 4, &n));
			if (n != k->KV * D)
				return op_fail("EdgeChat attention: k_scale and v_scale must hold kv_num_heads × head size values (per channel)");
		}
	const int32_t *seqlens, *total;
	CHECK(data(in[5], &seqlens));
	CHECK(data(in[6], &total));
	int64_t t = (int64_t)seqlens[0] + 1;
	if (*total != t || t < S || t > cap || t > cd[0] || cap > INT_MAX / MAXD)
		return op_fail("EdgeChat attention: seqlens_k + 1 must equal total_sequence_length, be at least S and fit both the KV buffer and the rotary caches");
	*sh = (attnShape){.S = (int)S, .D = (int)D, .cap = (int)cap, .total = (int)t, .past = (int)(t - S), .packed = packed, .norms = norms};
	return NULL;
}

static OrtStatus *run(attnRun *r, OrtKernelContext *ctx);

// newRows is what newRow needs of a call.
typedef struct {
	const float *q, *key, *val, *cosc, *sinc, *ks, *vs;
	const float *qn, *kn; // q_norm and k_norm, or NULL
	void *yk, *yv;
	float *qr;
	int S, H, KV, D, cap, past, int8, perRow;
	size_t qstride, kvstride; // floats from one row's queries (keys, values) to the next's
	float scale, eps;
} newRows;

// newRow rotates the queries of new row s (normed first with q_norm) into qr ([KV][S][G][D],
// scaled, times an int8 cache's key scales) and writes its rotated key (normed first with
// k_norm) and its value into the buffers at row past + s.
static void newRow(void *p, size_t i) {
	const newRows *n = p;
	int s = (int)i, pos = n->past + s, D = n->D, G = n->H / n->KV;
	float xn[MAXD];
	for (int h = 0; h < n->H; h++) {
		float *qh = n->qr + (((size_t)(h / G) * n->S + s) * G + h % G) * D;
		const float *x = n->q + s * n->qstride + (size_t)h * D;
		if (n->qn)
			rmsNorm(x, xn, D, n->qn, n->eps), x = xn;
		rotate(x, qh, D, n->cosc, n->sinc, pos, n->scale);
		if (n->ks)
			for (int c = 0; c < D; c++)
				qh[c] *= n->ks[(h / G) * D + c];
	}
	float kr[MAXD];
	for (int h = 0; h < n->KV; h++) {
		const float *kx = n->key + s * n->kvstride + (size_t)h * D, *vx = n->val + s * n->kvstride + (size_t)h * D;
		size_t row = ((size_t)h * n->cap + pos) * (n->perRow ? ROWBYTES(D) : D);
		if (n->kn)
			rmsNorm(kx, xn, D, n->kn, n->eps), kx = xn;
		rotate(kx, kr, D, n->cosc, n->sinc, pos, 1);
		if (n->perRow) {
			quantRow(kr, (int8_t *)n->yk + row, D);
			quantRow(vx, (int8_t *)n->yv + row, D);
		} else if (n->int8) {
			for (int c = 0; c < D; c++) {
				((int8_t *)n->yk)[row + c] = quant8(kr[c], n->ks[h * D + c]);
				((int8_t *)n->yv)[row + c] = quant8(vx[c], n->vs[h * D + c]);
			}
		} else {
			memcpy((float *)n->yk + row, kr, sizeof(float) * D);
			memcpy((float *)n->yv + row, vx, sizeof(float) * D);
		}
	}
}

static OrtStatus *attnCompute(void *p, OrtKernelContext *ctx) {
	attnKernel *k = p;
	const OrtValue *in[NIN] = {0};
	size_t nin;
	CHECK(ORT(KernelContext_GetInputCount)(ctx, &nin));
	for (size_t i = 0; i < nin && i < NIN; i++)
		CHECK(ORT(KernelContext_GetInput)(ctx, i, &in[i]));
	for (int i = 0; i < 9; i++)
		if (!in[i] && i != 1 && i != 2)
			return op_fail("EdgeChat attention: inputs 0 and 3 to 8 (query, the past buffers to sin_cache) are required");
	if (k->int8 && !k->perRow && (!in[12] || !in[13]))
		return op_fail("EdgeChat attention: an int8 cache needs k_scale and v_scale (inputs 12 and 13)");
	if (k->perRow && (in[12] || in[13]))
		return op_fail("EdgeChat attention: a per-row int8 cache keeps its scales in its rows; k_scale and v_scale (inputs 12 and 13) must be absent");
	attnShape sh = {0};
	CHECK(checkShapes(k, in, &sh));
	int S = sh.S, H = (int)k->H, KV = (int)k->KV, G = H / KV, D = sh.D, cap = sh.cap, past = sh.past;
	float scale = k->scale != 0 ? k->scale : 1 / sqrtf((float)D);
	const float *q, *key, *val, *cosc, *sinc, *ks = NULL, *vs = NULL, *qn = NULL, *kn = NULL;
	const void *pk, *pv;
	size_t qstride = (size_t)H * D, kvstride = (size_t)KV * D;
	CHECK(data(in[0], &q));
	if (sh.packed) {
		qstride = kvstride = (size_t)(H + 2 * KV) * D;
		key = q + (size_t)H * D, val = key + (size_t)KV * D;
	} else {
		CHECK(data(in[1], &key));
		CHECK(data(in[2], &val));
	}
	if (sh.norms) {
		CHECK(data(in[14], &qn));
		CHECK(data(in[15], &kn));
	}
	CHECK(data(in[3], &pk));
	CHECK(data(in[4], &pv));
	CHECK(data(in[7], &cosc));
	CHECK(data(in[8], &sinc));
	if (k->int8 && !k->perRow) {
		CHECK(data(in[12], &ks));
		CHECK(data(in[13], &vs));
	}
	OrtValue *out, *ok, *ov;
	int ld = k->perRow ? ROWBYTES(D) : D;
	int64_t od[3] = {1, S, (int64_t)H * D}, pd[4] = {1, KV, cap, ld};
	CHECK(ORT(KernelContext_GetOutput)(ctx, 0, od, 3, &out));
	CHECK(ORT(KernelContext_GetOutput)(ctx, 1, pd, 4, &ok));
	CHECK(ORT(KernelContext_GetOutput)(ctx, 2, pd, 4, &ov));
	float *y;
	void *yk, *yv;
	CHECK(ORT(GetTensorMutableData)(out, (void **)&y));
	CHECK(ORT(GetTensorMutableData)(ok, &yk));
	CHECK(ORT(GetTensorMutableData)(ov, &yv));
	size_t rowBytes = (size_t)ld * (k->int8 ? 1 : 4);
	// Present is past's buffer when the caller binds one tensor to both (the app does);
	// otherwise the cached rows are copied first.
	for (int h = 0; h < KV && (yk != pk || yv != pv); h++) {
		size_t off = (size_t)h * cap * rowBytes;
		memcpy((char *)yk + off, (const char *)pk + off, (size_t)past * rowBytes);
		memcpy((char *)yv + off, (const char *)pv + off, (size_t)past * rowBytes);
	}
	float *qr = malloc(sizeof(float) * (size_t)S * H * D);
	if (!qr)
		return op_nomem("EdgeChat attention");
	newRows nr = {.q = q, .key = key, .val = val, .cosc = cosc, .sinc = sinc, .ks = ks, .vs = vs, .qn = qn, .kn = kn,
	              .yk = yk, .yv = yv, .qr = qr, .S = S, .H = H, .KV = KV, .D = D, .cap = cap, .past = past,
	              .qstride = qstride, .kvstride = kvstride, .scale = scale, .eps = k->eps, .int8 = k->int8,
	              .perRow = k->perRow};
	if (S == 1)
		newRow(&nr, 0);
	else {
		OrtStatus *st = ORT(KernelContext_ParallelFor)(ctx, newRow, (size_t)S, 0, &nr);
		if (st) {
			free(qr);
			return st;
		}
	}
	attnRun r = {.S = S, .H = H, .KV = KV, .G = G, .D = D, .ld = ld, .past = past, .cap = cap, .q = qr, .out = y, .vscale = vs,
	             .chunk = k->chunk};
	if (k->int8)
		r.K8 = yk, r.V8 = yv;
	else
		r.K = yk, r.V = yv;
	OrtStatus *st = run(&r, ctx);
	free(qr);
	return st;
}

// decodeChunk is the rows of a decode item for total cached rows of kv heads: want when above
// 0, else equal chunks of at most MAXCHUNK rows, at least MINITEMS items in all where the rows
// allow chunks of 64 (the loops' blocks).
static int decodeChunk(int total, int kv, int want) {
	if (want > 0)
		return want;
	int n = (total + MAXCHUNK - 1) / MAXCHUNK; // chunks a head by size
	int few = (MINITEMS + kv - 1) / kv;        // chunks a head for MINITEMS items
	int most = total / 64 > 1 ? total / 64 : 1; // chunks a head of 64 rows or more
	if (n < few)
		n = few < most ? few : most;
	int chunk = (total + n - 1) / n;
	return (chunk + 63) / 64 * 64;
}

// run computes the attention of r's rotated queries over the cache (the new rows written).
static OrtStatus *run(attnRun *r, OrtKernelContext *ctx) {
	int G = r->G, D = r->D;
	if (r->S > 1) {
		r->rows = MAXT / G;
		r->ntile = (r->S + r->rows - 1) / r->rows;
		OrtStatus *st = ORT(KernelContext_ParallelFor)(ctx, promptItem, (size_t)r->KV * r->ntile, 0, r);
		if (!st && r->nomem)
			st = op_nomem("EdgeChat attention");
		return st;
	}
	r->chunk = decodeChunk(r->past + 1, r->KV, r->chunk);
	r->nchunk = (r->past + 1 + r->chunk - 1) / r->chunk;
	size_t parts = (size_t)r->KV * r->nchunk * G;
	float *buf = malloc(sizeof(float) * parts * (D + 2));
	if (!buf)
		return op_nomem("EdgeChat attention");
	r->pm = buf, r->pl = buf + parts, r->pacc = buf + 2 * parts;
	OrtStatus *st = ORT(KernelContext_ParallelFor)(ctx, decodeItem, (size_t)r->KV * r->nchunk, 0, r);
	for (int kv = 0; !st && kv < r->KV; kv++) {
		// Merge the chunks: rescale each to the largest maximum.
		size_t b = (size_t)kv * r->nchunk * G;
		float m[MAXG], l[MAXG], acc[MAXG * MAXD];
		memcpy(m, r->pm + b, sizeof(float) * G);
		memcpy(l, r->pl + b, sizeof(float) * G);
		memcpy(acc, r->pacc + b * D, sizeof(float) * G * D);
		for (int c = 1; c < r->nchunk; c++) {
			size_t bc = b + (size_t)c * G;
			for (int h = 0; h < G; h++) {
				float cm = r->pm[bc + h], nm = cm > m[h] ? cm : m[h];
				float a = expf(m[h] - nm), bb = expf(cm - nm);
				const float *pa = r->pacc + (bc + h) * D;
				l[h] = l[h] * a + r->pl[bc + h] * bb;
				for (int i = 0; i < D; i++)
					acc[h * D + i] = acc[h * D + i] * a + pa[i] * bb;
				m[h] = nm;
			}
		}
		finish(r, kv, G, l, acc, r->out + (size_t)kv * G * D);
	}
	free(buf);
	return st;
}

// ---- the operators' definitions ---------------------------------------------------------------

// create makes a kernel of a float32 cache (int8 0), a per-channel int8 one (1) or a per-row
// int8 one (2).
static OrtStatus *create(const OrtKernelInfo *info, void **out, int int8) {
	attnKernel k = {.H = op_int_attr(info, "num_heads", 0), .KV = op_int_attr(info, "kv_num_heads", 0),
	                .scale = op_float_attr(info, "scale", 0), .eps = op_float_attr(info, "qk_norm_epsilon", 0), .int8 = int8 != 0,
	                .perRow = int8 == 2};
	const char *chunk = getenv(CHUNKVAR);
	k.chunk = chunk ? atoi(chunk) : 0;
	if (k.chunk < 0 || k.chunk > 1 << 20)
		k.chunk = 0;
	if (k.KV <= 0 || k.H <= 0 || k.H % k.KV || k.H / k.KV > MAXG)
		return op_fail("EdgeChat attention: num_heads must be a multiple of kv_num_heads (both set), at most 8 times it");
	if (op_int_attr(info, "do_rotary", 0) != 1 || op_int_attr(info, "rotary_interleaved", 0) != 0 ||
	    op_int_attr(info, "local_window_size", -1) != -1 || op_float_attr(info, "softcap", 0) != 0)
		return op_fail("EdgeChat attention: only do_rotary 1, rotary_interleaved 0, no local window and no softcap are supported");
	attnKernel *p = malloc(sizeof *p);
	if (!p)
		return op_nomem("EdgeChat attention");
	*p = k;
	*out = p;
	return NULL;
}

static OrtStatus *createF32(const OrtCustomOp *op, const OrtApi *a, const OrtKernelInfo *info, void **out) {
	(void)op, (void)a;
	return create(info, out, 0);
}

static OrtStatus *createI8(const OrtCustomOp *op, const OrtApi *a, const OrtKernelInfo *info, void **out) {
	(void)op, (void)a;
	return create(info, out, 1);
}

static OrtStatus *createRow(const OrtCustomOp *op, const OrtApi *a, const OrtKernelInfo *info, void **out) {
	(void)op, (void)a;
	return create(info, out, 2);
}

static const char *name(const OrtCustomOp *op) { (void)op; return "GroupQueryAttention"; }
static size_t inputs(const OrtCustomOp *op) { (void)op; return NIN; }
static size_t threeOut(const OrtCustomOp *op) { (void)op; return 3; }

static ONNXTensorElementDataType inType(size_t i, int int8) {
	if (i == 5 || i == 6)
		return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
	if ((i == 3 || i == 4) && int8)
		return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
	return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}
static ONNXTensorElementDataType inF32(const OrtCustomOp *op, size_t i) { (void)op; return inType(i, 0); }
static ONNXTensorElementDataType inI8(const OrtCustomOp *op, size_t i) { (void)op; return inType(i, 1); }
static ONNXTensorElementDataType outF32(const OrtCustomOp *op, size_t i) { (void)op, (void)i; return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT; }
static ONNXTensorElementDataType outI8(const OrtCustomOp *op, size_t i) {
	(void)op;
	return i == 0 ? ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT : ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
}
// inF32Char and inI8Char: key and value are optional (packed QKV), as are inputs 9 to 11 and the
// norms, and a float32 cache's scales.
static OrtCustomOpInputOutputCharacteristic inChar(size_t i, int int8) {
	if (i == 1 || i == 2 || i >= 9 && i <= 11 || i >= 14 || (int8 != 1 && (i == 12 || i == 13)))
		return INPUT_OUTPUT_OPTIONAL;
	return INPUT_OUTPUT_REQUIRED;
}
static OrtCustomOpInputOutputCharacteristic inF32Char(const OrtCustomOp *op, size_t i) { (void)op; return inChar(i, 0); }
static OrtCustomOpInputOutputCharacteristic inI8Char(const OrtCustomOp *op, size_t i) { (void)op; return inChar(i, 1); }
static OrtCustomOpInputOutputCharacteristic inRowChar(const OrtCustomOp *op, size_t i) { (void)op; return inChar(i, 2); }

static void define(OrtCustomOp *op, int int8) {
	op_define_common(op);
	op->GetName = name;
	op->GetInputType = int8 ? inI8 : inF32;
	op->GetInputTypeCount = inputs;
	op->GetOutputType = int8 ? outI8 : outF32;
	op->GetOutputTypeCount = threeOut;
	op->GetInputCharacteristic = int8 == 2 ? inRowChar : int8 ? inI8Char : inF32Char;
	op->CreateKernelV2 = int8 == 2 ? createRow : int8 ? createI8 : createF32;
	op->KernelComputeV2 = attnCompute;
}

// ---- registration -----------------------------------------------------------------------------

static OrtCustomOp opF32, opI8, opRow;
#if defined(__x86_64__)
static OrtCustomOp opMatMul;
#endif
static OrtCustomOpDomain *domF32, *domI8, *domRow;

// message returns st's message (to be freed), releasing st.
static char *message(OrtStatus *st, const char *what) {
	char buf[512];
	snprintf(buf, sizeof buf, "%s: %s", what, ORT(GetErrorMessage)(st));
	ORT(ReleaseStatus)(st);
	return strdup(buf);
}

char *attnop_init(uintptr_t getBase, const char *domain, const char *domainInt8, const char *domainRow) {
	const OrtApiBase *base = ((const OrtApiBase *(*)(void))getBase)();
	const OrtApi *api = base ? base->GetApi(ORTAPI_VERSION) : NULL;
	if (!api) {
		char buf[256];
		snprintf(buf, sizeof buf, "ONNX Runtime %s does not serve C API version %d (ONNX Runtime 1.%d or newer)",
		         base ? base->GetVersionString() : "(no OrtGetApiBase)", ORTAPI_VERSION, ORTAPI_VERSION);
		return strdup(buf);
	}
	attnop_api = api;
	define(&opF32, 0);
	define(&opI8, 1);
	define(&opRow, 2);
	OrtStatus *st;
	if ((st = ORT(CreateCustomOpDomain)(domain, &domF32)) || (st = ORT(CustomOpDomain_Add)(domF32, &opF32)))
		return message(st, "create the attention operators' domains");
#if defined(__x86_64__)
	attnop_define_matmul(&opMatMul); // matmul.c: MatMulNBits, in the float32 domain
	if ((st = ORT(CustomOpDomain_Add)(domF32, &opMatMul)))
		return message(st, "create the attention operators' domains");
#endif
	if ((st = ORT(CreateCustomOpDomain)(domainInt8, &domI8)) || (st = ORT(CustomOpDomain_Add)(domI8, &opI8)) ||
	    (st = ORT(CreateCustomOpDomain)(domainRow, &domRow)) || (st = ORT(CustomOpDomain_Add)(domRow, &opRow)))
		return message(st, "create the attention operators' domains");
	return NULL;
}

char *attnop_add(void *options) {
	OrtStatus *st;
	if ((st = ORT(AddCustomOpDomain)(options, domF32)) || (st = ORT(AddCustomOpDomain)(options, domI8)) ||
	    (st = ORT(AddCustomOpDomain)(options, domRow)))
		return message(st, "add the attention operators to the session options");
	return NULL;
}

char *attnop_config(void *options, const char *key) {
	char buf[256];
	size_t n = sizeof buf;
	OrtStatus *st = ORT(GetSessionConfigEntry)(options, key, buf, &n);
	if (st) {
		ORT(ReleaseStatus)(st);
		return NULL;
	}
	return strdup(buf);
}
