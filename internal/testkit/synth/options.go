// Package synth writes synthetic Qwen3 models: the real architecture, I/O names and file layouts
// of the models users have, with small seeded-random weights, for tests and tools/mkmodel; and
// GPT-2, GPT-Neo, GPT-NeoX, Phi and OPT-shaped Hugging Face exports (family.go).
package synth

import (
	"errors"
	"fmt"
	"slices"
)

// Layout is a model folder layout (see docs/RUNTIME.md).
type Layout string

const (
	// LayoutHF is layout A: Hugging Face ONNX, onnx/model.onnx with dynamic shapes.
	LayoutHF Layout = "hf"
	// LayoutGenAI is layout B: onnxruntime-genai, model.onnx + genai_config.json.
	LayoutGenAI Layout = "genai"
	// LayoutStatic is layout C: Windows ML generic composite, static prefill and gen models.
	LayoutStatic Layout = "static"
	// LayoutBundle is layout D: decoder-pipeline bundle with GroupQueryAttention.
	LayoutBundle Layout = "bundle"
	// LayoutFoundry is layout D as Foundry Local and Qualcomm AI Hub ship NPU models: other
	// stage, file and tensor names, stage flags, inference_model.json.
	LayoutFoundry Layout = "foundry"
)

// Layouts lists every layout Write knows.
var Layouts = []Layout{LayoutHF, LayoutGenAI, LayoutStatic, LayoutBundle, LayoutFoundry, LayoutEmbedding}

// Options shape a synthetic model. The same Seed and shape give the same weights in every
// layout and KV dtype.
type Options struct {
	Layers       int
	Hidden       int
	Heads        int
	KVHeads      int
	HeadDim      int
	Intermediate int
	Vocab        int
	MaxPositions int
	RopeTheta    float64
	RMSNormEps   float64
	Seed         uint64
	// KVFloat16 makes the KV cache inputs and outputs float16. The Hugging Face-style graphs
	// still compute in float32 (new keys and values are rounded to float16 first); the bundle's
	// GroupQueryAttention then runs in float16.
	KVFloat16 bool
	Layout    Layout
	// MaxCache (M) and PrefillLen (S) shape LayoutStatic.
	MaxCache   int
	PrefillLen int
	// ContextLength is the shared KV buffer length of LayoutBundle; its prefill window is
	// PrefillLen.
	ContextLength int
	// ExternalData moves the weights of a Hugging Face or onnxruntime-genai layout into a data
	// file beside the graph, as the full-size exports must (their weights pass protobuf's 2 GB
	// limit); ONNX Runtime then maps them from the file instead of copying them to the heap.
	ExternalData bool
	// Quant quantizes the linear layers as a published file does (QuantNone: float32).
	Quant Quant
	// ZeroPoints gives q4 and q4f16 weights a zero point per block (asymmetric quantization).
	ZeroPoints bool
	// Q4Twin makes a float32 model whose weights are the values the 4-bit ones of the q4 model
	// (same seed and ZeroPoints) stand for, with an untied, dequantized LM head.
	Q4Twin bool
	// Copying gives the model weights that quote instead of random ones: an induction circuit
	// (copying.go) that continues text as it went on after the last two tokens' earlier
	// occurrence, with an untied LM head. Shape, operators and cost stay the shape's.
	Copying bool
	// TokenizerDir holds tokenizer.json and tokenizer_config.json to copy; empty copies none.
	TokenizerDir string
	// NodeNames chooses how a Hugging Face layout's nodes are named (NamesUnique by default).
	NodeNames NodeNames
	// Family builds another architecture than Qwen3's ("" is Qwen3; see family.go).
	Family Family
	// NoPositionIDs drops a family export's position_ids input: the graph then computes
	// positions from the past length (or, for OPT, which never has it, from attention_mask).
	NoPositionIDs bool
	// PastNames chooses a family model's KV cache names.
	PastNames PastNames
	// Merged writes a family model as Optimum's decoder_model_merged.onnx: one graph with a
	// use_cache_branch input choosing between the runs with and without past.
	Merged bool
}

