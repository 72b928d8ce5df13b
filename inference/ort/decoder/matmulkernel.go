package decoder

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"edgechat/inference"
	"edgechat/inference/ort/attnop"
	"edgechat/internal/eps"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// EdgeChat's own int4 matrix product (inference/ort/attnop's MatMulNBits): the CPU copies'
// 4-bit MatMulNBits nodes (blocks of 32, no zero points) run on it where the attention
// kernels could run (the build carries the kernels, the CPU and ONNX Runtime can run them, a
// probe registration works) and it is not turned off, when the copy passes the same check as
// the copy without it (optimizedGraph); otherwise they stay on ONNX Runtime's MatMulNBits.
// It does not need the attention kernels to take the model's attention: a copy may run its
// products on it and its attention on GroupQueryAttention. The same registration serves both.

// MatMulKernelVar is the environment variable that turns the product kernel off: "off" (or
// "0", "false") runs ONNX Runtime's MatMulNBits, for measuring the kernel against it or when
// it misbehaves.
const MatMulKernelVar = "EDGECHAT_MATMUL_KERNEL"

// SwiGLUVar is the environment variable that turns the fused activation off: "off" (or "0",
// "false") keeps each gated MLP's Split, SiLU and Mul before its down projection instead of
// folding them into the kernel's product (optimize.Options.FuseSwiGLU), for measuring the
// fusion or when it misbehaves. The fusion is on wherever the product kernel is.
const SwiGLUVar = "EDGECHAT_SWIGLU"

// LayoutVar is the environment variable that turns the kernel's layout 1 off: "off" (or "0",
// "false", "no") keeps MatMulNBits' order of the products' weights. Layout 1
// (optimize.MatMulKernel.Cols16) writes each product's weights and scales into the copy in
// panels of 16 columns, so that one row's product reads them once, front to back, 16 columns a
// vpdpbusd; they stay in the copy's file (memory-mapped, not private memory). Paired decode
// steps of the 28-layer copy on a quiet machine: 0.86–0.90× the CPU time of MatMulNBits' order
// (tools/stepbench a@110#100 layout1@110#100, four runs). On this project's shared VM, under a
// load of 10–17, the q4layout branch saw its steps turn several times slower in some runs, with
// the weights' first loads stalled at ~1 GB/s; the lead did not see it on a quiet machine, and it
// looks like the VM's shadow paging rather than the layout (not proven): the switch is there
// for measuring it.
const LayoutVar = "EDGECHAT_Q4LAYOUT"

// layoutOn says whether layout 1 is on (LayoutVar does not turn it off).
func layoutOn() bool { return !switchedOff(LayoutVar) }

// swigluOn says whether a copy whose products run on the kernel mm fuses the activation.
func swigluOn(mm optimize.MatMulKernel) bool { return mm.Domain != "" && !switchedOff(SwiGLUVar) }

// PreNormVar is the environment variable that turns the norms inside the products off: "off"
// (or "0", "false") keeps each layer's SkipSimplifiedLayerNormalization (and the first and
// final SimplifiedLayerNormalization) as nodes instead of folding them into the kernel's
// product that reads them (optimize.Options.FusePreNorm), for measuring the fusion or when it
// misbehaves. The fusion is on wherever the product kernel is.
const PreNormVar = "EDGECHAT_PRENORM"

// preNormOn says whether a copy whose products run on the kernel mm folds the norms into them.
func preNormOn(mm optimize.MatMulKernel) bool { return mm.Domain != "" && !switchedOff(PreNormVar) }

// matMulSupports is the kernel's shape rule, a variable so that tests can refuse shapes.
var matMulSupports = attnop.SupportsMatMul

// errMatMulOff says the product kernel was turned off.
var errMatMulOff = errors.New("turned off (" + MatMulKernelVar + "=off or --matmul-kernel=off)")

// matMulOff says whether MatMulKernelVar turns the product kernel off.
func matMulOff() bool { return switchedOff(MatMulKernelVar) }

// switchedOff says whether the environment variable name says "off" (or "0", "false", "no").
func switchedOff(name string) bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(name))) {
	case "off", "0", "false", "no":
		return true
	}
	return false
}

// MatMulKernelStatus says whether CPU loads run their int4 products on EdgeChat's kernel: nil
// when they do (for the products it takes), else why not (for `edgechat sys`). ONNX Runtime
// must be loaded.
func MatMulKernelStatus() error {
	return kernelStatus(matMulOff(), errMatMulOff, func() error {
		if err := matMulAvailable(); err != nil {
			return err
		}
		return kernelsAvailable() // the attention kernels' (tests play a build without them)
	})
}

