//go:build cgo && amd64 && (linux || windows)

// matmul.c: the int4 matrix product as an ONNX Runtime custom operator, op type MatMulNBits in
// the float32 kernels' domain (registered with them by op.c), with com.microsoft MatMulNBits'
// contract as EdgeChat's copies use it:
//
//	inputs   A float32 [..., K], B uint8 [N, K/32, 16], scales float32 [N·K/32], zero_points and
//	         g_idx absent or empty, bias float32 [N] (optional)
//	output   Y float32 [..., N]
//	attrs    K, N, bits 4, block_size 32, accuracy_level (0: float compute; else MLAS's level 4),
//	         swiglu (EdgeChat's: 1: A is [..., 2K], gate | up, and the product's input is
//	         silu(gate) · up, computed before quantizing (swiglu.c); 0 or absent: none), layout
//	         (EdgeChat's: 1: B and scales hold the same values in Q4_W_COLS16's order, matmul.h,
//	         N a multiple of 16; 0 or absent: MatMulNBits')
//
// Every length the loops rely on is checked here; a wrong one is an error, never a read out of
// bounds. Items run on ONNX Runtime's intra-op threads (KernelContext_ParallelFor): the rows'
// quantization, then panels of 32 columns (many rows) or column ranges (up to Q4_GEMV_ROWS rows,
// streaming the weights).

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "matmul.h"
#include "opdef.h"
#include "ortapi.h"

#define GEMV_COLS 64 // columns of a one-row item
#define QUANT_ROWS 8 // rows of a quantization item
#define QUANT_INLINE (1 << 17) // activations quantized on the calling thread, at most (~50 µs: less than waking a worker may take)

typedef struct {
	int64_t K, N;
	int float32; // accuracy level 0
	int swiglu;  // A is gate | up, 2K wide
	int wlayout; // Q4_W_NBITS or Q4_W_COLS16
} mmKernel;


// count reads v's shape into d (at most 8 dimensions) and its element count into n.
static OrtStatus *count(const OrtValue *v, int64_t *d, size_t *nd, int64_t *n) {
	OrtTensorTypeAndShapeInfo *info;
	OrtStatus *st = ORT(GetTensorTypeAndShape)(v, &info);
	if (st)
		return st;
	st = ORT(GetDimensionsCount)(info, nd);
	if (!st && *nd > 8)
		st = op_fail("EdgeChat MatMulNBits: an input has more than 8 dimensions");
	if (!st)
		st = ORT(GetDimensions)(info, d, *nd);
	ORT(ReleaseTensorTypeAndShapeInfo)(info);
	*n = 1;
	for (size_t i = 0; !st && i < *nd; i++)
		*n *= d[i];
	return st;
}

static void quantItem(void *p, size_t i) {
	q4Run *r = p;
	int m0 = (int)i * QUANT_ROWS, m1 = m0 + QUANT_ROWS < r->M ? m0 + QUANT_ROWS : r->M;
	q4_quant(r, m0, m1);
}

// swigluJob is the activation pass's state: h [M][K] from a [M][2K].
typedef struct {
	const float *a;
	float *h;
	int M, K;
} swigluJob;

static void swigluItem(void *p, size_t i) {
	swigluJob *j = p;
	int m0 = (int)i * QUANT_ROWS, m1 = m0 + QUANT_ROWS < j->M ? m0 + QUANT_ROWS : j->M;
	q4_swiglu(j->a, j->h, j->K, m0, m1);
}

static void panelItem(void *p, size_t i) { q4_kernels->panel(p, (int)i); }
static void floatItem(void *p, size_t i) { q4_float(p, (int)i); }

static void gemvItem(void *p, size_t i) {
	q4Run *r = p;
	int n0 = (int)i * GEMV_COLS, n1 = n0 + GEMV_COLS < r->N ? n0 + GEMV_COLS : r->N;
	void (*gemv)(q4Run *, int, int, int) = r->wlayout == Q4_W_COLS16 ? q4_kernels->gemv16 : q4_kernels->gemv;
	for (int m = 0; m < r->M; m++) // the item's weights come from memory once, from the caches for the other rows
		gemv(r, m, n0, n1);
}

