//go:build cgo && amd64 && (linux || windows)

// matmul.h: the int4 matrix product's loops (q4avx2.c, q4avx512.c) for its operator (matmul.c).
//
// Y [M][N] = A [M][K] · Wᵀ, W given as MatMulNBits' B [N][K/32][16] (weight 2i of a block in the
// low nibble of byte i, 2i+1 in the high one, zero point 8) and scales [N][K/32]. At accuracy
// level 4 A is quantized as ONNX Runtime's MLAS does for it (CompInt8): per row and block of 32,
// scale amax/127, q = round-to-even(a · (127/amax)); a block's int32 dot product Σ q·(w − 8)
// is taken exactly and added times scale_a · scale_b. At level 0 the weights are dequantized to
// float and the sums are float.
//
// A quantized block is stored as its 16 even elements, then its 16 odd ones, to meet the low and
// high nibbles of B's bytes: dword d of a block's weights unpacked (low nibbles of bytes 4d to
// 4d+3 for d < 4, high nibbles of bytes 4(d−4) to 4(d−4)+3 after) meets dword d of the block's
// activations. Layout Q4_ROWS (the many-row product, AVX2's streaming one) puts block b at byte
// 32b of a row; Q4_GROUPS (AVX-512's streaming product) puts the even halves of blocks 4g to 4g+3 at byte 128g
// and their odd halves at 128g + 64, rows padded to a multiple of 128 bytes with zeros.
//
// The weights come in one of two layouts (attribute layout). Q4_W_NBITS (0) is MatMulNBits':
// column n's block b at byte 16(n·nb + b) of B, its scale at n·nb + b. Q4_W_COLS16 (1), which
// EdgeChat's optimized copies write (onnx/optimize), takes N a multiple of 16 and keeps the same
// bytes in panels of 16 columns, block by block, so that one row's product streams B (and the
// scales) once, front to back, with every 64-byte load feeding a vpdpbusd of 16 columns: panel
// P = n/16, block b: dword k (bytes 4k..4k+3 of the block) of column c = n%16 at byte
// 256(P·nb + b) + 64k + 4c; the scale at 16(P·nb + b) + c.

#ifndef ATTNOP_MATMUL_H
#define ATTNOP_MATMUL_H

#include <stddef.h>
#include <stdint.h>

#define Q4_PANEL 32 // weight columns one many-row item unpacks and runs every row over
#ifndef Q4_GEMV_ROWS
#define Q4_GEMV_ROWS 8 // rows, at most, that stream the weights a row at a time rather than unpack panels
#endif

enum { Q4_ROWS = 0, Q4_GROUPS = 1 };
enum { Q4_W_NBITS = 0, Q4_W_COLS16 = 1 };
#define Q4_W16 16 // columns of a Q4_W_COLS16 panel

// q4Run is one call's state, shared by its items.
typedef struct {
	int M, N, K, nb; // nb = K/32 blocks a row
	size_t stride;   // bytes of a quantized row
	int layout;      // Q4_ROWS or Q4_GROUPS
	int wlayout;     // the weights': Q4_W_NBITS or Q4_W_COLS16
	const float *A, *S, *bias; // bias NULL when absent
	const uint8_t *B;
	float *Y;
	int8_t *qa;     // quantized rows [M][stride]
	float *sa;      // their block scales [M][nb]
	int32_t *corr;  // −8 · Σq of each block [M][nb] (the zero point folded into the dot product)
	int32_t *init;  // Q4_GROUPS: corr in the first of each block's four lanes, 0 in the others [M][stride/8]
	volatile int nomem;
} q4Run;

// q4_quant quantizes rows [m0, m1) of r->A into r->qa, r->sa and r->corr (and init when
// r->layout is Q4_GROUPS).
void q4_quant(q4Run *r, int m0, int m1);

