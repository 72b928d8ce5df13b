//go:build cgo && amd64 && (linux || windows)

package attnop

/*
#include "attnop.h"
*/
import "C"

// haveMatMul: the int4 product (matmul.c, q4*.c), SwiGLU and the pre-norm are built for amd64.
const haveMatMul = true

// noISA is Available's error on a CPU the kernels cannot run on.
const noISA = "this CPU lacks AVX2 and FMA, which EdgeChat's attention kernels need; ONNX Runtime's attention is used"

// selectISA picks attn.c's loops (3 AVX-512 with VNNI: integer products on an int8 cache, 2
// AVX-512, 1 AVX2 + FMA, 0 none) for this CPU, at most the level most when it is above 0 (1
// AVX2 where the CPU has AVX-512, 2 AVX-512 without VNNI's integer loops: tests), and the int4
// product's loops to match (AVX-512 VNNI where attn.c runs AVX-512 and the CPU has VNNI).
func selectISA(most int) int {
	picked := C.attnop_select(C.int(most))
	C.q4_select(min(picked, 2)) // the int4 product's loops follow: 2 AVX-512, 1 AVX2
	return int(picked)
}

// useMatMul picks the int4 product's loops by name for the tests (2 AVX-512 VNNI, 1 AVX-VNNI,
// 0 AVX2 maddubs); false when the CPU cannot run them.
func useMatMul(which int) bool { return C.q4_use(C.int(which)) != 0 }
