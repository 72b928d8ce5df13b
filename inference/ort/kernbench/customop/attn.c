// attn.c: a decode attention kernel as an ONNX Runtime custom operator, for issue 35's question
// whether reading the KV cache once per KV head (both query heads of a group in one pass over
// its rows) beats GroupQueryAttention, which reads every cached row once per query head (see
// ../DECODE.md, "A decode attention kernel of our own").
//
// The operator is GroupQueryAttention's CPU contract as EdgeChat's optimized copies use it, so
// that a whole model's nodes can be switched by patching their domain (e2e.go's opTwin):
//
//	inputs   query [1, S, H·D], key and value [1, S, KV·D], past_key and past_value
//	         [1, KV, capacity, D] (the shared buffer: present is the same buffer, appended in
//	         place at the past length), seqlens_k [1] int32 (total − 1), total_sequence_length
//	         (int32), cos_cache and sin_cache [positions, D/2]; with an int8 cache also
//	         inputs 12 and 13, k_scale and v_scale [KV·D] (per channel)
//	outputs  output [1, S, H·D], present_key and present_value (the past buffers)
//	attrs    num_heads, kv_num_heads, scale (0: 1/√D), do_rotary 1, rotary_interleaved 0
//
// Rotary is done inside, as GroupQueryAttention does (non-interleaved halves), on the new
// rows' queries and keys. The new keys and values are written into the buffer at the past
// length. The attention of each query row then runs per KV head over the cached rows in blocks
// of 32: the scores of all G = H/KV query heads of the group for each row read (the row comes
// from memory once, from L1 for the other heads), an online softmax (running maximum, sum,
// rescaled accumulators), the value rows weighted into G accumulators. Decode steps (S = 1)
// split long contexts into chunks of rows as well as heads (items on ONNX Runtime's intra-op
// threads through KernelContext_ParallelFor), whose partial results are merged after; prompt
// rows (S > 1) are items of one query row and one KV head each, causal (row i sees the cache
// and new rows up to i).
//
// The int8 cache (domain kernbench.kv8) is ONNX Runtime's per-channel one: value = q · scale[c],
// written as round(x / scale) saturated to [-128, 127]. The key scales fold into the query once; the
// value scales multiply the accumulators at the end.
//
// The inner loops run on AVX-512 or AVX2 + FMA, whichever the CPU has (KERNBENCH_ATTN_ISA=avx2
// keeps AVX2), and in portable C over lanes of 16 otherwise (KERNBENCH_ATTN_PORTABLE=1 forces
// that).

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxruntime_c_api.h"
#include "attn.h"

#define BLOCK 32   // rows whose scores are taken before their values are summed
#define CHUNK 256  // rows of one work item in a decode step
#define MAXG 8     // query heads a KV head serves, at most
#define MAXD 256   // head size, at most

static const OrtApi *api;

#define CHECK(expr)                                                                                \
	do {                                                                                       \
		OrtStatus *st_ = (expr);                                                           \
		if (st_)                                                                           \
			return st_;                                                                \
	} while (0)

// dot is q · k over d values (d a multiple of 16), in 16 lanes so that the compiler need not
// reorder a sum to vectorize it: the portable path.
static inline float dot(const float *q, const float *k, int d) {
	float a[16] = {0};
	for (int c = 0; c < d; c += 16)
		for (int j = 0; j < 16; j++)
			a[j] += q[c + j] * k[c + j];
	for (int j = 8; j > 0; j >>= 1)
		for (int i = 0; i < j; i++)
			a[i] += a[i + j];
	return a[0];
}

static inline float dot8(const float *q, const int8_t *k, int d) {
	float a[16] = {0};
	for (int c = 0; c < d; c += 16)
		for (int j = 0; j < 16; j++)
			a[j] += q[c + j] * (float)k[c + j];
	for (int j = 8; j > 0; j >>= 1)
		for (int i = 0; i < j; i++)
			a[i] += a[i + j];
	return a[0];
}

