// q4.h: an int4 block-32 matrix product (MatMulNBits' weight layout, zero point 8) with
// int8-quantized activations, as llama.cpp's Q4_0×Q8_0 does, on AVX-512 VNNI or AVX2.

#include <stddef.h>
#include <stdint.h>

// kb_init starts the worker threads (nth in all, the caller being one of them); isa is
// 0 for the best the CPU has, 1 for AVX2 (maddubs), 2 for AVX-512 VNNI. It returns the isa
// used, or -1 when the CPU has neither.
int kb_init(int nth, int isa);

// kb_quant quantizes x [M][K] (K a multiple of 512) to int8 blocks of 32: q [M][K] in the
// kernel's order, the block scales d [M][K/32] and init [M][K/8], which holds -8·Σq of each
// block (the zero point folded into the dot product's start), and de [M][K/8], each block
// scale four times (the lanes a block's sum has in the kernels).
void kb_quant(const float *x, int M, int K, int8_t *q, float *d, int32_t *init, float *de);

// kb_matmul computes y [M][N] = x · Wᵀ for W given as MatMulNBits' B [N][K/32][16] and
// scales [N][K/32], x quantized by kb_quant; N a multiple of 4.
void kb_matmul(const uint8_t *B, const float *S, int N, int K, const int8_t *q,
               const float *d, const int32_t *init, const float *de, int M, float *y);

// kb_read reads n bytes at p (32-byte aligned, n a multiple of 128) on the pool's threads:
// the memory bandwidth the kernels can hope for.
uint64_t kb_read(const uint8_t *p, size_t n);

// The pieces, for a caller with its own threads (an ONNX Runtime custom operator): quantize
// rows [m0, m1); the job of kb_matmul is kb_items(N, M) independent items.
typedef struct {
	const uint8_t *B;
	const float *S;
	int N, K, M;
	const int8_t *q;
	const float *d;
	const int32_t *init;
	const float *de;
	float *y;
} kb_job;

void kb_quant_rows(const float *x, int m0, int m1, int K, int8_t *q, float *d, int32_t *init, float *de);
int kb_items(int N, int M);
void kb_matmul_item(const kb_job *j, int item);
