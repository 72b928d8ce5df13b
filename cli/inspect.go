package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"edgechat/internal/paths"
	"edgechat/models"
	"edgechat/onnx/optimize"
)

func init() {
	register(Command{Name: "inspect", Summary: "describe a model folder: layout, inputs/outputs, KV cache, quantization, tokenizer", Run: runInspect})
}

func runInspect(env Env) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	model := fs.String("model", "", "model folder (or .onnx file inside one)")
	modelFile := fs.String("model-file", "", "ONNX file inside a Hugging Face folder's onnx/")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(env.Args); err != nil {
		return errUsage
	}
	if *model == "" {
		return errors.New("--model is required: the folder that holds your model")
	}
	r, err := models.Inspect(*model, *modelFile)
	if err != nil {
		return err
	}
	if f, err := models.Open(*model, *modelFile); err == nil && f.Model != "" {
		if why, ok := optimize.Fallback(f.Model, paths.GraphCacheDir()); ok {
			r.Notes = append(r.Notes, fmt.Sprintf("EdgeChat's optimized copy of %s did not load, so the graph runs as published (%s)", filepath.Base(f.Model), why))
		}
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	printReport(env, r)
	return nil
}

func printReport(env Env, r *models.Report) {
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	defer w.Flush()
	fmt.Fprintf(w, "Model\t%s\n", r.Path)
	fmt.Fprintf(w, "Layout\t%s — %s\n", r.LayoutLetter, r.Description)
	kind := "dynamic shapes"
	if r.Static {
		kind = "static shapes (NPU build)"
	}
	switch r.Kind {
	case models.KindEmbedding:
		fmt.Fprintf(w, "Embedding\t%d dimensions, %s (tokenizer %d)\n", r.Hidden, r.Encoding, r.Tokenizer.Vocab)
	case models.KindReranker:
		fmt.Fprintf(w, "Reranker\t%s (tokenizer %d)\n", r.Encoding, r.Tokenizer.Vocab)
	default:
		fmt.Fprintf(w, "Decoder\t%d layers, %d KV heads × %d, KV %s %s, %s\n", r.Layers, r.KVHeads, r.HeadDim, r.KVType, r.KVShape, kind)
		fmt.Fprintf(w, "Context\t%d tokens\n", r.ContextLength)
		fmt.Fprintf(w, "Vocabulary\t%d (tokenizer %d)\n", r.Vocab, r.Tokenizer.Vocab)
	}
	q := "none (full precision)"
	if len(r.Quantization) > 0 {
		q = strings.Join(r.Quantization, ", ")
	}
	if r.QuantName != "" {
		q = r.QuantName
	}
	fmt.Fprintf(w, "Quantization\t%s\n", q)
	if len(r.Variants) > 1 {
		fmt.Fprintf(w, "Variants\t%s\n", strings.Join(r.Variants, ", "))
	}
	for _, g := range r.Graphs {
		ep := ""
		if g.EP != "" {
			ep = " on " + g.EP
		}
		fmt.Fprintf(w, "\n%s\t%s (%.1f MB)%s\n", g.Role, g.File, float64(g.SizeBytes)/1e6, ep)
		for _, io := range g.Inputs {
			fmt.Fprintf(w, "  in\t%s %s %s\n", io.Name, io.DType, io.Shape)
		}
		for _, io := range g.Outputs {
			fmt.Fprintf(w, "  out\t%s %s %s\n", io.Name, io.DType, io.Shape)
		}
		ops := make([]string, 0, len(g.Ops))
		for k, n := range g.Ops {
			ops = append(ops, fmt.Sprintf("%s×%d", k, n))
		}
		sort.Strings(ops)
		fmt.Fprintf(w, "  ops\t%s\n", strings.Join(ops, " "))
		for _, c := range g.EPContexts {
			fmt.Fprintf(w, "  context\t%s\n", c)
		}
	}
	if r.Tokenizer.Error != "" {
		fmt.Fprintf(w, "\nTokenizer\terror: %s\n", r.Tokenizer.Error)
	} else if c := r.Tokenizer.Components; c != nil {
		fmt.Fprintf(w, "\nTokenizer\t%s: %s, %d added tokens\n", r.Tokenizer.File, c.Model, c.AddedTokens)
		for _, part := range []struct {
			name  string
			steps []string
		}{{"normalizer", c.Normalizer}, {"pre-tokenizer", c.PreTokenizer}, {"post-processor", c.PostProcessor}, {"decoder", c.Decoder}} {
			steps := "none"
			if len(part.steps) > 0 {
				steps = strings.Join(part.steps, " → ")
			}
			fmt.Fprintf(w, "  %s\t%s\n", part.name, steps)
		}
		if r.Tokenizer.TemplateFile != "" {
			fmt.Fprintf(w, "  chat template\t%s\n", r.Tokenizer.TemplateFile)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nNote\t%s\n", n)
	}
}
