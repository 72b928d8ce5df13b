//go:build cgo && (amd64 || arm64) && (linux || windows)

// opdef.c: the parts of the operators' definitions they share (opdef.h).

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opdef.h"

OrtStatus *op_fail(const char *msg) { return ORT(CreateStatus)(ORT_INVALID_ARGUMENT, msg); }

OrtStatus *op_nomem(const char *what) {
	char msg[128];
	snprintf(msg, sizeof msg, "%s: out of memory", what);
	return ORT(CreateStatus)(ORT_FAIL, msg);
}

int64_t op_int_attr(const OrtKernelInfo *info, const char *name, int64_t def) {
	int64_t v;
	OrtStatus *st = ORT(KernelInfoGetAttribute_int64)(info, name, &v);
	if (st) {
		ORT(ReleaseStatus)(st);
		return def;
	}
	return v;
}

float op_float_attr(const OrtKernelInfo *info, const char *name, float def) {
	float v;
	OrtStatus *st = ORT(KernelInfoGetAttribute_float)(info, name, &v);
	if (st) {
		ORT(ReleaseStatus)(st);
		return def;
	}
	return v;
}

static const char *providerCPU(const OrtCustomOp *op) { (void)op; return "CPUExecutionProvider"; }
static void destroy(void *k) { free(k); }
static int one(const OrtCustomOp *op) { (void)op; return 1; }
static int zero(const OrtCustomOp *op) { (void)op; return 0; }
static int endVersion(const OrtCustomOp *op) { (void)op; return INT_MAX; }
static OrtMemType memDefault(const OrtCustomOp *op, size_t i) { (void)op, (void)i; return OrtMemTypeDefault; }
static OrtCustomOpInputOutputCharacteristic required(const OrtCustomOp *op, size_t i) { (void)op, (void)i; return INPUT_OUTPUT_REQUIRED; }

void op_define_common(OrtCustomOp *op) {
	memset(op, 0, sizeof *op);
	op->version = ORTAPI_VERSION; // ONNX Runtime reads the fields of this version, no further
	op->GetExecutionProviderType = providerCPU;
	op->KernelDestroy = destroy;
	op->GetOutputCharacteristic = required;
	op->GetInputMemoryType = memDefault;
	op->GetVariadicInputMinArity = one;
	op->GetVariadicInputHomogeneity = zero;
	op->GetVariadicOutputMinArity = one;
	op->GetVariadicOutputHomogeneity = zero;
	op->GetStartVersion = one;
	op->GetEndVersion = endVersion;
}
