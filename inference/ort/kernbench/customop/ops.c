// ops.c: an ONNX Runtime custom-operator library, built by gcc (build.sh), for the plumbing
// prototype of inference/ort/kernbench (see ../NOTES.md). Domain "kernbench":
//
//	Affine(X) = 2·X + 1                          the trivial operator that shows registration works
//	Q4MatMul(A, B, scales; K, N) = A · Wᵀ        MatMulNBits' inputs (bits 4, block 32, no zero
//	                                             points) on ../q4.c's kernel, on ONNX Runtime's
//	                                             intra-op threads (KernelContext_ParallelFor)
//
// and the same kernel as kernbench.ops.MatMulNBits, for whole models (e2e.go). The attention
// kernel that was attn.c here is now inference/ort/attnop, compiled into the binary.
//
// Exports RegisterCustomOps (what RegisterCustomOpsLibrary_V2 calls) and kb_register, which
// registers this library on a session's options through OrtGetApiBase()->GetApi(...), so that
// the Go side needs no ONNX Runtime header.

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "onnxruntime_c_api.h"
#include "../q4.h"

static const OrtApi *api;

#define CHECK(expr)                                                                                \
	do {                                                                                       \
		OrtStatus *st_ = (expr);                                                           \
		if (st_)                                                                           \
			return st_;                                                                \
	} while (0)

// ---- defaults for the optional parts of OrtCustomOp -------------------------------------------

static const char *ORT_API_CALL providerCPU(const OrtCustomOp *op) { (void)op; return "CPUExecutionProvider"; }
static OrtCustomOpInputOutputCharacteristic ORT_API_CALL required(const OrtCustomOp *op, size_t i) {
	(void)op, (void)i;
	return INPUT_OUTPUT_REQUIRED;
}
static OrtMemType ORT_API_CALL memDefault(const OrtCustomOp *op, size_t i) { (void)op, (void)i; return OrtMemTypeDefault; }
static int ORT_API_CALL one(const OrtCustomOp *op) { (void)op; return 1; }
static int ORT_API_CALL zero(const OrtCustomOp *op) { (void)op; return 0; }
static int ORT_API_CALL endVersion(const OrtCustomOp *op) { (void)op; return INT_MAX; }
static size_t ORT_API_CALL noPairs(int **in, int **out) { *in = *out = NULL; return 0; }
static void ORT_API_CALL freePairs(int *in, int *out) { free(in), free(out); }
static ONNXTensorElementDataType ORT_API_CALL floatType(const OrtCustomOp *op, size_t i) {
	(void)op, (void)i;
	return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}
static size_t ORT_API_CALL oneIO(const OrtCustomOp *op) { (void)op; return 1; }

static void defaults(OrtCustomOp *op) {
	memset(op, 0, sizeof *op);
	op->version = ORT_API_VERSION;
	op->GetExecutionProviderType = providerCPU;
	op->GetInputCharacteristic = required;
	op->GetOutputCharacteristic = required;
	op->GetInputMemoryType = memDefault;
	op->GetVariadicInputMinArity = one;
	op->GetVariadicInputHomogeneity = zero;
	op->GetVariadicOutputMinArity = one;
	op->GetVariadicOutputHomogeneity = zero;
	op->GetStartVersion = one;
	op->GetEndVersion = endVersion;
	op->GetMayInplace = noPairs;
	op->ReleaseMayInplace = freePairs;
	op->GetAliasMap = noPairs;
	op->ReleaseAliasMap = freePairs;
}

// ---- Affine -----------------------------------------------------------------------------------

static const char *ORT_API_CALL affineName(const OrtCustomOp *op) { (void)op; return "Affine"; }

static OrtStatus *ORT_API_CALL affineCreate(const OrtCustomOp *op, const OrtApi *a, const OrtKernelInfo *info, void **k) {
	(void)op, (void)a, (void)info;
	*k = malloc(1);
	return NULL;
}

