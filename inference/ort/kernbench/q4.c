//go:build linux && amd64 && cgo

// q4.c: the kernels of q4.h and a small spinning thread pool (workers spin briefly after a
// job, then sleep, so that they do not eat the other side's cores between measurements).

#include "q4.h"

#include <immintrin.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

// ---- thread pool -------------------------------------------------------------------------

// A job is cut into items that whoever is awake claims, so that a worker the OS has not
// scheduled (the machine is shared) delays nothing but its own item: the caller does the
// rest. The claim counter carries the job's generation in its high half, so a worker that
// wakes late cannot claim an item of a newer job with an older job's function.

typedef void (*kb_fn)(void *arg, int item);

static struct {
	_Atomic(kb_fn) fn;
	_Atomic(void *) arg;
	atomic_int gen, items, completed;
	_Atomic uint64_t next; // gen << 32 | next item
	int nth;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static int ISA;

// work claims and runs items of job g until there are none.
static void work(uint32_t g) {
	kb_fn fn = atomic_load_explicit(&P.fn, memory_order_acquire);
	void *arg = atomic_load_explicit(&P.arg, memory_order_acquire);
	int items = atomic_load_explicit(&P.items, memory_order_acquire);
	for (;;) {
		uint64_t v = atomic_load_explicit(&P.next, memory_order_acquire);
		if ((uint32_t)(v >> 32) != g || (int)(uint32_t)v >= items)
			return;
		if (!atomic_compare_exchange_weak_explicit(&P.next, &v, v + 1, memory_order_acq_rel, memory_order_relaxed))
			continue;
		fn(arg, (int)(uint32_t)v);
		atomic_fetch_add_explicit(&P.completed, 1, memory_order_release);
	}
}

static void *worker(void *unused) {
	(void)unused;
	int seen = 0;
	for (;;) {
		int g = seen;
		for (long spin = 0; spin < 100000 && (g = atomic_load_explicit(&P.gen, memory_order_acquire)) == seen; spin++)
			_mm_pause();
		if (g == seen) {
			pthread_mutex_lock(&P.mu);
			while ((g = atomic_load_explicit(&P.gen, memory_order_acquire)) == seen)
				pthread_cond_wait(&P.cv, &P.mu);
			pthread_mutex_unlock(&P.mu);
		}
		seen = g;
		work((uint32_t)g);
	}
	return NULL;
}

static void run(kb_fn fn, void *arg, int items) {
	uint32_t g = (uint32_t)atomic_load_explicit(&P.gen, memory_order_relaxed) + 1;
	atomic_store_explicit(&P.fn, fn, memory_order_relaxed);
	atomic_store_explicit(&P.arg, arg, memory_order_relaxed);
	atomic_store_explicit(&P.items, items, memory_order_relaxed);
	atomic_store_explicit(&P.completed, 0, memory_order_relaxed);
	atomic_store_explicit(&P.next, (uint64_t)g << 32, memory_order_release);
	pthread_mutex_lock(&P.mu);
	atomic_store_explicit(&P.gen, (int)g, memory_order_release);
	pthread_cond_broadcast(&P.cv);
	pthread_mutex_unlock(&P.mu);
	work(g);
	while (atomic_load_explicit(&P.completed, memory_order_acquire) != items)
		_mm_pause();
}

int kb_init(int nth, int isa) {
	__builtin_cpu_init();
	int vnni = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw");
	int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	if (isa == 0)
		isa = vnni ? 2 : avx2 ? 1 : -1;
	if ((isa == 2 && !vnni) || (isa == 1 && !avx2))
		return -1;
	ISA = isa;
	if (P.nth == 0) {
		P.nth = nth < 1 ? 1 : nth;
		for (int i = 1; i < P.nth; i++) {
			pthread_t t;
			pthread_create(&t, NULL, worker, NULL);
			pthread_detach(t);
		}
	}
	return isa;
}

// ---- activations ---------------------------------------------------------------------------

// Blocks go in groups of four (128 values): the even elements of the four blocks (16 each),
// then their odd elements, to meet the low and high nibbles of MatMulNBits' bytes.
void kb_quant_rows(const float *x, int m0, int m1, int K, int8_t *q, float *d, int32_t *init, float *de) {
	int nb = K / 32;
	for (int m = m0; m < m1; m++) {
		const float *xr = x + (size_t)m * K;
		int8_t *qr = q + (size_t)m * K;
		for (int b = 0; b < nb; b++) {
			float amax = 0;
			for (int j = 0; j < 32; j++)
				amax = fmaxf(amax, fabsf(xr[b * 32 + j]));
			float s = amax / 127, is = s ? 1 / s : 0;
			int sum = 0;
			int8_t *g = qr + (b / 4) * 128 + (b % 4) * 16;
			for (int i = 0; i < 16; i++) {
				int e = (int)lrintf(xr[b * 32 + 2 * i] * is), o = (int)lrintf(xr[b * 32 + 2 * i + 1] * is);
				g[i] = (int8_t)e;
				g[64 + i] = (int8_t)o;
				sum += e + o;
			}
			d[(size_t)m * nb + b] = s;
			int32_t *in = init + (size_t)m * (K / 8) + b * 4;
			in[0] = -8 * sum;
			in[1] = in[2] = in[3] = 0;
			float *e = de + (size_t)m * (K / 8) + b * 4;
			e[0] = e[1] = e[2] = e[3] = s;
		}
	}
}

// ---- kernels -------------------------------------------------------------------------------

typedef kb_job job;

// expand writes each of nb scales four times: the lanes of a block
// in the kernels' int32 sums.
static void expand(const float *s, int nb, float *out) {
	for (int b = 0; b < nb; b++) {
		float v = s[b];
		out[4 * b] = out[4 * b + 1] = out[4 * b + 2] = out[4 * b + 3] = v;
	}
}

#define KMAX 4096

// PF is how many weight rows ahead the one-row kernel prefetches.
#ifndef PF
#define PF 8
#endif

__attribute__((target("avx512f,avx512bw,avx512vnni,avx512dq"))) static void
gemv512(const job *j, int n0, int n1) {
	const int nb = j->K / 32;
	const __m512i m4 = _mm512_set1_epi8(0x0F);
	__m512i idx[4];
	for (int g = 0; g < 4; g++)
		idx[g] = _mm512_set_epi32(4 * g + 3, 4 * g + 3, 4 * g + 3, 4 * g + 3, 4 * g + 2, 4 * g + 2, 4 * g + 2, 4 * g + 2,
		                          4 * g + 1, 4 * g + 1, 4 * g + 1, 4 * g + 1, 4 * g, 4 * g, 4 * g, 4 * g);
	for (int n = n0; n < n1; n += 4) {
		__m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
		const uint8_t *w[4];
		const float *s[4];
		for (int r = 0; r < 4; r++)
			w[r] = j->B + (size_t)(n + r) * nb * 16, s[r] = j->S + (size_t)(n + r) * nb;
		for (int c = 0; c < nb; c += 16) {
			__m512 da = _mm512_loadu_ps(j->d + c), sc[4];
			for (int r = 0; r < 4; r++)
				sc[r] = _mm512_mul_ps(_mm512_loadu_ps(s[r] + c), da);
			for (int g = 0; g < 4; g++) {
				int b = c + 4 * g;
				__m512i ae = _mm512_loadu_si512(j->q + b * 32), ao = _mm512_loadu_si512(j->q + b * 32 + 64);
				__m512i iv = _mm512_loadu_si512(j->init + b * 4);
				for (int r = 0; r < 4; r++) {
					_mm_prefetch((const char *)(w[r] + b * 16 + PF * (size_t)nb * 16), _MM_HINT_T0);
					__m512i wv = _mm512_loadu_si512(w[r] + b * 16);
					__m512i lo = _mm512_and_si512(wv, m4), hi = _mm512_and_si512(_mm512_srli_epi16(wv, 4), m4);
					__m512i dot = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(iv, lo, ae), hi, ao);
					acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_permutexvar_ps(idx[g], sc[r]), acc[r]);
				}
			}
		}
		for (int r = 0; r < 4; r++)
			j->y[n + r] = _mm512_reduce_add_ps(acc[r]);
	}
}

