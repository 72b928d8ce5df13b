// Package attnop holds EdgeChat's own CPU kernels, compiled into the binary: ONNX Runtime custom
// operators with com.microsoft's contracts (as the app's optimized copies use them).
//
// The attention kernels take GroupQueryAttention's inputs, outputs and attributes and read each
// KV head's cached rows once for all the query heads it serves, and once for a whole tile of
// prompt rows. A copy switches to them by changing its GroupQueryAttention nodes' domain to
// Domain (float32 cache), DomainInt8 (ONNX Runtime's per-channel int8 cache) or DomainRow (an
// int8 cache with a scale per cached row, kept in the row) and importing that domain.
//
// The int4 matrix product takes MatMulNBits' (4 bits, blocks of 32, no zero points) in Domain,
// with the numerics of ONNX Runtime's accuracy level 4 (activations quantized to int8 per row
// and block) or, at level 0, float32 sums: many rows run over panels of weights unpacked once
// for all of them, one row streams the weights. With its own attribute swiglu 1 it takes a gated
// MLP's down projection whole: A is [..., 2K], gate | up, and the product's input is
// silu(gate) · up, computed before quantizing (swiglu.c; optimize's FuseSwiGLU writes such nodes).
// With prenorm 1 it takes the RMS norm its input needs (and the residual add before it, writing
// the sum as a second output), rounded as ONNX Runtime's SkipSimplifiedLayerNormalization or
// SimplifiedLayerNormalization does (prenorm.c; optimize's FusePreNorm writes such nodes).
//
// The kernels are C (op.c, attn.c, decode8.c, tile.c; matmul.c, q4*.c, swiglu.c, prenorm.c) on
// AVX2 + FMA or AVX-512 (an int8 cache's decode steps on integer products where the CPU has
// AVX-512 VNNI), built for amd64 Linux and Windows with cgo. On arm64 Linux and Windows the
// attention operators are built on NEON (attn_arm64.c, with op.c and the drivers part.h and
// tiledrv.h that x86-64 shares) and the int4 product is not: SupportsMatMul is false and
// MatMulAvailable says why, so the products stay on ONNX Runtime's MatMulNBits. In every other
// build Available and Register return an error and Supports and SupportsMatMul are false.
package attnop

import (
	"errors"
	"math"

	"edgechat/onnx/proto"
)

// The operators' domains; both define the op type "GroupQueryAttention", Domain also
// "MatMulNBits".
const (
	Domain     = "ai.edgechat.cpu" // float32 KV cache
	DomainInt8 = "ai.edgechat.kv8" // per-channel int8 KV cache (k_scale, v_scale inputs 12, 13)
	// DomainRow is the per-row int8 KV cache: each cached row quantized with its own scale when
	// written, kept in the row's last 4 bytes (past and present [1, KV, capacity, head size +
	// RowExtra] int8; no k_scale, v_scale). It needs no calibration and never clips.
	DomainRow = "ai.edgechat.kvrow"
)

// DecodeChunkVar is the environment variable that, read when a session makes its attention
// kernels, sets the cached rows of one decode work item (op.c's CHUNKVAR; default: a KV head's
// rows whole up to 4,096, at least 8 items). For measurements: 256 was the old size.
const DecodeChunkVar = "EDGECHAT_ATTN_CHUNK"

// RowExtra is the bytes a per-row cache row holds past its head size values: its float32 scale.
const RowExtra = 4

// Limits of the kernels' shapes (op.c's MAXD and MAXG).
const (
	maxHeadSize = 256
	maxGroup    = 8
)

// Supports reports whether the kernels take this attention's shape: a head size a multiple of 16
// up to 256, numHeads a multiple of kvHeads with at most 8 query heads a KV head. It is false in
// builds without the kernels. The operators also require do_rotary 1, rotary_interleaved 0, no
// local window and no softcap, and a batch of 1.
func Supports(headSize, numHeads, kvHeads int) bool {
	return haveKernels && headSize > 0 && headSize%16 == 0 && headSize <= maxHeadSize &&
		kvHeads > 0 && numHeads > 0 && numHeads%kvHeads == 0 && numHeads/kvHeads <= maxGroup
}

// SupportsMatMul reports whether the int4 product takes a MatMulNBits of this shape: bits 4,
// block_size 32, K a positive multiple of 32, any positive N (zero points and g_idx absent). It
// is false in builds without the product (all but amd64's).
func SupportsMatMul(K, N, bits, blockSize int) bool {
	return haveMatMul && bits == 4 && blockSize == 32 && K > 0 && K%32 == 0 && N > 0 &&
		K <= math.MaxInt32/32 && N <= math.MaxInt32/32
}

// errNoMatMul is MatMulAvailable's error in builds with the attention kernels but not the product.
var errNoMatMul = errors.New("EdgeChat's int4 product kernel is built for x86-64 only; ONNX Runtime's MatMulNBits (MLAS's Arm kernels) runs the products")

// MatMulAvailable is Available for the int4 product (and the SwiGLU and norms it takes): an error
// also in builds that carry the attention kernels without it (Arm64).
func MatMulAvailable() error {
	if haveKernels && !haveMatMul {
		return errNoMatMul
	}
	return Available()
}

// MatMulNodes counts the graph's MatMulNBits nodes in Domain: a session over it must Register
// the kernels.
func MatMulNodes(info *proto.ModelInfo) int {
	return info.Ops[proto.OpKey(Domain, "MatMulNBits")]
}

// Nodes counts the GroupQueryAttention nodes of the graph info describes that run on the
// kernels (Domain, DomainInt8, DomainRow): a session over it must Register them.
func Nodes(info *proto.ModelInfo) int {
	return info.Ops[proto.OpKey(Domain, "GroupQueryAttention")] + info.Ops[proto.OpKey(DomainInt8, "GroupQueryAttention")] +
		info.Ops[proto.OpKey(DomainRow, "GroupQueryAttention")]
}

// AttentionNodes counts the graph's GroupQueryAttention nodes, ONNX Runtime's (com.microsoft)
// and the kernels': one KV buffer a layer serves as both past and present for any of them.
func AttentionNodes(info *proto.ModelInfo) int {
	return info.Ops[proto.OpKey("com.microsoft", "GroupQueryAttention")] + Nodes(info)
}
