package decoder

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"edgechat/inference"
	"edgechat/internal/eps"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// graphOptions are the rewrites of a dynamic decoder's optimized copy: MatMulNBits at accuracy
// level 4 where unset, the LM head on the last logits_to_keep rows only (1 in prefill and
// decoding, k+1 when checking k drafted tokens), and with it the last layer's work after
// attention where the graph allows, RMSNorms as one node each, and each residual add fused
// into the norm after it (one node less per norm: ~0.95× a decode step's time at 2 threads on
// the 28-layer Qwen3-0.6B-shaped q4 model, paired steps; see onnx/optimize/skipnorm.go), and
// each layer's Q, K and V projections and its gate and up projections as one MatMulNBits each
// (packed weights and a Split: ~0.91× a decode step's CPU and wall time on that model, prefill
// unchanged; see onnx/optimize/packed.go and inference/ort/kernbench/DECODE.md).
var graphOptions = optimize.Options{AccuracyLevel: 4, LastRows: true, KeepInput: true, LastLayerRows: true, FuseRMSNorm: true, FuseSkipNorm: true,
	FusePackedQKV: true, FuseGateUp: true}

// optimizedGraph returns the graph to run for the dynamic decoder of folder f: with a cache
// folder, the cached optimized copy of f.Model (see graphOptions and onnx/optimize), else
// the file itself. A copy that cannot be made is logged and the file runs as published.
//
// The copy also gets GroupQueryAttention in place of the export's concatenating attention
// (optimize.Options.SharedKVAttention: one KV buffer appended in place, so decoding does not
// slow down as the context grows) when the rewrite recognises the graph and the rewritten
// copy, run on ep, gives the logits of the copy without it (verifyAttention). The verdict is
// kept beside the copy (one per execution provider: GroupQueryAttention is not everywhere), so
// the check runs once per graph; otherwise the copy without the attention rewrite runs, and
// the log says why.
//
// The GroupQueryAttention copy also rotates queries and keys itself where it can (see
// optimize.Options.RotaryRows), with caches for maxCtx positions rounded up to a multiple of
// rotaryRowsStep, so that one copy serves every context up to that.
//
// With kern set (attnKernel, matMulKernel), the GroupQueryAttention copy's attention and int4
// products run on EdgeChat's own kernels instead, when that copy passes the same check (its
// own verdict, kept the same way); otherwise the log says why and the next copy of
// kern.fallbacks runs (the attention kernels alone, then none), checked the same way.
//
// pr hears how far the preparation has gone (nil: nothing).
func optimizedGraph(f *models.Folder, cacheDir string, ep inference.EP, maxCtx int, kern kernels, pr *prepProgress) string {
	if cacheDir == "" {
		return f.Model
	}
	if why, ok := optimize.Fallback(f.Model, cacheDir); ok {
		slog.Info("running the graph as published: its optimized copy did not load", "graph", f.Model, "reason", why)
		return f.Model
	}
	o := gqaOptions(maxCtx, ep)
	for _, k := range kern.fallbacks() {
		// A verdict against a kernels' copy goes straight to the next copy (checkedGraph's retry).
		graph, v := checkedGraph(f, cacheDir, ep, k.apply(o), true, pr)
		if v == "ok" || strings.HasPrefix(v, notRecognised) {
			return graph // not recognised: the copy without the kernels would not be either
		}
		if k.prenorm {
			slog.Warn("the norms stay nodes of their own: the copy with them inside the products failed its check", "graph", f.Model, "reason", v)
		} else if k.swiglu {
			slog.Warn("the down projections keep their activation (Split, SiLU, Mul): the copy with it fused failed its check", "graph", f.Model, "reason", v)
		} else if k.mm.Domain != "" {
			slog.Warn("int4 products run on ONNX Runtime's MatMulNBits: the copy on EdgeChat's product kernel failed its check", "graph", f.Model, "reason", v)
		} else {
			slog.Warn("attention runs on ONNX Runtime's GroupQueryAttention: the copy on EdgeChat's kernels failed its check", "graph", f.Model, "reason", v)
		}
	}
	graph, _ := checkedGraph(f, cacheDir, ep, o, false, pr)
	return graph
}