// softmaxBlock turns the scores s [g][BLOCK] of n rows into weights exp(s − m) with m each
// head's new running maximum, rescaling the heads' sums l and accumulators acc [g][d] to it.
static inline void softmaxBlock(float s[MAXG][BLOCK], int g, int n, int d, float *m, float *l, float *acc) {
	for (int h = 0; h < g; h++) {
		float bm = s[h][0];
		for (int t = 1; t < n; t++)
			bm = s[h][t] > bm ? s[h][t] : bm;
		if (bm > m[h]) {
			float c = expf(m[h] - bm); // 0 for the first block (m = -inf)
			l[h] *= c;
			float *a = acc + h * d;
			for (int i = 0; i < d; i++)
				a[i] *= c;
			m[h] = bm;
		}
		float sum = 0;
		for (int t = 0; t < n; t++) {
			s[h][t] = expf(s[h][t] - m[h]);
			sum += s[h][t];
		}
		l[h] += sum;
	}
}

// partPortable runs the online softmax of g query heads q [g][d] (rotated and scaled; for an
// int8 cache also multiplied by the key scales) over rows [r0, r1) of one KV head's keys and
// values (row stride d; float32, or int8 when K8/V8 are set), updating each head's running
// maximum m, sum l and accumulator acc [g][d] (the values' scales not applied).
static void partPortable(const float *q, int g, int d, const float *K, const float *V, const int8_t *K8,
                         const int8_t *V8, int r0, int r1, float *m, float *l, float *acc) {
	float s[MAXG][BLOCK];
	for (int b0 = r0; b0 < r1; b0 += BLOCK) {
		int n = r1 - b0 < BLOCK ? r1 - b0 : BLOCK;
		for (int t = 0; t < n; t++) {
			size_t row = (size_t)(b0 + t) * d;
			for (int h = 0; h < g; h++)
				s[h][t] = K8 ? dot8(q + h * d, K8 + row, d) : dot(q + h * d, K + row, d);
		}
		softmaxBlock(s, g, n, d, m, l, acc);
		for (int t = 0; t < n; t++) {
			size_t row = (size_t)(b0 + t) * d;
			for (int h = 0; h < g; h++) {
				float p = s[h][t], *a = acc + h * d;
				for (int i = 0; i < d; i++)
					a[i] += p * (V8 ? (float)V8[row + i] : V[row + i]);
			}
		}
	}
}

// The AVX2 + FMA path: the same steps, four rows' scores a head at a time (one horizontal sum
// for four rows), the values summed 32 columns at a time over a block's rows (held in L1)
// with every head's accumulators in registers.
#define AVX2 __attribute__((target("avx2,fma")))

AVX2 static inline __m256 load8(const float *f, const int8_t *b, size_t i) {
	if (b)
		return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(b + i))));
	return _mm256_loadu_ps(f + i);
}

