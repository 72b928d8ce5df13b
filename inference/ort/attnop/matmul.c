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
//	         N a multiple of 16; 0 or absent: MatMulNBits'),
//	         prenorm (EdgeChat's: 1: the product's input is A's RMS norm, prenorm.c; 0 or absent: none)
//	         and epsilon (the norm's; 1e-5 when absent, as ONNX Runtime's norms)
//	with prenorm 1, also
//	inputs   gamma float32 [K] (input 6, the norm's weight), skip float32 of A's shape (input 7,
//	         optional: the norm is of A + skip, com.microsoft SkipSimplifiedLayerNormalization's)
//	output   sum float32 of A's shape (output 1, optional, with skip: A + skip, the residual
//	         stream the next layer reads)
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
	int prenorm; // the product's input is A's RMS norm
	float eps;   // the norm's epsilon
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

// actJob is the activation pass's state: h [M][K] from a [M][2K] (swiglu) or A's norm (prenorm,
// n), then, at level 4, h quantized (q4_quant on r, whose A is h), each item's rows while they are
// in its cache.
typedef struct {
	q4Run *r;
	const float *a; // the input A (r->A is h)
	float *h;       // NULL: A is the product's input as it is
	int swiglu, quant;
	q4Norm n;
} actJob;

static void activate(actJob *j, int m0, int m1) {
	if (j->swiglu)
		q4_swiglu(j->a, j->h, j->r->K, m0, m1);
	else if (j->h)
		q4_prenorm(&j->n, m0, m1);
	if (j->quant)
		q4_quant(j->r, m0, m1);
}

static void actItem(void *p, size_t i) {
	actJob *j = p;
	int m0 = (int)i * QUANT_ROWS, m1 = m0 + QUANT_ROWS < j->r->M ? m0 + QUANT_ROWS : j->r->M;
	activate(j, m0, m1);
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

// activation runs j's pass over all rows: on the calling thread when they are few, else on
// the intra-op threads.
static OrtStatus *activation(OrtKernelContext *ctx, actJob *j) {
	if (!j->h && !j->quant)
		return NULL;
	if ((size_t)j->r->M * j->r->K <= QUANT_INLINE) {
		activate(j, 0, j->r->M);
		return NULL;
	}
	return ORT(KernelContext_ParallelFor)(ctx, actItem, ((size_t)j->r->M + QUANT_ROWS - 1) / QUANT_ROWS, 0, j);
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
	if (!k->prenorm) {
		if ((nin > 6 && in[6]) || (nin > 7 && in[7]))
			return op_fail("EdgeChat MatMulNBits: gamma and skip need prenorm 1");
		return NULL;
	}
	if (nin < 7 || !in[6])
		return op_fail("EdgeChat MatMulNBits: with prenorm, the norm's weight gamma (input 6) is required");
	if ((st = count(in[6], d, &nd, &n)))
		return st;
	if (n != k->K)
		return op_fail("EdgeChat MatMulNBits: gamma must hold K values");
	if (nin > 7 && in[7]) {
		if ((st = count(in[7], d, &nd, &n)))
			return st;
		int same = nd == *nad;
		for (size_t i = 0; same && i < nd; i++)
			same = d[i] == ad[i];
		if (!same)
			return op_fail("EdgeChat MatMulNBits: skip must have A's shape");
	}
	return NULL;
}

static OrtStatus *mmCompute(void *p, OrtKernelContext *ctx) {
	const mmKernel *k = p;
	const OrtValue *in[8] = {0};
	size_t nin;
	OrtStatus *st = ORT(KernelContext_GetInputCount)(ctx, &nin);
	for (size_t i = 0; !st && i < nin && i < 8; i++)
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
	OrtValue *out, *sum = NULL;
	if (k->prenorm && nin > 7 && in[7] && (st = ORT(KernelContext_GetOutput)(ctx, 1, ad, nad, &sum)))
		return st; // sum is NULL when the node does not use output 1
	ad[nad - 1] = k->N;
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
	actJob j = {.r = &r, .a = r.A, .swiglu = k->swiglu, .quant = !k->float32};
	if (k->prenorm) {
		j.n = (q4Norm){.a = r.A, .gamma = NULL, .K = r.K, .eps = k->eps};
		if ((st = ORT(GetTensorMutableData)((OrtValue *)in[6], (void **)&j.n.gamma)))
			return st;
		if (nin > 7 && in[7] && (st = ORT(GetTensorMutableData)((OrtValue *)in[7], (void **)&j.n.skip)))
			return st;
		if (sum && (st = ORT(GetTensorMutableData)(sum, (void **)&j.n.sum)))
			return st;
	}
	if (k->swiglu || k->prenorm) { // the activation pass's output: the product's A
		if (!(j.h = j.n.h = malloc(sizeof(float) * (size_t)r.M * r.K)))
			return op_nomem("EdgeChat MatMulNBits");
		r.A = j.h;
	}
	size_t panels = ((size_t)r.N + Q4_PANEL - 1) / Q4_PANEL;
	if (k->float32) {
		st = activation(ctx, &j);
		if (!st)
			st = ORT(KernelContext_ParallelFor)(ctx, floatItem, panels, 0, &r);
		free(j.h);
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
	st = activation(ctx, &j);
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
	free(j.h);
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
	int64_t prenorm = op_int_attr(info, "prenorm", 0);
	if (prenorm != 0 && prenorm != 1)
		return op_fail("EdgeChat MatMulNBits: prenorm must be 0 or 1");
	if (prenorm && swiglu)
		return op_fail("EdgeChat MatMulNBits: prenorm and swiglu cannot both be set (the norm's input is K wide, swiglu's 2K)");
	k.prenorm = (int)prenorm;
	k.eps = op_float_attr(info, "epsilon", 1e-5f);
	if (!(k.eps >= 0))
		return op_fail("EdgeChat MatMulNBits: epsilon must not be negative");
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
static size_t mmInputs(const OrtCustomOp *op) { (void)op; return 8; }
static size_t mmOutputs(const OrtCustomOp *op) { (void)op; return 2; }

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

static OrtCustomOpInputOutputCharacteristic mmOutChar(const OrtCustomOp *op, size_t i) {
	(void)op;
	return i == 0 ? INPUT_OUTPUT_REQUIRED : INPUT_OUTPUT_OPTIONAL;
}

void attnop_define_matmul(OrtCustomOp *op) {
	op_define_common(op);
	op->GetName = mmName;
	op->GetInputType = mmInType;
	op->GetInputTypeCount = mmInputs;
	op->GetOutputType = mmOutType;
	op->GetOutputTypeCount = mmOutputs;
	op->GetInputCharacteristic = mmInChar;
	op->GetOutputCharacteristic = mmOutChar;
	op->CreateKernelV2 = mmCreate;
	op->KernelComputeV2 = mmCompute;
}