// checkedGraph is optimizedGraph's copy with options o (SharedKVAttention on) where its
// verdict (checkedAttention's, kept beside it) is "ok", else the copy without the attention
// rewrite (or the graph as published), and the verdict. With retry (another copy's check
// follows a failed one) a failed check returns "" instead: the copy without the rewrite is
// not written for it.
func checkedGraph(f *models.Folder, cacheDir string, ep inference.EP, o optimize.Options, retry bool, pr *prepProgress) (string, string) {
	gqa, err := optimize.CachedPath(f.Model, cacheDir, o)
	if err != nil {
		pr.span(0, 1)
		return optimizedCopy(f.Model, cacheDir, graphOptions, pr), "no copy: " + err.Error()
	}
	verdict := verdictPath(gqa, ep)
	b, err := os.ReadFile(verdict)
	known := err == nil
	v := strings.TrimSpace(string(b))
	if known && retry && v != "ok" && !strings.HasPrefix(v, notRecognised) {
		return "", v // a kept failed check: the other copy runs, with nothing written for this one
	}
	if known && v == "ok" {
		if _, err := os.Stat(gqa); err == nil {
			return gqa, v
		}
		known = false // the copy was removed: check again
	} else if known {
		slog.Info("attention left as published", "graph", f.Model, "reason", v)
	}
	pr.span(0, 1)
	if !known {
		pr.span(0, shareBase) // the attention check's parts follow
	}
	// The copy without the attention rewrite is what a failed check runs, and what the check
	// compares with unless it runs on float-compute twins: then it is written only if needed.
	var base string
	if known || !checkedOnTwins(f.Model) {
		base = optimizedCopy(f.Model, cacheDir, graphOptions, pr)
		if base == f.Model || known {
			return base, v
		}
	}
	v = checkedAttention(f, cacheDir, o, base, ep, pr)
	err = os.MkdirAll(filepath.Dir(verdict), 0o755)
	if err == nil {
		err = os.WriteFile(verdict, []byte(v+"\n"), 0o644)
	}
	if err != nil {
		slog.Warn("cannot record the attention check", "file", verdict, "err", err)
	}
	if v != "ok" {
		if strings.HasPrefix(v, notRecognised) {
			os.Remove(gqa) // the same graph as base: keep the verdict, not the copy
		}
		if retry && !strings.HasPrefix(v, notRecognised) {
			return "", v // the next check compares with base, and removes it when it passes
		}
		if base == "" {
			base = optimizedCopy(f.Model, cacheDir, graphOptions, pr)
		}
		return base, v
	}
	if base != "" {
		// The checked copy replaces the other in the cache (its folder holds only the copy
		// and links to, or copies of, the weights).
		os.RemoveAll(filepath.Dir(base))
	}
	return gqa, v
}

// checkedOnTwins says whether verifyCopy checks the graph at path on float-compute twins.
func checkedOnTwins(path string) bool {
	info, err := proto.ReadInfo(path)
	return err == nil && floatTwinsHelp(info)
}

// gqaOptions are graphOptions with the attention rewrite, for a cache of up to maxCtx tokens
// on ep. The rotation moves into the attention on the CPU only, where it was measured
// (prefill 126–131 ms against 137–139 on the q4 Qwen3-width model): another provider's
// GroupQueryAttention may lack it, and would then fail the check and lose the shared buffer too.
func gqaOptions(maxCtx int, ep inference.EP) optimize.Options {
	o := graphOptions
	o.SharedKVAttention = true
	if eps.IsCPU(ep.Name) {
		o.RotaryRows = (max(maxCtx, 1) + rotaryRowsStep - 1) / rotaryRowsStep * rotaryRowsStep
	}
	return o
}

// CPUCopyOptions are the rewrites of the optimized copy the app runs on the CPU for a cache
// of up to maxCtx tokens of the graph at path (a model folder's file), for tools that
// measure or calibrate that copy (kvcalib, kernbench): with its attention and int4 products
// on EdgeChat's kernels where the app's would be (attnKernel, matMulKernel; ONNX Runtime must
// be loaded), and then opened with KernelSetup. The copy's check is the app's part: a tool
// gets the copy unchecked.
func CPUCopyOptions(path string, maxCtx int) optimize.Options {
	ep := inference.EP{Name: "cpu"}
	o := gqaOptions(maxCtx, ep)
	if f, err := models.Open(path, ""); err == nil {
		o.AttentionKernel, _ = attnKernel(f, inference.LoadOptions{EP: ep})
		o.MatMulKernel, _ = matMulKernel(f, inference.LoadOptions{EP: ep})
		o.FuseSwiGLU, o.FusePreNorm = swigluOn(o.MatMulKernel), preNormOn(o.MatMulKernel)
	}
	return o
}

// rotaryRowsStep rounds the rotary caches' positions up: 8,192 positions of Qwen3-0.6B's
// 128-wide heads take 4 MB (cos and sin).
const rotaryRowsStep = 8192

// verdictPath is the file recording whether the GroupQueryAttention copy gqa runs on ep.
func verdictPath(gqa string, ep inference.EP) string {
	name := ep.Name
	if name == "" {
		name = "cpu"
	}
	return gqa + "." + name + ".verified"
}

// The shares of the first load's preparation, in order, up to 1: the copy without the
// attention rewrite, the copy with it, the float-compute twins of the check, then the check's
// two halves (each a session and its short runs: most of the time).
const (
	shareBase   = 0.04
	shareGQA    = 0.08
	shareTwins  = 0.12
	shareVerify = (1 - shareTwins) / 2
)

// notRecognised starts the verdict on a graph whose attention the rewrite does not know.
const notRecognised = "not recognised: "