AVX2 static void partAVX2(const float *q, int g, int d, const float *K, const float *V, const int8_t *K8,
                          const int8_t *V8, int r0, int r1, float *m, float *l, float *acc) {
	float s[MAXG][BLOCK];
	for (int b0 = r0; b0 < r1; b0 += BLOCK) {
		int n = r1 - b0 < BLOCK ? r1 - b0 : BLOCK, t = 0;
		for (; t + 4 <= n; t += 4) {
			size_t row = (size_t)(b0 + t) * d;
			// The values of these rows are read next, column chunk by chunk (a stride the
			// hardware prefetcher follows poorly): ask for them now, and for the keys a block on.
			size_t bytes = 4 * (size_t)d * (K8 ? 1 : 4);
			const char *vp = V8 ? (const char *)(V8 + row) : (const char *)(V + row);
			const char *kp = K8 ? (const char *)(K8 + row + BLOCK * d) : (const char *)(K + row + BLOCK * d);
			for (size_t o = 0; o < bytes; o += 64) {
				_mm_prefetch(vp + o, _MM_HINT_T0);
				if (b0 + t + BLOCK + 4 <= r1)
					_mm_prefetch(kp + o, _MM_HINT_T0);
			}
			for (int h = 0; h < g; h++) {
				const float *qh = q + h * d;
				__m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
				for (int c = 0; c < d; c += 8) {
					__m256 qv = _mm256_loadu_ps(qh + c);
					a0 = _mm256_fmadd_ps(qv, load8(K, K8, row + c), a0);
					a1 = _mm256_fmadd_ps(qv, load8(K, K8, row + d + c), a1);
					a2 = _mm256_fmadd_ps(qv, load8(K, K8, row + 2 * d + c), a2);
					a3 = _mm256_fmadd_ps(qv, load8(K, K8, row + 3 * d + c), a3);
				}
				__m256 h4 = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
				_mm_storeu_ps(&s[h][t], _mm_add_ps(_mm256_castps256_ps128(h4), _mm256_extractf128_ps(h4, 1)));
			}
		}
		for (; t < n; t++) {
			size_t row = (size_t)(b0 + t) * d;
			for (int h = 0; h < g; h++)
				s[h][t] = K8 ? dot8(q + h * d, K8 + row, d) : dot(q + h * d, K + row, d);
		}
		softmaxBlock(s, g, n, d, m, l, acc);
		for (int c = 0; c < d; c += 32) {
			__m256 a[MAXG][4];
			for (int h = 0; h < g; h++)
				for (int j = 0; j < 4; j++)
					a[h][j] = _mm256_loadu_ps(acc + h * d + c + 8 * j);
			for (int t = 0; t < n; t++) {
				size_t row = (size_t)(b0 + t) * d + c;
				__m256 v0 = load8(V, V8, row), v1 = load8(V, V8, row + 8), v2 = load8(V, V8, row + 16), v3 = load8(V, V8, row + 24);
				for (int h = 0; h < g; h++) {
					__m256 p = _mm256_set1_ps(s[h][t]);
					a[h][0] = _mm256_fmadd_ps(p, v0, a[h][0]);
					a[h][1] = _mm256_fmadd_ps(p, v1, a[h][1]);
					a[h][2] = _mm256_fmadd_ps(p, v2, a[h][2]);
					a[h][3] = _mm256_fmadd_ps(p, v3, a[h][3]);
				}
			}
			for (int h = 0; h < g; h++)
				for (int j = 0; j < 4; j++)
					_mm256_storeu_ps(acc + h * d + c + 8 * j, a[h][j]);
		}
	}
}

// The AVX-512 path: partAVX2's steps on 16-float vectors, 64 value columns at a time.
#define AVX512 __attribute__((target("avx512f")))

AVX512 static inline __m512 load16(const float *f, const int8_t *b, size_t i) {
	if (b)
		return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(b + i))));
	return _mm512_loadu_ps(f + i);
}