static OrtStatus *ORT_API_CALL affineCompute(void *k, OrtKernelContext *ctx) {
	(void)k;
	const OrtValue *in;
	OrtValue *out;
	OrtTensorTypeAndShapeInfo *info;
	size_t nd, count;
	int64_t dims[16];
	CHECK(api->KernelContext_GetInput(ctx, 0, &in));
	CHECK(api->GetTensorTypeAndShape(in, &info));
	OrtStatus *st = api->GetDimensionsCount(info, &nd);
	if (!st && nd > 16)
		st = api->CreateStatus(ORT_INVALID_ARGUMENT, "Affine: more than 16 dimensions");
	if (!st)
		st = api->GetDimensions(info, dims, nd);
	if (!st)
		st = api->GetTensorShapeElementCount(info, &count);
	api->ReleaseTensorTypeAndShapeInfo(info);
	CHECK(st);
	CHECK(api->KernelContext_GetOutput(ctx, 0, dims, nd, &out));
	const float *x;
	float *y;
	CHECK(api->GetTensorData(in, (const void **)&x));
	CHECK(api->GetTensorMutableData(out, (void **)&y));
	for (size_t i = 0; i < count; i++)
		y[i] = 2 * x[i] + 1;
	return NULL;
}

static void ORT_API_CALL freeKernel(void *k) { free(k); }

// ---- Q4MatMul ---------------------------------------------------------------------------------

typedef struct {
	int64_t K, N;
	size_t cap; // rows the buffers hold
	int8_t *q;
	float *d, *de;
	int32_t *init;
} q4kernel;

static const char *ORT_API_CALL q4Name(const OrtCustomOp *op) { (void)op; return "Q4MatMul"; }
static size_t ORT_API_CALL threeIn(const OrtCustomOp *op) { (void)op; return 3; }
static ONNXTensorElementDataType ORT_API_CALL q4InType(const OrtCustomOp *op, size_t i) {
	(void)op;
	return i == 1 ? ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 : ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}

static OrtStatus *ORT_API_CALL q4Create(const OrtCustomOp *op, const OrtApi *a, const OrtKernelInfo *info, void **out) {
	(void)op, (void)a;
	q4kernel *k = calloc(1, sizeof *k);
	OrtStatus *st = api->KernelInfoGetAttribute_int64(info, "K", &k->K);
	if (!st)
		st = api->KernelInfoGetAttribute_int64(info, "N", &k->N);
	if (!st && (k->K % 512 || k->K > 4096 || k->N % 4))
		st = api->CreateStatus(ORT_INVALID_ARGUMENT, "Q4MatMul: K must be a multiple of 512 up to 4096, N a multiple of 4");
	if (st) {
		free(k);
		return st;
	}
	*out = k;
	return NULL;
}

static void ORT_API_CALL q4Free(void *p) {
	q4kernel *k = p;
	free(k->q), free(k->d), free(k->de), free(k->init), free(k);
}

typedef struct {
	const float *x;
	int M, K;
	q4kernel *k;
	kb_job job;
} q4run;

static void quantBatch(void *p, size_t i) {
	q4run *r = p;
	int m0 = (int)i * 8, m1 = m0 + 8 < r->M ? m0 + 8 : r->M;
	kb_quant_rows(r->x, m0, m1, r->K, r->k->q, r->k->d, r->k->init, r->k->de);
}

static void matmulItem(void *p, size_t i) { kb_matmul_item(&((q4run *)p)->job, (int)i); }

static OrtStatus *ORT_API_CALL q4Compute(void *p, OrtKernelContext *ctx) {
	q4kernel *k = p;
	const OrtValue *a, *b, *s;
	OrtValue *out;
	OrtTensorTypeAndShapeInfo *info;
	size_t nd, count;
	int64_t dims[8];
	CHECK(api->KernelContext_GetInput(ctx, 0, &a));
	CHECK(api->KernelContext_GetInput(ctx, 1, &b));
	CHECK(api->KernelContext_GetInput(ctx, 2, &s));
	CHECK(api->GetTensorTypeAndShape(a, &info));
	OrtStatus *st = api->GetDimensionsCount(info, &nd);
	if (!st && (nd > 8 || nd == 0))
		st = api->CreateStatus(ORT_INVALID_ARGUMENT, "Q4MatMul: A must have 1 to 8 dimensions");
	if (!st)
		st = api->GetDimensions(info, dims, nd);
	if (!st)
		st = api->GetTensorShapeElementCount(info, &count);
	api->ReleaseTensorTypeAndShapeInfo(info);
	CHECK(st);
	if (dims[nd - 1] != k->K)
		return api->CreateStatus(ORT_INVALID_ARGUMENT, "Q4MatMul: A's last dimension is not K");
	int M = (int)(count / k->K);
	dims[nd - 1] = k->N;
	CHECK(api->KernelContext_GetOutput(ctx, 0, dims, nd, &out));
	if ((size_t)M > k->cap) {
		free(k->q), free(k->d), free(k->de), free(k->init);
		k->q = malloc((size_t)M * k->K);
		k->d = malloc((size_t)M * k->K / 32 * sizeof(float));
		k->de = malloc((size_t)M * k->K / 8 * sizeof(float));
		k->init = malloc((size_t)M * k->K / 8 * sizeof(int32_t));
		k->cap = M;
	}
	q4run r = {.M = M, .K = (int)k->K, .k = k};
	const void *bp, *sp;
	CHECK(api->GetTensorData(a, (const void **)&r.x));
	CHECK(api->GetTensorData(b, &bp));
	CHECK(api->GetTensorData(s, &sp));
	float *y;
	CHECK(api->GetTensorMutableData(out, (void **)&y));
	if (M == 0)
		return NULL;
	CHECK(api->KernelContext_ParallelFor(ctx, quantBatch, (size_t)(M + 7) / 8, 0, &r));
	r.job = (kb_job){bp, sp, (int)k->N, (int)k->K, M, k->q, k->d, k->init, k->de, y};
	return api->KernelContext_ParallelFor(ctx, matmulItem, (size_t)kb_items((int)k->N, M), 0, &r);
}

