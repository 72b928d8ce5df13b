// Command mkmodel writes a synthetic Qwen3 model folder (real architecture and I/O names,
// seeded-random weights) in one of the layouts EdgeChat loads, for tests and demos, or a
// Qwen3-Embedding-shaped embedding model, or a BERT-family embedding model or reranker.
//
//	go run ./tools/mkmodel --out /tmp/m                       # tiny, layout A (Hugging Face)
//	go run ./tools/mkmodel --out /tmp/m --preset qwen3-0.6b-shape --kv-dtype fp16
//	go run ./tools/mkmodel --out /tmp/m --layout genai|bundle  # layouts B and D
//	go run ./tools/mkmodel --out /tmp/m --layout foundry       # layout D as Foundry Local ships it
//	go run ./tools/mkmodel --out /tmp/m --static --max-cache 256 --prefill-len 64  # layout C
//	go run ./tools/mkmodel --out /tmp/m --layout embedding     # a Qwen3-Embedding-shaped text-embedding model
//	go run ./tools/mkmodel --out /tmp/m --quant q4|q4f16|int8|genai-int4 [--zero-points]
//	go run ./tools/mkmodel --out /tmp/m --quant q4 --gguf /tmp/m.gguf  # and its llama.cpp Q4_0 twin
//	go run ./tools/mkmodel --out /tmp/m --preset qwen3-0.6b-shape --quant q4 --copying  # a model that quotes
//	go run ./tools/mkmodel --out /tmp/m --family gpt2|gpt_neo|gpt_neox|phi|opt [--no-position-ids] [--past-names past] [--merged]
//	go run ./tools/mkmodel --out /tmp/m --bert embedding [--pooling mean|cls|max] [--query-prompt "query: "]  # all-MiniLM/bge/e5-shaped
//	go run ./tools/mkmodel --out /tmp/m --bert reranker        # an ms-marco-MiniLM-shaped cross-encoder
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"edgechat/internal/paths"
	"edgechat/internal/testkit/synth"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "mkmodel:", err)
		}
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if isBert(args) {
		return runBert(args, stdout, stderr)
	}
	dir, opt, err := parse(args, stderr)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := synth.Write(dir, opt); err != nil {
		return err
	}
	if ggufPath != "" {
		if err := synth.WriteGGUF(ggufPath, opt); err != nil {
			return fmt.Errorf("GGUF twin: %w", err)
		}
		fmt.Fprintf(stdout, "wrote its Q4_0 GGUF twin (bit-identical 4-bit weights) to %s\n", ggufPath)
	}
	kv := "fp32"
	if opt.KVFloat16 {
		kv = "fp16"
	}
	q := "float32"
	if opt.Quant != synth.QuantNone {
		q = string(opt.Quant)
	}
	fmt.Fprintf(stdout, "wrote %s model (%d layers, hidden %d, vocab %d, %s weights, %s KV cache, seed %d) to %s in %s\n",
		opt.Layout, opt.Layers, opt.Hidden, opt.Vocab, q, kv, opt.Seed, dir, time.Since(start).Round(time.Millisecond))
	return nil
}

// ggufPath is --gguf: where to write the model's Q4_0 GGUF twin ("" for none).
var ggufPath string

// presets name the shapes --preset accepts.
var presets = map[string]func() synth.Options{
	"tiny":             synth.Tiny,
	"qwen3-0.6b-shape": synth.Qwen3Shape,
	"qwen3-0.6b":       synth.Qwen3_06B,
}