AVX512 static void partAVX512(const float *q, int g, int d, const float *K, const float *V, const int8_t *K8,
                              const int8_t *V8, int r0, int r1, float *m, float *l, float *acc) {
	float s[MAXG][BLOCK];
	if (d % 64) {
		partAVX2(q, g, d, K, V, K8, V8, r0, r1, m, l, acc);
		return;
	}
	for (int b0 = r0; b0 < r1; b0 += BLOCK) {
		int n = r1 - b0 < BLOCK ? r1 - b0 : BLOCK, t = 0;
		for (; t + 4 <= n; t += 4) {
			size_t row = (size_t)(b0 + t) * d;
			size_t bytes = 4 * (size_t)d * (K8 ? 1 : 4);
			const char *vp = V8 ? (const char *)(V8 + row) : (const char *)(V + row);
			const char *kp = K8 ? (const char *)(K8 + row + BLOCK * d) : (const char *)(K + row + BLOCK * d);
			for (size_t o = 0; o < bytes; o += 64) {
				_mm_prefetch(vp + o, _MM_HINT_T0);
				if (b0 + t + BLOCK + 4 <= r1)
					_mm_prefetch(kp + o, _MM_HINT_T0);
			}
			if (K8 && g == 2) {
				// int8 keys: convert each row once for both heads.
				__m512 a[2][4];
				for (int h = 0; h < 2; h++)
					for (int j = 0; j < 4; j++)
						a[h][j] = _mm512_setzero_ps();
				for (int c = 0; c < d; c += 16) {
					__m512 q0 = _mm512_loadu_ps(q + c), q1 = _mm512_loadu_ps(q + d + c);
					for (int j = 0; j < 4; j++) {
						__m512 kv = load16(K, K8, row + j * d + c);
						a[0][j] = _mm512_fmadd_ps(q0, kv, a[0][j]);
						a[1][j] = _mm512_fmadd_ps(q1, kv, a[1][j]);
					}
				}
				for (int h = 0; h < 2; h++)
					for (int j = 0; j < 4; j++)
						s[h][t + j] = _mm512_reduce_add_ps(a[h][j]);
				continue;
			}
			for (int h = 0; h < g; h++) {
				const float *qh = q + h * d;
				__m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
				for (int c = 0; c < d; c += 16) {
					__m512 qv = _mm512_loadu_ps(qh + c);
					a0 = _mm512_fmadd_ps(qv, load16(K, K8, row + c), a0);
					a1 = _mm512_fmadd_ps(qv, load16(K, K8, row + d + c), a1);
					a2 = _mm512_fmadd_ps(qv, load16(K, K8, row + 2 * d + c), a2);
					a3 = _mm512_fmadd_ps(qv, load16(K, K8, row + 3 * d + c), a3);
				}
				s[h][t] = _mm512_reduce_add_ps(a0);
				s[h][t + 1] = _mm512_reduce_add_ps(a1);
				s[h][t + 2] = _mm512_reduce_add_ps(a2);
				s[h][t + 3] = _mm512_reduce_add_ps(a3);
			}
		}
		for (; t < n; t++) {
			size_t row = (size_t)(b0 + t) * d;
			for (int h = 0; h < g; h++)
				s[h][t] = K8 ? dot8(q + h * d, K8 + row, d) : dot(q + h * d, K + row, d);
		}
		softmaxBlock(s, g, n, d, m, l, acc);
		for (int c = 0; c < d; c += 64) {
			__m512 a[MAXG][4];
			for (int h = 0; h < g; h++)
				for (int j = 0; j < 4; j++)
					a[h][j] = _mm512_loadu_ps(acc + h * d + c + 16 * j);
			for (int t = 0; t < n; t++) {
				size_t row = (size_t)(b0 + t) * d + c;
				__m512 v0 = load16(V, V8, row), v1 = load16(V, V8, row + 16), v2 = load16(V, V8, row + 32), v3 = load16(V, V8, row + 48);
				for (int h = 0; h < g; h++) {
					__m512 p = _mm512_set1_ps(s[h][t]);
					a[h][0] = _mm512_fmadd_ps(p, v0, a[h][0]);
					a[h][1] = _mm512_fmadd_ps(p, v1, a[h][1]);
					a[h][2] = _mm512_fmadd_ps(p, v2, a[h][2]);
					a[h][3] = _mm512_fmadd_ps(p, v3, a[h][3]);
				}
			}
			for (int h = 0; h < g; h++)
				for (int j = 0; j < 4; j++)
					_mm512_storeu_ps(acc + h * d + c + 16 * j, a[h][j]);
		}
	}
}

typedef void partFn(const float *, int, int, const float *, const float *, const int8_t *, const int8_t *, int, int,
                    float *, float *, float *);
static partFn *part = partPortable;

// ---- the operator -----------------------------------------------------------------------------

typedef struct {
	int64_t H, KV;
	float scale;
	int int8;
} attnKernel;

// run is one call's shared state for the work items.
typedef struct {
	int S, H, KV, G, D, past, cap, nchunk;
	const float *q;      // [S][H][D], rotated and scaled (times the key scales for int8)
	const float *K, *V;  // [KV][cap][D]
	const int8_t *K8, *V8;
	const float *vscale; // [KV][D] or NULL
	float *out;          // [S][H][D]
	float *pm, *pl, *pacc; // decode partials: [KV][nchunk][G], [..][G], [..][G][D]
} attnRun;

static void decodeItem(void *p, size_t i) {
	attnRun *r = p;
	int kv = (int)i / r->nchunk, c = (int)i % r->nchunk;
	int total = r->past + 1, r0 = c * CHUNK, r1 = r0 + CHUNK < total ? r0 + CHUNK : total;
	size_t head = (size_t)kv * r->cap * r->D, base = i * r->G;
	float *m = r->pm + base, *l = r->pl + base, *acc = r->pacc + base * r->D;
	for (int h = 0; h < r->G; h++)
		m[h] = -INFINITY, l[h] = 0;
	memset(acc, 0, sizeof(float) * r->G * r->D);
	part(r->q + (size_t)kv * r->G * r->D, r->G, r->D, r->K ? r->K + head : NULL, r->V ? r->V + head : NULL,
	     r->K8 ? r->K8 + head : NULL, r->V8 ? r->V8 + head : NULL, r0, r1, m, l, acc);
}