// gemm512 does tiles of 4 weight rows × 4 activation rows, the activations in chunks that
// stay in L2 while this thread's weight rows stream past.
__attribute__((target("avx512f,avx512bw,avx512vnni,avx512dq"))) static void
gemm512(const job *j, int n0, int n1) {
	const int K = j->K, nb = K / 32, ne = K / 8;
	const __m512i m4 = _mm512_set1_epi8(0x0F);
	float ws[4][KMAX / 8] __attribute__((aligned(64)));
	const int chunk = 64;
	for (int m0 = 0; m0 < j->M; m0 += chunk) {
		int m1 = m0 + chunk < j->M ? m0 + chunk : j->M;
		for (int n = n0; n < n1; n += 4) {
			const uint8_t *w[4];
			for (int r = 0; r < 4; r++) {
				w[r] = j->B + (size_t)(n + r) * nb * 16;
				expand(j->S + (size_t)(n + r) * nb, nb, ws[r]);
			}
			for (int m = m0; m < m1; m += 4) {
				int mt = m1 - m < 4 ? m1 - m : 4;
				const int8_t *q[4];
				const int32_t *iv[4];
				const float *ds[4];
				for (int i = 0; i < 4; i++) {
					int mm = m + (i < mt ? i : 0);
					q[i] = j->q + (size_t)mm * K;
					iv[i] = j->init + (size_t)mm * ne;
					ds[i] = j->de + (size_t)mm * ne;
				}
				__m512 acc[4][4];
				for (int r = 0; r < 4; r++)
					for (int i = 0; i < 4; i++)
						acc[r][i] = _mm512_setzero_ps();
				for (int b = 0; b < nb; b += 4) {
					__m512i lo[4], hi[4];
					for (int r = 0; r < 4; r++) {
						__m512i wv = _mm512_loadu_si512(w[r] + b * 16);
						lo[r] = _mm512_and_si512(wv, m4);
						hi[r] = _mm512_and_si512(_mm512_srli_epi16(wv, 4), m4);
					}
					for (int i = 0; i < 4; i++) {
						__m512i ae = _mm512_loadu_si512(q[i] + b * 32), ao = _mm512_loadu_si512(q[i] + b * 32 + 64);
						__m512i in = _mm512_loadu_si512(iv[i] + b * 4);
						__m512 da = _mm512_loadu_ps(ds[i] + b * 4);
						for (int r = 0; r < 4; r++) {
							__m512i dot = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(in, lo[r], ae), hi[r], ao);
							__m512 sc = _mm512_mul_ps(_mm512_load_ps(ws[r] + b * 4), da);
							acc[r][i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), sc, acc[r][i]);
						}
					}
				}
				for (int i = 0; i < mt; i++)
					for (int r = 0; r < 4; r++)
						j->y[(size_t)(m + i) * j->N + n + r] = _mm512_reduce_add_ps(acc[r][i]);
			}
		}
	}
}

