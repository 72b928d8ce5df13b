//go:build cgo && (amd64 || arm64) && (linux || windows)

// ortapi.h: the part of ONNX Runtime's C API (onnxruntime_c_api.h) that attn.c and op.c use,
// declared by hand so that the package carries no copy of that 370 KB header. It follows ONNX
// Runtime C API version 17 (ONNX Runtime 1.17), the lowest that has every entry used here
// (KernelContext_ParallelFor came in 17): GetApi is asked for ORTAPI_VERSION, so newer runtimes
// serve it and older ones refuse. The OrtApi entries are named by their index in the table
// (which only ever grows at its end); header_test.go checks the indices, the OrtCustomOp offsets
// and the enum values against the real header when one can be found.

#ifndef ATTNOP_ORTAPI_H
#define ATTNOP_ORTAPI_H

#include <stddef.h>
#include <stdint.h>

#define ORTAPI_VERSION 17

typedef struct OrtStatus OrtStatus;
typedef struct OrtValue OrtValue;
typedef struct OrtKernelInfo OrtKernelInfo;
typedef struct OrtKernelContext OrtKernelContext;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtCustomOpDomain OrtCustomOpDomain;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtShapeInferContext OrtShapeInferContext;
typedef struct OrtApi OrtApi; // a table of function pointers, read through ORTAPI_FN

typedef enum { ORT_OK = 0, ORT_FAIL = 1, ORT_INVALID_ARGUMENT = 2 } OrtErrorCode;
typedef enum {
	ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1,
	ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 = 2,
	ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8 = 3,
	ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 = 6,
} ONNXTensorElementDataType;
typedef enum { INPUT_OUTPUT_REQUIRED = 0, INPUT_OUTPUT_OPTIONAL = 1 } OrtCustomOpInputOutputCharacteristic;
typedef enum { OrtMemTypeDefault = 0 } OrtMemType;

typedef struct OrtApiBase {
	const OrtApi *(*GetApi)(uint32_t version);
	const char *(*GetVersionString)(void);
} OrtApiBase;

// OrtCustomOp up to the fields of version 17 (GetStartVersion, GetEndVersion): ONNX Runtime
// reads no field past the version the operator states.
typedef struct OrtCustomOp {
	uint32_t version;
	void *(*CreateKernel)(const struct OrtCustomOp *op, const OrtApi *api, const OrtKernelInfo *info);
	const char *(*GetName)(const struct OrtCustomOp *op);
	const char *(*GetExecutionProviderType)(const struct OrtCustomOp *op);
	ONNXTensorElementDataType (*GetInputType)(const struct OrtCustomOp *op, size_t index);
	size_t (*GetInputTypeCount)(const struct OrtCustomOp *op);
	ONNXTensorElementDataType (*GetOutputType)(const struct OrtCustomOp *op, size_t index);
	size_t (*GetOutputTypeCount)(const struct OrtCustomOp *op);
	void (*KernelCompute)(void *kernel, OrtKernelContext *context);
	void (*KernelDestroy)(void *kernel);
	OrtCustomOpInputOutputCharacteristic (*GetInputCharacteristic)(const struct OrtCustomOp *op, size_t index);
	OrtCustomOpInputOutputCharacteristic (*GetOutputCharacteristic)(const struct OrtCustomOp *op, size_t index);
	OrtMemType (*GetInputMemoryType)(const struct OrtCustomOp *op, size_t index);
	int (*GetVariadicInputMinArity)(const struct OrtCustomOp *op);
	int (*GetVariadicInputHomogeneity)(const struct OrtCustomOp *op);
	int (*GetVariadicOutputMinArity)(const struct OrtCustomOp *op);
	int (*GetVariadicOutputHomogeneity)(const struct OrtCustomOp *op);
	OrtStatus *(*CreateKernelV2)(const struct OrtCustomOp *op, const OrtApi *api, const OrtKernelInfo *info, void **kernel);
	OrtStatus *(*KernelComputeV2)(void *kernel, OrtKernelContext *context);
	OrtStatus *(*InferOutputShapeFn)(const struct OrtCustomOp *op, OrtShapeInferContext *ctx);
	int (*GetStartVersion)(const struct OrtCustomOp *op);
	int (*GetEndVersion)(const struct OrtCustomOp *op);
} OrtCustomOp;