// finish writes acc / l (times the value scales) to out [G][D].
static void finish(const attnRun *r, int kv, const float *m, const float *l, const float *acc, float *out) {
	(void)m;
	for (int h = 0; h < r->G; h++)
		for (int i = 0; i < r->D; i++) {
			float v = acc[h * r->D + i] / l[h];
			out[h * r->D + i] = r->vscale ? v * r->vscale[kv * r->D + i] : v;
		}
}

static void promptItem(void *p, size_t i) {
	attnRun *r = p;
	int s = (int)i / r->KV, kv = (int)i % r->KV;
	size_t head = (size_t)kv * r->cap * r->D;
	float m[MAXG], l[MAXG], acc[MAXG * MAXD];
	for (int h = 0; h < r->G; h++)
		m[h] = -INFINITY, l[h] = 0;
	memset(acc, 0, sizeof(float) * r->G * r->D);
	part(r->q + ((size_t)s * r->H + kv * r->G) * r->D, r->G, r->D, r->K ? r->K + head : NULL,
	     r->V ? r->V + head : NULL, r->K8 ? r->K8 + head : NULL, r->V8 ? r->V8 + head : NULL, 0,
	     r->past + s + 1, m, l, acc);
	finish(r, kv, m, l, acc, r->out + ((size_t)s * r->H + kv * r->G) * r->D);
}

// rotate applies the non-interleaved rotary embedding of position pos to x [D] into y.
static void rotate(const float *x, float *y, int D, const float *cosc, const float *sinc, int pos, float mul) {
	int h = D / 2;
	const float *c = cosc + (size_t)pos * h, *s = sinc + (size_t)pos * h;
	for (int i = 0; i < h; i++) {
		float a = x[i], b = x[i + h];
		y[i] = (a * c[i] - b * s[i]) * mul;
		y[i + h] = (b * c[i] + a * s[i]) * mul;
	}
}

static int8_t quant8(float x, float scale) {
	float q = nearbyintf(x / scale);
	return (int8_t)(q > 127 ? 127 : q < -128 ? -128 : q);
}

static OrtStatus *dims(const OrtValue *v, int64_t *d, size_t *nd, size_t max) {
	OrtTensorTypeAndShapeInfo *info;
	CHECK(api->GetTensorTypeAndShape(v, &info));
	OrtStatus *st = api->GetDimensionsCount(info, nd);
	if (!st && *nd > max)
		st = api->CreateStatus(ORT_INVALID_ARGUMENT, "attention: too many dimensions");
	if (!st)
		st = api->GetDimensions(info, d, *nd);
	api->ReleaseTensorTypeAndShapeInfo(info);
	return st;
}