// checkedAttention writes the copy of f.Model with options o (SharedKVAttention on) and
// returns "ok" when its attention was rewritten and verifyAttention passes against base, else
// why not.
func checkedAttention(f *models.Folder, cacheDir string, o optimize.Options, base string, ep inference.EP, pr *prepProgress) string {
	pr.onTo(shareGQA) // from 0 when the copy without the rewrite waits for the check's verdict
	gqa, rep, err := optimize.CachedProgress(f.Model, cacheDir, o, pr.copyProgress())
	if err != nil {
		slog.Warn("no shared-KV attention", "graph", f.Model, "reason", err)
		return "rewrite failed: " + err.Error()
	}
	if rep.AttentionLayers == 0 {
		if info, err := proto.ReadInfo(gqa); err != nil || info.Metadata[optimize.MetaAttention] == "" {
			why := notRecognised + rep.AttentionSkipped
			slog.Info("attention left as published", "graph", f.Model, "reason", why)
			return why
		}
	}
	if err := verifyCopy(f, cacheDir, o, base, gqa, ep, pr); err != nil {
		slog.Warn("the GroupQueryAttention copy does not match the graph; running it without", "graph", f.Model, "reason", err)
		return "mismatch: " + err.Error()
	}
	if o.MatMulKernel.Domain != "" {
		slog.Info("int4 products run on EdgeChat's kernel", "graph", f.Model, "copy", gqa, "nodes", rep.MatMulKernelNodes, "left_because", rep.MatMulKernelSkipped,
			"swiglu_fused", rep.SwiGLU, "swiglu_left_because", rep.SwiGLUSkipped, "prenorm_fused", rep.PreNorm, "prenorm_left_because", rep.PreNormSkipped, "layout1", rep.Cols16, "layout1_left_because", rep.Cols16Skipped)
	}
	if o.AttentionKernel != (optimize.AttentionKernel{}) {
		slog.Info("attention runs on EdgeChat's kernels on one KV buffer", "graph", f.Model, "copy", gqa, "nodes", rep.AttentionKernelNodes, "left_because", rep.AttentionKernelSkipped,
			"qk_norms_folded", rep.QKNormFolded, "qk_left_because", rep.QKNormSkipped)
	} else if rep.RotaryRows > 0 {
		slog.Info("attention runs as GroupQueryAttention on one KV buffer, rotating queries and keys itself", "graph", f.Model, "copy", gqa, "rotary_positions", rep.RotaryRows)
	} else {
		slog.Info("attention runs as GroupQueryAttention on one KV buffer", "graph", f.Model, "copy", gqa, "rotary_left_because", rep.RotarySkipped)
	}
	return "ok"
}

// optimizedCopy returns the cached copy of path with the rewrites o chooses (an embedding
// model's hidden states are all needed: it takes the accuracy level only), or path itself
// without a cache folder or when the copy cannot be made.
//
// pr hears how far writing the copy has gone (nil: nothing).
func optimizedCopy(path, cacheDir string, o optimize.Options, pr *prepProgress) string {
	if cacheDir == "" {
		return path
	}
	if why, ok := optimize.Fallback(path, cacheDir); ok {
		slog.Info("running the graph as published: its optimized copy did not load", "graph", path, "reason", why)
		return path
	}
	out, rep, err := optimize.CachedProgress(path, cacheDir, o, pr.copyProgress())
	if err != nil {
		slog.Warn("running the graph as published", "graph", path, "reason", err)
		return path
	}
	if rep.LMHead != "" || rep.AccuracyLevelSet > 0 {
		slog.Info("wrote an optimized copy of the graph", "graph", path, "copy", out, "accuracy_level_set", rep.AccuracyLevelSet, "lm_head", rep.LMHead,
			"last_layer_nodes", rep.LastLayerNodes, "last_layer_skipped", rep.LastLayerSkipped, "merged_decoder_inlined", rep.Unmerged)
	}
	return out
}

// withPublishedFallback opens graph, EdgeChat's optimized copy of the graph published (or
// published itself), with open. When ONNX Runtime refuses the copy while the published graph
// opens, the refusal is recorded in cacheDir (later loads go straight to the published graph
// and `inspect` says why), logged once, and the published graph's decoder returned: no graph
// fails to load because of EdgeChat's rewrites. When both fail, the published graph's error
// is the one to show.
func withPublishedFallback[T any](published, graph, cacheDir string, open func(graph string) (T, error)) (T, error) {
	d, err := open(graph)
	if err == nil || graph == published {
		return d, err
	}
	var epErr *EPError
	if errors.As(err, &epErr) {
		return d, err // the provider, not the copy: the published graph would fail the same way
	}
	if kerr := (*KernelError)(nil); errors.As(err, &kerr) {
		return d, err // the kernels, not the copy: Open runs the copy without them
	}
	d, perr := open(published)
	if perr != nil {
		return d, perr
	}
	slog.Warn("EdgeChat's optimized copy of the graph did not load; running the graph as published", "graph", published, "copy", graph, "reason", err)
	if rerr := optimize.RecordFallback(published, cacheDir, err.Error()); rerr != nil {
		slog.Warn("cannot record that the optimized copy is not used", "graph", published, "err", rerr)
	}
	return d, nil
}
