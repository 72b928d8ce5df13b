//go:build cgo && (amd64 || arm64) && (linux || windows)

// opdef.h: what the operators' definitions share (op.c's attention, matmul.c's int4 product):
// the error statuses, attribute reads and the OrtCustomOp callbacks that are the same for all.

#ifndef ATTNOP_OPDEF_H
#define ATTNOP_OPDEF_H

#include "ortapi.h"

// op_fail is an invalid-argument status with msg; op_nomem an out-of-memory one naming what.
OrtStatus *op_fail(const char *msg);
OrtStatus *op_nomem(const char *what);

// op_int_attr is the int64 attribute name of a node, def when it has none.
int64_t op_int_attr(const OrtKernelInfo *info, const char *name, int64_t def);
// op_float_attr is the float attribute name of a node, def when it has none.
float op_float_attr(const OrtKernelInfo *info, const char *name, float def);

// op_define_common clears op and sets what every operator here has in common: the API version,
// the CPU provider, a kernel freed with free(), inputs in CPU memory, required outputs, no
// variadic inputs or outputs, and every opset version. The caller sets the name, the types,
// counts and input characteristics, CreateKernelV2 and KernelComputeV2.
void op_define_common(OrtCustomOp *op);

#endif