static OrtStatus *ORT_API_CALL attnCompute(void *p, OrtKernelContext *ctx) {
	attnKernel *k = p;
	const OrtValue *in[14] = {0};
	size_t nin;
	CHECK(api->KernelContext_GetInputCount(ctx, &nin));
	for (size_t i = 0; i < nin && i < 14; i++)
		CHECK(api->KernelContext_GetInput(ctx, i, &in[i]));
	if (!in[7] || !in[8] || (k->int8 && (!in[12] || !in[13])))
		return api->CreateStatus(ORT_INVALID_ARGUMENT, "attention: cos_cache and sin_cache (and an int8 cache's k_scale and v_scale) are required");
	int64_t qd[4], kd[4], pd[4], cd[4];
	size_t nq, nk, np, nc;
	CHECK(dims(in[0], qd, &nq, 4));
	CHECK(dims(in[1], kd, &nk, 4));
	CHECK(dims(in[3], pd, &np, 4));
	CHECK(dims(in[7], cd, &nc, 4));
	if (nq != 3 || qd[0] != 1 || np != 4 || pd[1] != k->KV || nc != 2)
		return api->CreateStatus(ORT_INVALID_ARGUMENT, "attention: query [1, S, H·D] (batch 1) and past [1, KV, capacity, D] expected");
	int S = (int)qd[1], H = (int)k->H, KV = (int)k->KV, D = (int)pd[3], cap = (int)pd[2];
	if (qd[2] != (int64_t)H * D || D % 16 || D > MAXD || H % KV || H / KV > MAXG || cd[1] != D / 2)
		return api->CreateStatus(ORT_INVALID_ARGUMENT, "attention: head size must be a multiple of 16 up to 256, num_heads/kv_num_heads at most 8");
	const int32_t *seqlens, *totalp;
	CHECK(api->GetTensorData(in[5], (const void **)&seqlens));
	CHECK(api->GetTensorData(in[6], (const void **)&totalp));
	int total = seqlens[0] + 1, past = total - S;
	if (past < 0 || total > cap || total > cd[0] || *totalp != total)
		return api->CreateStatus(ORT_INVALID_ARGUMENT, "attention: seqlens_k + 1 must be total_sequence_length, at least S, and fit the buffer and the rotary caches");
	const float *q, *key, *val, *cosc, *sinc, *ks = NULL, *vs = NULL;
	CHECK(api->GetTensorData(in[0], (const void **)&q));
	CHECK(api->GetTensorData(in[1], (const void **)&key));
	CHECK(api->GetTensorData(in[2], (const void **)&val));
	CHECK(api->GetTensorData(in[7], (const void **)&cosc));
	CHECK(api->GetTensorData(in[8], (const void **)&sinc));
	if (k->int8) {
		CHECK(api->GetTensorData(in[12], (const void **)&ks));
		CHECK(api->GetTensorData(in[13], (const void **)&vs));
	}
	const void *pk, *pv;
	CHECK(api->GetTensorData(in[3], &pk));
	CHECK(api->GetTensorData(in[4], &pv));
	OrtValue *out, *ok, *ov;
	int64_t od[3] = {1, S, (int64_t)H * D};
	CHECK(api->KernelContext_GetOutput(ctx, 0, od, 3, &out));
	CHECK(api->KernelContext_GetOutput(ctx, 1, pd, 4, &ok));
	CHECK(api->KernelContext_GetOutput(ctx, 2, pd, 4, &ov));
	float *y;
	void *yk, *yv;
	CHECK(api->GetTensorMutableData(out, (void **)&y));
	CHECK(api->GetTensorMutableData(ok, &yk));
	CHECK(api->GetTensorMutableData(ov, &yv));
	size_t elem = k->int8 ? 1 : 4, rowBytes = (size_t)D * elem;
	// Present is past's buffer when the caller binds one tensor to both (the app does);
	// otherwise the cached rows are copied first.
	if ((yk != pk || yv != pv) && getenv("KERNBENCH_ATTN_DEBUG"))
		fprintf(stderr, "attn.c: present is not past's buffer (past %d rows): copying\n", past);
	if (yk != pk || yv != pv)
		for (int h = 0; h < KV; h++) {
			size_t off = (size_t)h * cap * rowBytes;
			memcpy((char *)yk + off, (const char *)pk + off, (size_t)past * rowBytes);
			memcpy((char *)yv + off, (const char *)pv + off, (size_t)past * rowBytes);
		}
	float *qr = malloc(sizeof(float) * (size_t)S * H * D), kr[MAXD];
	if (!qr)
		return api->CreateStatus(ORT_FAIL, "attention: out of memory");
	for (int s = 0; s < S; s++) {
		int pos = past + s;
		for (int h = 0; h < H; h++) {
			float *qh = qr + ((size_t)s * H + h) * D;
			rotate(q + ((size_t)s * H + h) * D, qh, D, cosc, sinc, pos, k->scale);
			if (ks)
				for (int i = 0; i < D; i++)
					qh[i] *= ks[(h / (H / KV)) * D + i];
		}
		for (int h = 0; h < KV; h++) {
			const float *kx = key + ((size_t)s * KV + h) * D, *vx = val + ((size_t)s * KV + h) * D;
			size_t row = ((size_t)h * cap + pos) * D;
			rotate(kx, kr, D, cosc, sinc, pos, 1);
			if (k->int8) {
				for (int i = 0; i < D; i++) {
					((int8_t *)yk)[row + i] = quant8(kr[i], ks[h * D + i]);
					((int8_t *)yv)[row + i] = quant8(vx[i], vs[h * D + i]);
				}
			} else {
				memcpy((float *)yk + row, kr, sizeof(float) * D);
				memcpy((float *)yv + row, vx, sizeof(float) * D);
			}
		}
	}
	attnRun r = {.S = S, .H = H, .KV = KV, .G = H / KV, .D = D, .past = past, .cap = cap, .q = qr, .out = y, .vscale = vs};
	if (k->int8)
		r.K8 = yk, r.V8 = yv;
	else
		r.K = yk, r.V = yv;
	OrtStatus *st = NULL;
	if (S > 1) {
		st = api->KernelContext_ParallelFor(ctx, promptItem, (size_t)S * KV, 0, &r);
		free(qr);
		return st;
	}
	r.nchunk = (total + CHUNK - 1) / CHUNK;
	size_t parts = (size_t)KV * r.nchunk * r.G;
	float *buf = malloc(sizeof(float) * parts * (D + 2));
	if (!buf) {
		free(qr);
		return api->CreateStatus(ORT_FAIL, "attention: out of memory");
	}
	r.pm = buf, r.pl = buf + parts, r.pacc = buf + 2 * parts;
	st = api->KernelContext_ParallelFor(ctx, decodeItem, (size_t)KV * r.nchunk, 0, &r);
	if (!st)
		for (int kv = 0; kv < KV; kv++) {
			// Merge the chunks: rescale each to the largest maximum.
			size_t b = (size_t)kv * r.nchunk * r.G;
			float m[MAXG], l[MAXG], acc[MAXG * MAXD];
			memcpy(m, r.pm + b, sizeof(float) * r.G);
			memcpy(l, r.pl + b, sizeof(float) * r.G);
			memcpy(acc, r.pacc + b * D, sizeof(float) * r.G * D);
			for (int c = 1; c < r.nchunk; c++) {
				size_t bc = b + (size_t)c * r.G;
				for (int h = 0; h < r.G; h++) {
					float cm = r.pm[bc + h], nm = cm > m[h] ? cm : m[h];
					float a = expf(m[h] - nm), bb = expf(cm - nm);
					const float *pa = r.pacc + (bc + h) * D;
					l[h] = l[h] * a + r.pl[bc + h] * bb;
					for (int i = 0; i < D; i++)
						acc[h * D + i] = acc[h * D + i] * a + pa[i] * bb;
					m[h] = nm;
				}
			}
			finish(&r, kv, m, l, acc, y + (size_t)kv * r.G * D);
		}
	free(buf);
	free(qr);
	return st;
}

