//go:build cgo && arm64 && (linux || windows)

package attnop

/*
#include "attnop.h"
*/
import "C"

// haveMatMul is false on Arm64: the int4 product, SwiGLU and the pre-norm are built for x86-64
// only, so the optimizer keeps ONNX Runtime's MatMulNBits (MLAS's Arm kernels, dot-product and
// i8mm where the CPU has them) and rewrites only the attention.
const haveMatMul = false

// noISA is Available's error on a CPU the kernels cannot run on (none on Arm64: every one has
// NEON).
const noISA = "EdgeChat's attention kernels found no loops for this CPU; ONNX Runtime's attention is used"

// selectISA picks attn_arm64.c's loops: 1 NEON, on every Arm64 CPU (most changes nothing).
func selectISA(most int) int { return int(C.attnop_select(C.int(most))) }