// parse turns the command line into a folder and options: the preset first, then every flag
// given explicitly on top of it.
func parse(args []string, stderr io.Writer) (string, synth.Options, error) {
	fs := flag.NewFlagSet("mkmodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := synth.Tiny()
	out := fs.String("out", "", "folder to write the model to (required)")
	preset := fs.String("preset", "tiny", "shape preset: tiny, qwen3-0.6b-shape (hidden 1024, 16/8 heads, head_dim 128, 4 layers) or qwen3-0.6b (the same with its real 28 layers)")
	layout := fs.String("layout", "hf", "folder layout: hf (A), genai (B), static (C), bundle (D), foundry (D as Foundry Local ships NPU models) or embedding (Qwen3-Embedding's export: last_hidden_state, no LM head)")
	static := fs.Bool("static", false, "same as --layout static")
	kv := fs.String("kv-dtype", "", "KV cache dtype: fp32 or fp16 (default fp16 for --layout bundle, else fp32)")
	ext := fs.Bool("external-data", false, "keep the weights in a data file beside the graph (model.onnx_data; model.onnx.data for --layout genai), as full-size exports do (default: on for the qwen3-0.6b presets)")
	quant := fs.String("quant", "", "quantize as published: q4 (onnx/model_q4.onnx), q4f16, int8 (model_quantized.onnx) or genai-int4 (layout genai, GroupQueryAttention, accuracy_level 4)")
	fs.StringVar(&ggufPath, "gguf", "", "also write the Q4_0 GGUF twin for llama.cpp to this file (--quant q4 or genai-int4, no zero points)")
	zero := fs.Bool("zero-points", false, "q4 and q4f16: asymmetric blocks with zero points")
	copying := fs.Bool("copying", false, "weights that quote: an induction circuit that goes on as the text went on after its last two tokens' earlier occurrence (prompt-lookup benchmarks; needs head_dim 128, hidden ≥ 513, 2 KV heads)")
	family := fs.String("family", "", "another architecture with its export's I/O names (preset: its tiny shape, vocabulary 512): gpt2, gpt_neo, gpt_neox, phi or opt")
	noPos := fs.Bool("no-position-ids", false, "--family: no position_ids input (positions from the past length; OPT never has one)")
	pastNames := fs.String("past-names", "", "--family: KV cache names past_key_values.N.key (default) or past (past.N.key)")
	merged := fs.Bool("merged", false, "--family: Optimum's onnx/decoder_model_merged.onnx with a use_cache_branch input")
	tok := fs.String("tokenizer", paths.TokenizerDir("qwen3"), "folder with Qwen3's tokenizer.json and tokenizer_config.json (empty: copy none)")
	var o synth.Options // receives the int flags; only those given override the preset
	for _, f := range intFlags {
		fs.IntVar(f.field(&o), f.name, *f.field(&def), f.usage)
	}
	seed := fs.Uint64("seed", def.Seed, "weight seed: the same seed gives the same weights in every layout")
	if err := fs.Parse(args); err != nil {
		return "", o, err
	}
	if fs.NArg() > 0 {
		return "", o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return "", o, errors.New("--out is required: the folder to write the model to")
	}
	mk, ok := presets[*preset]
	if !ok {
		return "", o, fmt.Errorf("unknown --preset %q: choose tiny, qwen3-0.6b-shape or qwen3-0.6b", *preset)
	}
	res := mk()
	if *family != "" {
		res = synth.FamilyTiny(synth.Family(*family))
		tokSet := false
		fs.Visit(func(fl *flag.Flag) { tokSet = tokSet || fl.Name == "tokenizer" })
		if !tokSet {
			*tok = "" // Qwen3's tokenizer does not fit a family's vocabulary of 512
		}
	}
	fs.Visit(func(fl *flag.Flag) {
		for _, f := range intFlags {
			if f.name == fl.Name {
				*f.field(&res) = *f.field(&o)
			}
		}
		if fl.Name == "external-data" {
			res.ExternalData = *ext
		}
	})
	res.Seed = *seed
	res.Layout = synth.Layout(*layout)
	res.Quant, res.ZeroPoints, res.Copying = synth.Quant(*quant), *zero, *copying
	layoutSet := false
	fs.Visit(func(fl *flag.Flag) { layoutSet = layoutSet || fl.Name == "layout" })
	if res.Quant == synth.QuantGenAIInt4 && !layoutSet {
		res.Layout = synth.LayoutGenAI
	}
	if *static {
		res.Layout = synth.LayoutStatic
	}
	switch *kv {
	case "":
		res.KVFloat16 = res.Layout == synth.LayoutBundle || res.Layout == synth.LayoutFoundry || res.Quant == synth.QuantQ4F16
	case "fp32":
	case "fp16":
		res.KVFloat16 = true
	default:
		return "", o, fmt.Errorf("unknown --kv-dtype %q: choose fp32 or fp16", *kv)
	}
	res.TokenizerDir = *tok
	res.NoPositionIDs, res.PastNames, res.Merged = *noPos, synth.PastNames(*pastNames), *merged
	return *out, res, res.Validate()
}

// intFlags are the numeric shape flags and the Options field each sets.
var intFlags = []struct {
	name, usage string
	field       func(*synth.Options) *int
}{
	{"layers", "decoder layers", func(o *synth.Options) *int { return &o.Layers }},
	{"hidden", "hidden size", func(o *synth.Options) *int { return &o.Hidden }},
	{"heads", "query heads", func(o *synth.Options) *int { return &o.Heads }},
	{"kv-heads", "key/value heads", func(o *synth.Options) *int { return &o.KVHeads }},
	{"head-dim", "head dimension", func(o *synth.Options) *int { return &o.HeadDim }},
	{"intermediate", "MLP intermediate size", func(o *synth.Options) *int { return &o.Intermediate }},
	{"vocab", "vocabulary size", func(o *synth.Options) *int { return &o.Vocab }},
	{"max-pos", "max_position_embeddings", func(o *synth.Options) *int { return &o.MaxPositions }},
	{"max-cache", "static layout: cache buffer rows M", func(o *synth.Options) *int { return &o.MaxCache }},
	{"prefill-len", "static and bundle layouts: prefill chunk S", func(o *synth.Options) *int { return &o.PrefillLen }},
	{"context-length", "bundle layout: shared KV buffer length", func(o *synth.Options) *int { return &o.ContextLength }},
}