// ---- registration -----------------------------------------------------------------------------

static OrtCustomOp affine, q4, q4alias;

// The alias serves a whole model whose MatMulNBits nodes had their domain changed from
// com.microsoft to kernbench.ops (the same length: a byte patch of the graph, see e2e.go).
static const char *ORT_API_CALL aliasName(const OrtCustomOp *op) { (void)op; return "MatMulNBits"; }

OrtStatus *ORT_API_CALL RegisterCustomOps(OrtSessionOptions *options, const OrtApiBase *base) {
	api = base->GetApi(ORT_API_VERSION);
	if (!api)
		return NULL; // cannot even make a status: this ONNX Runtime is older than the header
	if (kb_init(1, 0) < 0)
		return api->CreateStatus(ORT_FAIL, "kernbench ops: this CPU has neither AVX-512 VNNI nor AVX2");
	defaults(&affine);
	affine.GetName = affineName;
	affine.GetInputType = floatType;
	affine.GetInputTypeCount = oneIO;
	affine.GetOutputType = floatType;
	affine.GetOutputTypeCount = oneIO;
	affine.CreateKernelV2 = affineCreate;
	affine.KernelComputeV2 = affineCompute;
	affine.KernelDestroy = freeKernel;
	defaults(&q4);
	q4.GetName = q4Name;
	q4.GetInputType = q4InType;
	q4.GetInputTypeCount = threeIn;
	q4.GetOutputType = floatType;
	q4.GetOutputTypeCount = oneIO;
	q4.CreateKernelV2 = q4Create;
	q4.KernelComputeV2 = q4Compute;
	q4.KernelDestroy = q4Free;
	q4alias = q4;
	q4alias.GetName = aliasName;
	OrtCustomOpDomain *domain, *alias;
	CHECK(api->CreateCustomOpDomain("kernbench", &domain));
	CHECK(api->CustomOpDomain_Add(domain, &affine));
	CHECK(api->CustomOpDomain_Add(domain, &q4));
	CHECK(api->AddCustomOpDomain(options, domain)); // domains must outlive the sessions: kept
	CHECK(api->CreateCustomOpDomain("kernbench.ops", &alias));
	CHECK(api->CustomOpDomain_Add(alias, &q4alias));
	return api->AddCustomOpDomain(options, alias);
}

// kb_register registers the library at path on options through the ONNX Runtime whose
// OrtGetApiBase is getBase: RegisterCustomOpsLibrary_V2, which loads it again and calls
// RegisterCustomOps. It returns NULL or ONNX Runtime's error message (to be freed).
char *kb_register(const OrtApiBase *(*getBase)(void), OrtSessionOptions *options, const char *path) {
	const OrtApi *a = getBase()->GetApi(ORT_API_VERSION);
	if (!a)
		return strdup("this ONNX Runtime does not serve the C API version of the header");
	OrtStatus *st = a->RegisterCustomOpsLibrary_V2(options, path);
	if (!st)
		return NULL;
	char *msg = strdup(a->GetErrorMessage(st));
	a->ReleaseStatus(st);
	return msg;
}