static OrtStatus *attr(const OrtKernelInfo *info, const char *name, int64_t *v, int64_t def) {
	OrtStatus *st = api->KernelInfoGetAttribute_int64(info, name, v);
	if (st) {
		api->ReleaseStatus(st);
		*v = def;
	}
	return NULL;
}

static OrtStatus *create(const OrtKernelInfo *info, void **out, int int8) {
	attnKernel *k = calloc(1, sizeof *k);
	int64_t rot, inter, win;
	float sc = 0, cap = 0;
	OrtStatus *st = api->KernelInfoGetAttribute_int64(info, "num_heads", &k->H);
	if (!st)
		st = api->KernelInfoGetAttribute_int64(info, "kv_num_heads", &k->KV);
	attr(info, "do_rotary", &rot, 0);
	attr(info, "rotary_interleaved", &inter, 0);
	attr(info, "local_window_size", &win, -1);
	OrtStatus *s2 = api->KernelInfoGetAttribute_float(info, "scale", &sc);
	if (s2)
		api->ReleaseStatus(s2);
	s2 = api->KernelInfoGetAttribute_float(info, "softcap", &cap);
	if (s2)
		api->ReleaseStatus(s2);
	if (!st && (rot != 1 || inter != 0 || win != -1 || cap != 0 || k->KV <= 0 || k->H % k->KV))
		st = api->CreateStatus(ORT_INVALID_ARGUMENT, "attention: only do_rotary 1, rotary_interleaved 0, no local window, no softcap, num_heads a multiple of kv_num_heads");
	if (st) {
		free(k);
		return st;
	}
	k->scale = sc; // 0: 1/√D, set at the first call's D
	k->int8 = int8;
	*out = k;
	return NULL;
}

