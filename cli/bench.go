package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"edgechat/inference"
	"edgechat/inference/ort/decoder"
	ortenv "edgechat/inference/ort/env"
	"edgechat/internal/eps"
)

func init() {
	register(Command{Name: "bench", Summary: "measure prefill latency (the article's metric), TTFT and decode speed", Run: runBench})
}

func runBench(env Env) error {
	var mf modelFlags
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	mf.register(fs)
	seqLen := fs.Int("seq-len", 1024, "prompt length of each prefill pass")
	iters := fs.Int("iterations", 100, "timed passes")
	warmup := fs.Int("warmup", 10, "untimed passes first")
	decode := fs.Int("decode-tokens", 0, "tokens to decode after one prefill, for decode tokens/s")
	asJSON := fs.Bool("json", false, "print JSON")
	plotFile := fs.String("plot", "", "write a latency histogram PNG")
	attnKernel := fs.String("attn-kernel", "on", "on: attention on EdgeChat's own kernels where they run (as the app does); off: ONNX Runtime's GroupQueryAttention (as "+decoder.AttnKernelVar+"=off does), for measuring them")
	matMulKernel := fs.String("matmul-kernel", "on", "on: int4 products on EdgeChat's own kernel where it runs (as the app does); off: ONNX Runtime's MatMulNBits (as "+decoder.MatMulKernelVar+"=off does), for measuring it")
	compare := fs.Bool("compare", false, "also run the peers it finds on the same prompt: a bare ONNX Runtime loop on the same graph file and llama.cpp on a GGUF twin (needs --decode-tokens)")
	ggufFile := fs.String("gguf", "", "--compare: the llama.cpp GGUF twin (default: a .gguf in the model folder)")
	rounds := fs.Int("rounds", 3, "--compare: interleaved rounds; each engine's best is reported")
	lookupTokens := fs.Int("lookup", 0, "also measure prompt-lookup decoding against plain decoding: greedy replies of this many tokens to each --prompt and to a later turn that repeats its first answer")
	var lookupPrompts []string
	fs.Func("prompt", "--lookup: a raw prompt to continue, repeatable (default: six story openings)", func(s string) error {
		lookupPrompts = append(lookupPrompts, s)
		return nil
	})
	epOpts := map[string]string{}
	fs.Func("ep-option", "execution provider or session option key=value, repeatable (e.g. session.disable_prepacking=1)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return fmt.Errorf("%q is not key=value", s)
		}
		epOpts[k] = v
		return nil
	})
	if err := fs.Parse(env.Args); err != nil {
		return errUsage
	}
	if mf.model == "" {
		return errors.New("--model is required: the folder that holds your model")
	}
	for _, f := range []struct{ name, v string }{{"attn-kernel", *attnKernel}, {"matmul-kernel", *matMulKernel}} {
		if f.v != "on" && f.v != "off" {
			return fmt.Errorf("--%s is on or off, not %q", f.name, f.v)
		}
	}
	kv, err := mf.kvMode()
	if err != nil {
		return err
	}
	if _, err := ortenv.Init(mf.ortLib); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bo := BenchOptions{
		LoadOptions: inference.LoadOptions{ModelFile: mf.modelFile, MaxContext: mf.maxContext, EP: inference.EP{Name: mf.ep, Threads: mf.threads, Options: epOpts}, GraphCache: mf.graphCache(), KVCache: kv, PromptInt8: mf.promptInt8,
			PlainAttention: *attnKernel == "off", PlainMatMul: *matMulKernel == "off"},
		SeqLen: *seqLen, Iterations: *iters, Warmup: *warmup, DecodeTokens: *decode,
	}
	if *compare && (*decode <= 0 || *rounds <= 0) {
		return errors.New("--compare needs --decode-tokens (e.g. 64) and at least one round")
	}
	r, err := Bench(ctx, mf.model, bo)
	if err != nil {
		return err
	}
	var peers []peerResult
	if *compare {
		if r.Threads > 0 && bo.EP.Threads == 0 {
			bo.EP.Threads = r.Threads
		}
		bo.Iterations, bo.Warmup = 1, 0 // later rounds only need the decode run
		if peers, err = comparePeers(ctx, mf.model, r, compareOptions{bench: bo, gguf: *ggufFile, rounds: *rounds}); err != nil {
			return err
		}
		if !*asJSON {
			defer printCompare(env.Stdout, peers, r, *rounds)
		}
	}
	var lookups []lookupCase
	if *lookupTokens > 0 {
		mf.power = eps.PowerPerformance // a measurement runs at full speed, plugged in or not
		cfg, err := mf.engineConfig()
		if err != nil {
			return err
		}
		if len(lookupPrompts) == 0 {
			lookupPrompts = storyOpenings
		}
		if lookups, err = benchLookup(ctx, cfg, lookupPrompts, *lookupTokens, *rounds); err != nil {
			return fmt.Errorf("prompt lookup: %w", err)
		}
		if !*asJSON {
			defer printLookup(env.Stdout, lookups, *rounds)
		}
	}
	if *plotFile != "" {
		if err := plotHistogram(r, *plotFile); err != nil {
			return fmt.Errorf("plot: %w", err)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			*BenchResult
			Compare []peerResult `json:"compare,omitempty"`
			Lookup  []lookupCase `json:"lookup,omitempty"`
		}{r, peers, lookups})
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	defer w.Flush()
	fmt.Fprintf(w, "Model\t%s (%s, KV %s)\n", r.Model, r.Layout, r.KVType)
	if r.Attention != "" {
		fmt.Fprintf(w, "Attention\t%s\n", r.Attention)
	}
	if r.MatMul != "" {
		fmt.Fprintf(w, "Matrix products\t%s\n", r.MatMul)
	}
	fmt.Fprintf(w, "EP\t%s, %d threads\n", r.EP, r.Threads)
	fmt.Fprintf(w, "Prefill %d tokens\t%.1f ms ± %.1f ms (p50 %.1f, p95 %.1f; %d runs after %d warm-up)\n", r.SeqLen, r.MeanMillis, r.StdMillis, r.P50Millis, r.P95Millis, r.Iterations, r.Warmup)
	fmt.Fprintf(w, "Throughput\t%.2f samples/s, %.0f prompt tokens/s\n", r.SamplesPerS, r.PrefillTPS)
	if r.DecodeTPS > 0 {
		fmt.Fprintf(w, "TTFT\t%.1f ms\n", r.TTFTMillis)
		fmt.Fprintf(w, "Decode\t%.1f tokens/s\n", r.DecodeTPS)
	}
	if r.PeakPrivateBytes > 0 {
		verdict := "within"
		if r.PeakPrivateBytes > r.RSSBudgetBytes {
			verdict = "OVER"
		}
		fmt.Fprintf(w, "Private memory\tpeak %s (loading %s, after the run %s): %s the budget of %s (model files %s + KV cache %s + 150 MB)\n",
			mb(r.PeakPrivateBytes), mb(r.LoadPeakPrivateBytes), mb(r.PrivateBytes), verdict, mb(r.RSSBudgetBytes), mb(r.ModelFileBytes), mb(r.KVBytes))
	}
	if r.PeakRSSBytes > 0 {
		fmt.Fprintf(w, "Peak RSS\t%s while prefilling %d and decoding %d tokens (VmHWM: counts mapped weight pages the kernel can take back)\n",
			mb(r.PeakRSSBytes), r.SeqLen, r.DecodeTokens)
	}
	fmt.Fprintf(w, "Load\t%.0f ms\n", r.LoadMillis)
	return nil
}

// mb formats bytes in megabytes (10^6).
func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// plotHistogram draws the prefill latency distribution.
func plotHistogram(r *BenchResult, path string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Prefill latency, %d tokens, %s (%d runs)", r.SeqLen, r.EP, len(r.Samples))
	p.X.Label.Text = "latency (ms)"
	p.Y.Label.Text = "runs"
	bins := min(20, max(5, len(r.Samples)/5))
	h, err := plotter.NewHist(plotter.Values(r.Samples), bins)
	if err != nil {
		return err
	}
	p.Add(h)
	return p.Save(6*vg.Inch, 4*vg.Inch, path)
}