// checkInputs checks the inputs' lengths against the attributes and reads A's rows M.
static OrtStatus *checkInputs(const mmKernel *k, const OrtValue **in, size_t nin, int64_t *ad, size_t *nad, int64_t *M) {
	int64_t d[8], n;
	size_t nd;
	OrtStatus *st = count(in[0], ad, nad, &n);
	if (st)
		return st;
	int64_t width = k->swiglu ? 2 * k->K : k->K;
	if (*nad < 1 || ad[*nad - 1] != width)
		return op_fail(k->swiglu ? "EdgeChat MatMulNBits: with swiglu, A's last dimension must be twice the attribute K (gate | up)"
		                        : "EdgeChat MatMulNBits: A's last dimension must be the attribute K");
	*M = n / width;
	if (*M > INT_MAX)
		return op_fail("EdgeChat MatMulNBits: A has too many rows");
	if ((st = count(in[1], d, &nd, &n)))
		return st;
	if (n != k->N * (k->K / 32) * 16)
		return op_fail("EdgeChat MatMulNBits: B must hold N × K/32 blocks of 16 bytes ([N, K/32, 16])");
	if ((st = count(in[2], d, &nd, &n)))
		return st;
	if (n != k->N * (k->K / 32))
		return op_fail("EdgeChat MatMulNBits: scales must hold N × K/32 values (one a block)");
	for (size_t i = 3; i < nin && i < 5; i++) {
		if (!in[i])
			continue;
		if ((st = count(in[i], d, &nd, &n)))
			return st;
		if (n != 0)
			return op_fail("EdgeChat MatMulNBits: zero_points and g_idx are not supported (absent or empty only)");
	}
	if (nin > 5 && in[5]) {
		if ((st = count(in[5], d, &nd, &n)))
			return st;
		if (n != k->N)
			return op_fail("EdgeChat MatMulNBits: bias must hold N values");
	}
	return NULL;
}

static OrtStatus *mmCompute(void *p, OrtKernelContext *ctx) {
	const mmKernel *k = p;
	const OrtValue *in[6] = {0};
	size_t nin;
	OrtStatus *st = ORT(KernelContext_GetInputCount)(ctx, &nin);
	for (size_t i = 0; !st && i < nin && i < 6; i++)
		st = ORT(KernelContext_GetInput)(ctx, i, &in[i]);
	if (st)
		return st;
	if (!in[0] || !in[1] || !in[2])
		return op_fail("EdgeChat MatMulNBits: inputs A, B and scales are required");
	if (!q4_kernels)
		return ORT(CreateStatus)(ORT_FAIL, "EdgeChat MatMulNBits: this CPU lacks AVX2 and FMA");
	int64_t ad[8], M;
	size_t nad;
	if ((st = checkInputs(k, in, nin, ad, &nad, &M)))
		return st;
	ad[nad - 1] = k->N;
	OrtValue *out;
	if ((st = ORT(KernelContext_GetOutput)(ctx, 0, ad, nad, &out)))
		return st;
	q4Run r = {.M = (int)M, .N = (int)k->N, .K = (int)k->K, .nb = (int)k->K / 32, .wlayout = k->wlayout};
	if (M == 0)
		return NULL;
	if ((st = ORT(GetTensorMutableData)(out, (void **)&r.Y)) ||
	    (st = ORT(GetTensorMutableData)((OrtValue *)in[0], (void **)&r.A)) ||
	    (st = ORT(GetTensorMutableData)((OrtValue *)in[1], (void **)&r.B)) ||
	    (st = ORT(GetTensorMutableData)((OrtValue *)in[2], (void **)&r.S)))
		return st;
	if (nin > 5 && in[5] && (st = ORT(GetTensorMutableData)((OrtValue *)in[5], (void **)&r.bias)))
		return st;
	float *h = NULL; // the activation pass's output: the product's A
	if (k->swiglu) {
		swigluJob j = {.a = r.A, .M = r.M, .K = r.K};
		if (!(h = j.h = malloc(sizeof(float) * (size_t)r.M * r.K)))
			return op_nomem("EdgeChat MatMulNBits");
		if ((size_t)r.M * r.K <= QUANT_INLINE)
			q4_swiglu(j.a, h, r.K, 0, r.M);
		else if ((st = ORT(KernelContext_ParallelFor)(ctx, swigluItem, ((size_t)r.M + QUANT_ROWS - 1) / QUANT_ROWS, 0, &j))) {
			free(h);
			return st;
		}
		r.A = h;
	}
	size_t panels = ((size_t)r.N + Q4_PANEL - 1) / Q4_PANEL;
	if (k->float32) {
		st = ORT(KernelContext_ParallelFor)(ctx, floatItem, panels, 0, &r);
		free(h);
		return !st && r.nomem ? op_nomem("EdgeChat MatMulNBits") : st;
	}
	int streaming = r.M <= Q4_GEMV_ROWS;
	r.layout = streaming && r.wlayout == Q4_W_NBITS ? q4_kernels->layout : Q4_ROWS;
	r.stride = r.layout == Q4_GROUPS ? ((size_t)r.K + 127) / 128 * 128 : (size_t)r.K;
	size_t lanes = r.layout == Q4_GROUPS ? (size_t)r.M * (r.stride / 8) : 0;
	r.qa = calloc((size_t)r.M * r.stride, 1);
	r.sa = malloc(sizeof(float) * (size_t)r.M * r.nb);
	r.corr = calloc((size_t)r.M * r.nb + lanes, sizeof(int32_t));
	if (!r.qa || !r.sa || !r.corr) {
		st = op_nomem("EdgeChat MatMulNBits");
		goto done;
	}
	if (lanes)
		r.init = r.corr + (size_t)r.M * r.nb;
	if ((size_t)r.M * r.K <= QUANT_INLINE)
		q4_quant(&r, 0, r.M);
	else
		st = ORT(KernelContext_ParallelFor)(ctx, quantItem, ((size_t)r.M + QUANT_ROWS - 1) / QUANT_ROWS, 0, &r);
	if (!st && streaming)
		st = ORT(KernelContext_ParallelFor)(ctx, gemvItem, ((size_t)r.N + GEMV_COLS - 1) / GEMV_COLS, 0, &r);
	else if (!st)
		st = ORT(KernelContext_ParallelFor)(ctx, panelItem, panels, 0, &r);
	if (!st && r.nomem)
		st = op_nomem("EdgeChat MatMulNBits");
done:
	free(r.qa);
	free(r.sa);
	free(r.corr);
	free(h);
	return st;
}