static OrtStatus *ORT_API_CALL computeScaled(void *p, OrtKernelContext *ctx) {
	attnKernel *k = p;
	if (k->scale == 0) {
		const OrtValue *pk;
		int64_t d[4];
		size_t n;
		CHECK(api->KernelContext_GetInput(ctx, 3, &pk));
		CHECK(dims(pk, d, &n, 4));
		if (n != 4 || d[3] <= 0)
			return api->CreateStatus(ORT_INVALID_ARGUMENT, "attention: past [1, KV, capacity, D] expected");
		k->scale = 1 / sqrtf((float)d[3]);
	}
	return attnCompute(p, ctx);
}

static OrtStatus *ORT_API_CALL createF32(const OrtCustomOp *op, const OrtApi *a, const OrtKernelInfo *info, void **out) {
	(void)op, (void)a;
	return create(info, out, 0);
}

static OrtStatus *ORT_API_CALL createI8(const OrtCustomOp *op, const OrtApi *a, const OrtKernelInfo *info, void **out) {
	(void)op, (void)a;
	return create(info, out, 1);
}

static void ORT_API_CALL freeAttn(void *k) { free(k); }

static const char *ORT_API_CALL attnName(const OrtCustomOp *op) { (void)op; return "GroupQueryAttention"; }
static size_t ORT_API_CALL nineIn(const OrtCustomOp *op) { (void)op; return 9; }
static size_t ORT_API_CALL fourteenIn(const OrtCustomOp *op) { (void)op; return 14; }
static size_t ORT_API_CALL threeOut(const OrtCustomOp *op) { (void)op; return 3; }

static ONNXTensorElementDataType inType(size_t i, int int8) {
	if (i == 5 || i == 6)
		return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
	if ((i == 3 || i == 4) && int8)
		return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
	return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}
static ONNXTensorElementDataType ORT_API_CALL inF32(const OrtCustomOp *op, size_t i) { (void)op; return inType(i, 0); }
static ONNXTensorElementDataType ORT_API_CALL inI8(const OrtCustomOp *op, size_t i) { (void)op; return inType(i, 1); }
static ONNXTensorElementDataType ORT_API_CALL outF32(const OrtCustomOp *op, size_t i) { (void)op, (void)i; return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT; }
static ONNXTensorElementDataType ORT_API_CALL outI8(const OrtCustomOp *op, size_t i) {
	(void)op;
	return i == 0 ? ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT : ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
}
static OrtCustomOpInputOutputCharacteristic ORT_API_CALL inChar(const OrtCustomOp *op, size_t i) {
	(void)op;
	return i >= 9 && i <= 11 ? INPUT_OUTPUT_OPTIONAL : INPUT_OUTPUT_REQUIRED;
}

void kb_attn_ops(const OrtApi *a, OrtCustomOp *f32, OrtCustomOp *i8, int portable) {
	api = a;
	__builtin_cpu_init();
	const char *isa = getenv("KERNBENCH_ATTN_ISA"); // avx2: not AVX-512 even where the CPU has it
	part = partPortable;
	if (!portable && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		part = partAVX2;
	if (part == partAVX2 && __builtin_cpu_supports("avx512f") && !(isa && strcmp(isa, "avx2") == 0))
		part = partAVX512;
	f32->GetName = attnName;
	f32->GetInputTypeCount = nineIn;
	f32->GetInputType = inF32;
	f32->GetOutputTypeCount = threeOut;
	f32->GetOutputType = outF32;
	f32->CreateKernelV2 = createF32;
	f32->KernelComputeV2 = computeScaled;
	f32->KernelDestroy = freeAttn;
	i8->GetName = attnName;
	i8->GetInputTypeCount = fourteenIn;
	i8->GetInputType = inI8;
	i8->GetInputCharacteristic = inChar;
	i8->GetOutputTypeCount = threeOut;
	i8->GetOutputType = outI8;
	i8->CreateKernelV2 = createI8;
	i8->KernelComputeV2 = computeScaled;
	i8->KernelDestroy = freeAttn;
}