// The OrtApi entries used, by index.
#define ORTAPI_CreateStatus 0
#define ORTAPI_GetErrorMessage 2
#define ORTAPI_CreateCustomOpDomain 26
#define ORTAPI_CustomOpDomain_Add 27
#define ORTAPI_AddCustomOpDomain 28
#define ORTAPI_GetTensorMutableData 51
#define ORTAPI_GetDimensionsCount 61
#define ORTAPI_GetDimensions 62
#define ORTAPI_GetTensorTypeAndShape 65
#define ORTAPI_KernelInfoGetAttribute_float 85
#define ORTAPI_KernelInfoGetAttribute_int64 86
#define ORTAPI_KernelContext_GetInputCount 88
#define ORTAPI_KernelContext_GetInput 90
#define ORTAPI_KernelContext_GetOutput 91
#define ORTAPI_ReleaseStatus 93
#define ORTAPI_ReleaseTensorTypeAndShapeInfo 99
#define ORTAPI_GetSessionConfigEntry 238
#define ORTAPI_KernelContext_ParallelFor 274

// ORTAPI_FN is entry i of the table api, as a function pointer of type T.
#define ORTAPI_FN(api, i, T) ((T)(((void *const *)(api))[i]))

// The entries' signatures.
typedef OrtStatus *(*ortCreateStatus)(OrtErrorCode code, const char *msg);
typedef const char *(*ortGetErrorMessage)(const OrtStatus *status);
typedef OrtStatus *(*ortCreateCustomOpDomain)(const char *domain, OrtCustomOpDomain **out);
typedef OrtStatus *(*ortCustomOpDomain_Add)(OrtCustomOpDomain *domain, const OrtCustomOp *op);
typedef OrtStatus *(*ortAddCustomOpDomain)(OrtSessionOptions *options, OrtCustomOpDomain *domain);
typedef OrtStatus *(*ortGetTensorMutableData)(OrtValue *value, void **out);
typedef OrtStatus *(*ortGetDimensionsCount)(const OrtTensorTypeAndShapeInfo *info, size_t *out);
typedef OrtStatus *(*ortGetDimensions)(const OrtTensorTypeAndShapeInfo *info, int64_t *dims, size_t n);
typedef OrtStatus *(*ortGetTensorTypeAndShape)(const OrtValue *value, OrtTensorTypeAndShapeInfo **out);
typedef OrtStatus *(*ortKernelInfoGetAttribute_float)(const OrtKernelInfo *info, const char *name, float *out);
typedef OrtStatus *(*ortKernelInfoGetAttribute_int64)(const OrtKernelInfo *info, const char *name, int64_t *out);
typedef OrtStatus *(*ortKernelContext_GetInputCount)(const OrtKernelContext *ctx, size_t *out);
typedef OrtStatus *(*ortKernelContext_GetInput)(const OrtKernelContext *ctx, size_t index, const OrtValue **out);
typedef OrtStatus *(*ortKernelContext_GetOutput)(OrtKernelContext *ctx, size_t index, const int64_t *dims, size_t n, OrtValue **out);
typedef void (*ortReleaseStatus)(OrtStatus *status);
typedef void (*ortReleaseTensorTypeAndShapeInfo)(OrtTensorTypeAndShapeInfo *info);
typedef OrtStatus *(*ortGetSessionConfigEntry)(const OrtSessionOptions *options, const char *key, char *value, size_t *size);
typedef OrtStatus *(*ortKernelContext_ParallelFor)(const OrtKernelContext *ctx, void (*fn)(void *, size_t), size_t total, size_t batches, void *data);

// ORT(Name) is the entry Name of attnop_api (set by attnop_init), typed.
extern const OrtApi *attnop_api;
#define ORT(name) ORTAPI_FN(attnop_api, ORTAPI_##name, ort##name)

#endif