// NodeNames says how nodes are named.
type NodeNames int

const (
	// NamesUnique gives every node its own name, as exporters do.
	NamesUnique NodeNames = iota
	// NamesNone leaves every node unnamed, as the ONNX spec allows and older exporters and
	// hand-made graphs do.
	NamesNone
	// NamesRepeated gives every node of an operator type one shared name ("Mul", "Add", …).
	NamesRepeated
)

// Tiny is the default: a 2-layer model that runs in milliseconds, Qwen3's vocabulary.
func Tiny() Options {
	return Options{
		Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2, HeadDim: 16, Intermediate: 128,
		Vocab: 151936, MaxPositions: 4096, RopeTheta: 1e6, RMSNormEps: 1e-6, Seed: 1,
		Layout: LayoutHF, MaxCache: 256, PrefillLen: 64, ContextLength: 256,
	}
}

// Qwen3Shape is Qwen3-0.6B's shape (hidden 1024, 16/8 heads, head_dim 128, intermediate 3072)
// with 4 layers instead of 28.
func Qwen3Shape() Options {
	o := Tiny()
	o.Layers, o.Hidden, o.Heads, o.KVHeads, o.HeadDim, o.Intermediate = 4, 1024, 16, 8, 128, 3072
	o.MaxPositions = 40960
	o.MaxCache, o.ContextLength = 2048, 2048
	o.ExternalData = true // the 28-layer model's weights (2.4 GB in float32) are external
	return o
}

// Qwen3_06B is Qwen3-0.6B at its real depth: Qwen3Shape with all 28 layers, the model
// speed figures are measured on (each layer's weights are ~1/40 of the int4 file, the LM
// head the rest: a 4-layer model is mostly its head).
func Qwen3_06B() Options {
	o := Qwen3Shape()
	o.Layers = 28
	return o
}

// Validate reports the first inconsistency in o.
func (o Options) Validate() error {
	var errs []error
	pos := func(name string, v int) {
		if v <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %d", name, v))
		}
	}
	pos("layers", o.Layers)
	pos("hidden", o.Hidden)
	pos("heads", o.Heads)
	pos("kv-heads", o.KVHeads)
	pos("head-dim", o.HeadDim)
	pos("intermediate", o.Intermediate)
	pos("vocab", o.Vocab)
	pos("max-pos", o.MaxPositions)
	if o.KVHeads > 0 && o.Heads%o.KVHeads != 0 {
		errs = append(errs, fmt.Errorf("heads (%d) must be a multiple of kv-heads (%d)", o.Heads, o.KVHeads))
	}
	errs = append(errs, o.validateFamily()...)
	if o.HeadDim%2 != 0 {
		errs = append(errs, fmt.Errorf("head-dim must be even for rotary embedding, got %d", o.HeadDim))
	}
	if !slices.Contains(Layouts, o.Layout) {
		errs = append(errs, fmt.Errorf("unknown layout %q: choose one of %v", o.Layout, Layouts))
	}
	switch o.Layout {
	case LayoutStatic:
		pos("prefill-len", o.PrefillLen)
		if o.MaxCache < o.PrefillLen {
			errs = append(errs, fmt.Errorf("max-cache (%d) must be at least prefill-len (%d)", o.MaxCache, o.PrefillLen))
		}
	case LayoutBundle, LayoutFoundry:
		pos("prefill-len", o.PrefillLen)
		if o.ContextLength <= o.PrefillLen {
			errs = append(errs, fmt.Errorf("context-length (%d) must exceed the prefill window (%d)", o.ContextLength, o.PrefillLen))
		}
	}
	errs = append(errs, o.validateQuant()...)
	if o.Copying {
		if _, err := planCopy(o); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// kvRep is the number of query heads per KV head.
func (o Options) kvRep() int { return o.Heads / o.KVHeads }