// ---- the operator's definition ----------------------------------------------------------------

static OrtStatus *mmCreate(const OrtCustomOp *op, const OrtApi *a, const OrtKernelInfo *info, void **out) {
	(void)op, (void)a;
	mmKernel k = {.K = op_int_attr(info, "K", 0), .N = op_int_attr(info, "N", 0), .float32 = op_int_attr(info, "accuracy_level", 0) == 0};
	int64_t swiglu = op_int_attr(info, "swiglu", 0);
	if (swiglu != 0 && swiglu != 1)
		return op_fail("EdgeChat MatMulNBits: swiglu must be 0 or 1");
	k.swiglu = (int)swiglu;
	int64_t layout = op_int_attr(info, "layout", 0);
	if (layout != Q4_W_NBITS && layout != Q4_W_COLS16)
		return op_fail("EdgeChat MatMulNBits: layout must be 0 or 1");
	k.wlayout = (int)layout;
	if (op_int_attr(info, "bits", 4) != 4 || op_int_attr(info, "block_size", 0) != 32)
		return op_fail("EdgeChat MatMulNBits: only bits 4 and block_size 32 are supported");
	if (k.K <= 0 || k.K % 32 || k.N <= 0 || k.K > INT_MAX / 32 || k.N > INT_MAX / 32)
		return op_fail("EdgeChat MatMulNBits: K must be a positive multiple of 32 and N positive");
	if (k.wlayout == Q4_W_COLS16 && k.N % Q4_W16)
		return op_fail("EdgeChat MatMulNBits: layout 1 takes N a multiple of 16");
	mmKernel *p = malloc(sizeof *p);
	if (!p)
		return op_nomem("EdgeChat MatMulNBits");
	*p = k;
	*out = p;
	return NULL;
}

static const char *mmName(const OrtCustomOp *op) { (void)op; return "MatMulNBits"; }
static size_t mmInputs(const OrtCustomOp *op) { (void)op; return 6; }
static size_t mmOutputs(const OrtCustomOp *op) { (void)op; return 1; }

static ONNXTensorElementDataType mmInType(const OrtCustomOp *op, size_t i) {
	(void)op;
	switch (i) {
	case 1:
	case 3:
		return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
	case 4:
		return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
	default:
		return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
	}
}

static ONNXTensorElementDataType mmOutType(const OrtCustomOp *op, size_t i) {
	(void)op, (void)i;
	return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}

static OrtCustomOpInputOutputCharacteristic mmInChar(const OrtCustomOp *op, size_t i) {
	(void)op;
	return i < 3 ? INPUT_OUTPUT_REQUIRED : INPUT_OUTPUT_OPTIONAL;
}

void attnop_define_matmul(OrtCustomOp *op) {
	op_define_common(op);
	op->GetName = mmName;
	op->GetInputType = mmInType;
	op->GetInputTypeCount = mmInputs;
	op->GetOutputType = mmOutType;
	op->GetOutputTypeCount = mmOutputs;
	op->GetInputCharacteristic = mmInChar;
	op->CreateKernelV2 = mmCreate;
	op->KernelComputeV2 = mmCompute;
}