__attribute__((target("avx2,fma"))) static inline __m256 dot256(const uint8_t *w, const int8_t *q, const int32_t *iv) {
	// Blocks b, b+1 of a group of four: their bytes, even and odd activations.
	const __m256i m4 = _mm256_set1_epi8(0x0F), ones = _mm256_set1_epi16(1);
	__m256i wv = _mm256_loadu_si256((const __m256i *)w);
	__m256i lo = _mm256_and_si256(wv, m4), hi = _mm256_and_si256(_mm256_srli_epi16(wv, 4), m4);
	__m256i e = _mm256_maddubs_epi16(lo, _mm256_loadu_si256((const __m256i *)q));
	__m256i o = _mm256_maddubs_epi16(hi, _mm256_loadu_si256((const __m256i *)(q + 64)));
	__m256i s = _mm256_madd_epi16(_mm256_add_epi16(e, o), ones);
	return _mm256_cvtepi32_ps(_mm256_add_epi32(s, _mm256_loadu_si256((const __m256i *)iv)));
}

__attribute__((target("avx2,fma"))) static float hsum256(__m256 v) {
	__m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
	x = _mm_add_ps(x, _mm_movehl_ps(x, x));
	x = _mm_add_ss(x, _mm_movehdup_ps(x));
	return _mm_cvtss_f32(x);
}