// q4Kernels are one instruction set's loops.
typedef struct {
	// panel computes columns [Q4_PANEL·p, +Q4_PANEL) of every row (level 4, M > Q4_GEMV_ROWS).
	void (*panel)(q4Run *r, int p);
	// gemv computes columns [n0, n1) of row m, streaming the weights (level 4, M ≤ Q4_GEMV_ROWS).
	void (*gemv)(q4Run *r, int m, int n0, int n1);
	int layout; // of the quantized rows gemv takes
	// gemv16 is gemv for weights in Q4_W_COLS16 (n0 and n1 multiples of Q4_W16), over rows in
	// layout Q4_ROWS.
	void (*gemv16)(q4Run *r, int m, int n0, int n1);
} q4Kernels;

extern const q4Kernels q4_avx2, q4_avxvnni, q4_avx512;

// A panel is Q4_PANEL columns' weights unpacked for the dot products: dword [b][d][c] holds
// dword d of block b of column c (see above), the columns past N zero; and their scales [b][c].
// q4_panel allocates one (64-byte aligned; NULL when out of memory; free the result), q4_scales
// fills the scales of the panel of columns from n0, q4_blocks points blk [Q4_PANEL] at block b
// of each of its columns (q4_zero, 16 zero bytes, past N; gathered into tmp in Q4_W_COLS16).
void *q4_panel(const q4Run *r, int32_t **w, float **ps);
void q4_scales(const q4Run *r, int n0, float *ps);
void q4_blocks(const q4Run *r, int n0, int b, const uint8_t **blk, uint8_t tmp[Q4_PANEL][16]);
extern const uint8_t q4_zero[16];

// q4_scale is the index in r->S of column n's block b's scale.
static inline size_t q4_scale(const q4Run *r, int n, int b) {
	if (r->wlayout == Q4_W_COLS16)
		return ((size_t)(n / Q4_W16) * r->nb + b) * Q4_W16 + n % Q4_W16;
	return (size_t)n * r->nb + b;
}

// q4_block points at column n's block b's 16 bytes (MatMulNBits' order), gathered into tmp in
// Q4_W_COLS16.
static inline const uint8_t *q4_block(const q4Run *r, int n, int b, uint8_t tmp[16]) {
	if (r->wlayout != Q4_W_COLS16)
		return r->B + ((size_t)n * r->nb + b) * 16;
	const uint8_t *p = r->B + ((size_t)(n / Q4_W16) * r->nb + b) * 16 * Q4_W16 + 4 * (n % Q4_W16);
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < 4; i++)
			tmp[4 * k + i] = p[4 * Q4_W16 * k + i];
	return tmp;
}

// q4_float computes columns [Q4_PANEL·p, +Q4_PANEL) of every row at level 0.
void q4_float(q4Run *r, int p);

// q4_swiglu writes rows [m0, m1) of h [M][K] from a [M][2K], each row gate | up:
// h = (gate · sigmoid(gate)) · up (swiglu.c).
void q4_swiglu(const float *a, float *h, int K, int m0, int m1);

// q4Norm is a call's RMS norm of its input (prenorm.c): rows of a [M][K] (plus skip, their sum
// written to sum when it is not NULL) normed with weight gamma [K] into h [M][K].
typedef struct {
	const float *a, *skip, *gamma; // skip NULL: no residual add
	float *sum, *h;                // sum NULL: the sum is not wanted
	int K;
	float eps;
} q4Norm;

// q4_prenorm writes rows [m0, m1) of n's h (and sum).
void q4_prenorm(const q4Norm *n, int m0, int m1);

// rmsNorm writes x [D] (D a multiple of 8) normed with weight w into y, rounding as ONNX
// Runtime's SimplifiedLayerNormalization does (op.c).
void rmsNorm(const float *x, float *y, int D, const float *w, float eps);

// q4_kernels are the loops q4_select (attnop.h) picked.
extern const q4Kernels *q4_kernels;

// attnop_define_matmul fills op with the operator's definition (matmul.c), for op.c.
struct OrtCustomOp;
void attnop_define_matmul(struct OrtCustomOp *op);

// q4_store writes the n ≤ Q4_PANEL values of v, plus bias, to y.
static inline void q4_store(const float *v, int n, const float *bias, float *y) {
	for (int c = 0; c < n; c++)
		y[c] = bias ? v[c] + bias[c] : v[c];
}

#endif
