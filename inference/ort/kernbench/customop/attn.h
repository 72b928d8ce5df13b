// attn.h: the decode attention operators of attn.c (see there).

#include "onnxruntime_c_api.h"

// kb_attn_ops fills f32 (a float32 cache) and i8 (ONNX Runtime's per-channel int8 cache), both
// named GroupQueryAttention, on OrtCustomOps already given their defaults; portable forces
// the plain C loops (no AVX2).
void kb_attn_ops(const OrtApi *api, OrtCustomOp *f32, OrtCustomOp *i8, int portable);