// gemm256 (AVX2) does 4 weight rows × 1 activation row at a time; e+o fits int16: |15·127·2|·2.
__attribute__((target("avx2,fma"))) static void gemm256(const job *j, int n0, int n1) {
	const int K = j->K, nb = K / 32, ne = K / 8;
	float ws[4][KMAX / 8] __attribute__((aligned(32)));
	const int chunk = 64;
	for (int m0 = 0; m0 < j->M; m0 += chunk) {
		int m1 = m0 + chunk < j->M ? m0 + chunk : j->M;
		for (int n = n0; n < n1; n += 4) {
			const uint8_t *w[4];
			for (int r = 0; r < 4; r++) {
				w[r] = j->B + (size_t)(n + r) * nb * 16;
				expand(j->S + (size_t)(n + r) * nb, nb, ws[r]);
			}
			for (int m = m0; m < m1; m++) {
				const int8_t *q = j->q + (size_t)m * K;
				const int32_t *iv = j->init + (size_t)m * ne;
				const float *ds = j->de + (size_t)m * ne;
				__m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
				for (int b = 0; b < nb; b += 2) {
					// blocks b, b+1 sit in group b/4 at half (b%4)/2
					const int8_t *qb = q + (b / 4) * 128 + (b % 4) * 16;
					__m256 da = _mm256_loadu_ps(ds + b * 4);
					for (int r = 0; r < 4; r++) {
						__m256 v = dot256(w[r] + b * 16, qb, iv + b * 4);
						acc[r] = _mm256_fmadd_ps(v, _mm256_mul_ps(_mm256_load_ps(ws[r] + b * 4), da), acc[r]);
					}
				}
				for (int r = 0; r < 4; r++)
					j->y[(size_t)m * j->N + n + r] = hsum256(acc[r]);
			}
		}
	}
}

// Items are runs of rows of W: 64 for one activation row, 32 for more (each then loops over
// all activation rows in chunks that stay in L2).
static int itemRows(int M) { return M == 1 ? 64 : 32; }

int kb_items(int N, int M) { return (N + itemRows(M) - 1) / itemRows(M); }

void kb_matmul_item(const kb_job *j, int item) {
	int n0 = item * itemRows(j->M), n1 = n0 + itemRows(j->M) < j->N ? n0 + itemRows(j->M) : j->N;
	if (ISA == 2)
		(j->M == 1 ? gemv512 : gemm512)(j, n0, n1);
	else
		gemm256(j, n0, n1);
}

static void part(void *arg, int item) { kb_matmul_item(arg, item); }

typedef struct {
	const float *x;
	int M, K;
	int8_t *q;
	float *d, *de;
	int32_t *init;
} quantjob;

static void quantpart(void *arg, int item) {
	const quantjob *j = arg;
	int m0 = item * 8, m1 = m0 + 8 < j->M ? m0 + 8 : j->M;
	kb_quant_rows(j->x, m0, m1, j->K, j->q, j->d, j->init, j->de);
}

void kb_quant(const float *x, int M, int K, int8_t *q, float *d, int32_t *init, float *de) {
	if (M < 8) {
		kb_quant_rows(x, 0, M, K, q, d, init, de);
		return;
	}
	quantjob j = {x, M, K, q, d, de, init};
	run(quantpart, &j, (M + 7) / 8);
}

void kb_matmul(const uint8_t *B, const float *S, int N, int K, const int8_t *q, const float *d,
               const int32_t *init, const float *de, int M, float *y) {
	job j = {B, S, N, K, M, q, d, init, de, y};
	run(part, &j, kb_items(N, M));
}

// ---- memory bandwidth ------------------------------------------------------------------------

typedef struct {
	const uint8_t *p;
	size_t n;
	atomic_uint_fast64_t sink;
} readjob;

__attribute__((target("avx2"))) static void readpart(void *arg, int item) {
	readjob *r = arg;
	const uint8_t *p = r->p + ((size_t)item << 20), *e = p + (1 << 20);
	__m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
	for (; p < e && p < r->p + r->n; p += 128) {
		a = _mm256_xor_si256(a, _mm256_load_si256((const __m256i *)p));
		b = _mm256_xor_si256(b, _mm256_load_si256((const __m256i *)(p + 32)));
		c = _mm256_xor_si256(c, _mm256_load_si256((const __m256i *)(p + 64)));
		d = _mm256_xor_si256(d, _mm256_load_si256((const __m256i *)(p + 96)));
	}
	a = _mm256_xor_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(c, d));
	atomic_fetch_add_explicit(&r->sink, (uint64_t)_mm256_extract_epi64(a, 0), memory_order_relaxed);
}

uint64_t kb_read(const uint8_t *p, size_t n) {
	readjob r = {p, n, 0};
	run(readpart, &r, (int)((n + (1 << 20) - 1) >> 20));
	return atomic_load(&r.sink);
}