// matMulKernel is the rewrite that moves the int4 products of folder f's CPU copy onto the
// kernel for a load with options o, or why they stay on MatMulNBits. A graph with no product
// the kernel could take gets none: its copy would be the same as the one without, under
// another name, checked again.
func matMulKernel(f *models.Folder, o inference.LoadOptions) (optimize.MatMulKernel, error) {
	switch {
	case !eps.IsCPU(o.EP.Name):
		return optimize.MatMulKernel{}, errors.New("it runs on the CPU only")
	case o.PlainMatMul:
		return optimize.MatMulKernel{}, errMatMulOff
	}
	info, err := proto.ReadInfo(f.Model)
	if err != nil {
		return optimize.MatMulKernel{}, err
	}
	if why := int4Refusal(info); why != "" {
		return optimize.MatMulKernel{}, errors.New(why)
	}
	if err := MatMulKernelStatus(); err != nil {
		return optimize.MatMulKernel{}, err
	}
	// The int8 prompt twin (o.PromptInt8) re-encodes weights in MatMulNBits' order only: a copy
	// for it keeps that order.
	return optimize.MatMulKernel{Domain: attnop.Domain, Shapes: matMulShapes{}, Cols16: layoutOn() && !o.PromptInt8}, nil
}

// matMulShapes are the products the kernel takes (matMulSupports).
type matMulShapes struct{}

func (matMulShapes) TakesMatMul(k, n int) bool { return matMulSupports(k, n, 4, 32) }

// int4Refusal says why the graph info has no product the kernel could take ("" when it has):
// no 4-bit MatMulNBits in blocks of 32 without zero points, or float16 activations.
func int4Refusal(info *proto.ModelInfo) string {
	for _, in := range info.Inputs {
		if in.ElemType == "float16" {
			return "the model computes in float16"
		}
	}
	for nb := range info.NBits {
		if nb.Bits == 4 && nb.BlockSize == 32 && !nb.ZeroPoints {
			return ""
		}
	}
	return "the model has no 4-bit MatMulNBits in blocks of 32 without zero points"
}

// kernels are the rewrites of a copy onto EdgeChat's kernels (the zero value: none).
type kernels struct {
	attn    optimize.AttentionKernel
	mm      optimize.MatMulKernel
	swiglu  bool // the down projections take their activation (with mm)
	prenorm bool // the products take the norms they read (with mm)
}

// apply sets k's rewrites on o.
func (k kernels) apply(o optimize.Options) optimize.Options {
	o.AttentionKernel, o.MatMulKernel, o.FuseSwiGLU = k.attn, k.mm, k.swiglu && k.mm.Domain != ""
	o.FusePreNorm = k.prenorm && k.mm.Domain != ""
	return o
}

// fallbacks are the kernel copies optimizedGraph tries in turn, each failing its check giving
// way to the next: both kernels with the fused norms and activation, without the norms (when
// they are on), without the activation either (when it is on), the attention kernels alone
// (when both are on), then none. Each entry says what the step after it leaves out.
func (k kernels) fallbacks() []kernels {
	var out []kernels
	if k.mm.Domain != "" {
		out = append(out, k)
		if k.prenorm {
			out = append(out, kernels{attn: k.attn, mm: k.mm, swiglu: k.swiglu})
		}
		if k.swiglu {
			out = append(out, kernels{attn: k.attn, mm: k.mm})
		}
	}
	if k.attn != (optimize.AttentionKernel{}) {
		out = append(out, kernels{attn: k.attn})
	}
	return out
}

// kernelNodes counts the nodes of the graph info describes that run on EdgeChat's kernels
// (attention and products): a session over it must register them.
func kernelNodes(info *proto.ModelInfo) int { return attnop.Nodes(info) + attnop.MatMulNodes(info) }

// MatMulOf says what runs the int4 products of the graph at path (the copy a decoder runs):
// EdgeChat's kernel or ONNX Runtime's MatMulNBits; "" when the graph has none or cannot be read.
func MatMulOf(path string) string {
	info, err := proto.ReadInfo(path)
	switch {
	case err != nil:
		return ""
	case attnop.MatMulNodes(info) > 0:
		return fmt.Sprintf("EdgeChat's int4 kernel (%d nodes)", attnop.MatMulNodes(info))
	case info.Ops[proto.OpKey("com.microsoft", "MatMulNBits")] > 0:
		return "ONNX Runtime's MatMulNBits"
	}
	return ""
}
