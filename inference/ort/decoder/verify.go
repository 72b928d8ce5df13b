package decoder

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"edgechat/inference"
	"edgechat/inference/sample"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
	"edgechat/reply"
)

// Tolerances of verifyAttention: the largest logit difference between a graph and its
// GroupQueryAttention rewrite, relative to the largest logit. The two compute the same
// attention in float32 in another summation order: ~1e-6 relative on the float32 test models
// and stories260K (onnx/optimize's TestSharedKVAttention), so 1e-4 leaves a margin for
// deeper models and still fails any real change (a wrong scale, mask or head grouping moves
// logits by tens of percent). Where activations are quantized to int8 at run time (MatMulNBits
// at accuracy level 4, DynamicQuantizeLinear), an ulp of difference out of attention can move
// an activation by a whole quantization step, 1/127 of its block: 0.56% was measured on the
// tiny q4 model, hence 2e-2 there. A graph computing in float16 (q4f16) rounds every result to
// 4.9e-4 relative: 1.4e-3 measured, and 2.2e-2 with int8 compute on top, hence 5e-2. Every
// row must give the same greedy token as well.
const (
	attnFloatTolerance = 1e-4
	attnInt8Tolerance  = 2e-2
	attnHalfTolerance  = 5e-2
)

// verifyTolerance is the tolerance verifyAttention applies; tests lower it to force a
// mismatch.
var verifyTolerance = func(info *proto.ModelInfo) float64 {
	for _, in := range info.Inputs {
		if in.ElemType == "float16" {
			return attnHalfTolerance
		}
	}
	for nb := range info.NBits {
		if nb.AccuracyLevel == 4 {
			return attnInt8Tolerance
		}
	}
	if info.Ops["DynamicQuantizeLinear"] > 0 {
		return attnInt8Tolerance
	}
	return attnFloatTolerance
}

// verifyAttention runs the graph ref (its attention as published, on ping-pong buffers) and
// gqa (its GroupQueryAttention rewrite, on one shared buffer) of folder f on ep through a
// 12-token prompt, four greedy tokens and a 3-row run (as prompt-lookup verification does),
// feeding both ref's greedy choices, and returns an error unless every row's logits agree
// within the tolerance and give the same greedy token (or the reference's top two are closer
// than the difference: a near tie either may break). The two run one after the other, so the
// check holds one model's weights at a time.
//
// pr hears how far the check has gone (nil: nothing).
func verifyAttention(f *models.Folder, ref, gqa string, ep inference.EP, pr *prepProgress) error {
	info, err := proto.ReadInfo(gqa)
	if err != nil {
		return err
	}
	pr.span(shareTwins, shareTwins+shareVerify)
	want, err := attentionRuns(f, ref, ep, nil, pr)
	if err != nil {
		return fmt.Errorf("the graph to compare with: %w", err)
	}
	pr.span(shareTwins+shareVerify, 1)
	got, err := attentionRuns(f, gqa, ep, want, pr)
	if err != nil {
		return fmt.Errorf("the rewritten graph: %w", err)
	}
	tol := verifyTolerance(info)
	for step := range want {
		a, b := want[step], got[step]
		if len(a.logits) != len(b.logits) {
			return fmt.Errorf("run %d: %d and %d logits", step, len(a.logits), len(b.logits))
		}
		v := len(a.logits) / a.rows
		for r := range a.rows {
			if err := sameLogits(a.logits[r*v:(r+1)*v], b.logits[r*v:(r+1)*v], tol); err != nil {
				return fmt.Errorf("run %d, row %d: %w", step, r, err)
			}
		}
	}
	return nil
}

// verifyCopy checks the GroupQueryAttention copy gqa (written with options o) against base,
// the copy without the attention rewrite. Where both compute in int8 only because of
// MatMulNBits' accuracy level (raised by EdgeChat or set by the exporter), the rewrite is
// checked on float-compute twins of the two instead, at float32's tolerance: it is exact in
// float32, while int8 compute turns an ulp into a quantization step that a deep model
// amplifies (the 28-layer Qwen3-0.6B-shaped q4 model: 4.4% of the largest logit, twice the
// int8 tolerance, so the rewrite was refused at real depth). The twins share the weights'
// file by link and are removed after the check; base is then not needed ("" when not written).
func verifyCopy(f *models.Folder, cacheDir string, o optimize.Options, base, gqa string, ep inference.EP, pr *prepProgress) error {
	info, err := proto.ReadInfo(f.Model)
	if err != nil {
		return err
	}
	if !floatTwinsHelp(info) {
		if base == "" {
			return errors.New("no copy without the rewrite to compare with")
		}
		return verifyAttention(f, base, gqa, ep, pr)
	}
	twin := func(o optimize.Options) (string, error) {
		o.AccuracyLevel, o.FloatCompute, o.KeepLayers = 0, true, checkLayers
		if o.RotaryRows > 0 {
			o.RotaryRows = checkRotaryRows // the check's runs are short: small caches
		}
		path, _, err := optimize.CachedProgress(f.Model, cacheDir, o, pr.copyProgress())
		return path, err
	}
	pr.span(shareGQA, (shareGQA+shareTwins)/2)
	ref, err := twin(graphOptions)
	if err == nil {
		defer os.RemoveAll(filepath.Dir(ref))
	}
	pr.span((shareGQA+shareTwins)/2, shareTwins)
	rewritten, err2 := twin(o)
	if err2 == nil {
		defer os.RemoveAll(filepath.Dir(rewritten))
	}
	if err := errors.Join(err, err2); err != nil {
		return fmt.Errorf("float-compute twins for the check: %w", err)
	}
	return verifyAttention(f, ref, rewritten, ep, pr)
}

// checkLayers are the layers the twins of verifyCopy keep (optimize.Options.KeepLayers):
// each layer's attention is matched and rewritten on its own, and most of a check's time is
// ONNX Runtime preparing the twins' weights, so they leave the later layers out (at 28 layers
// a twin's session takes ~30% of the whole model's, the LM head most of it).
const checkLayers = 2

// checkRotaryRows are the positions of the twins' rotary caches: more than the check's runs
// use (loadDynamic's 32), far fewer than a chat's (8 MB at 8,192 for 128-wide heads).
const checkRotaryRows = 64

// floatTwinsHelp says whether a graph computes in int8 only through MatMulNBits' accuracy
// level, once EdgeChat has set it: float32 inputs and no DynamicQuantizeLinear.
func floatTwinsHelp(info *proto.ModelInfo) bool {
	if len(info.NBits) == 0 || info.Ops["DynamicQuantizeLinear"] > 0 {
		return false
	}
	for _, in := range info.Inputs {
		if in.ElemType == "float16" {
			return false
		}
	}
	return true
}

// attentionRun is one run of verifyAttention: the ids fed and the logits of its rows.
type attentionRun struct {
	ids    []int
	rows   int
	logits []float32
}

// attentionRuns opens path as folder f's decoder on ep and makes verifyAttention's runs: with
// ref nil it chooses the ids (the reference's greedy tokens), else it feeds ref's ids. The
// rewritten graph (ref set) must run on a shared KV buffer.
//
// pr hears its progress: the session's creation, most of the time, then each run.
func attentionRuns(f *models.Folder, path string, ep inference.EP, ref []attentionRun, pr *prepProgress) ([]attentionRun, error) {
	g := *f
	g.Model = path
	pr.at(reply.StepVerifying, 0)
	d, err := loadDynamic(&g, ep, 32)
	if err != nil {
		return nil, err
	}
	pr.at(reply.StepVerifying, sessionShare)
	defer d.Close()
	if ref != nil && !d.kv.shared {
		return nil, errors.New("it does not run on a shared KV buffer")
	}
	v := d.Vocab()
	if v == 0 {
		return nil, errors.New("its vocabulary size is unknown")
	}
	ids := make([]int, 12)
	for i := range ids {
		ids[i] = (i*7919 + 101) % v
	}
	ctx := context.Background()
	var out []attentionRun
	for step := range 6 {
		if ref != nil {
			ids = ref[step].ids
		}
		var logits []float32
		rows := 1
		if step == 5 {
			logits, err = d.ForwardRows(ctx, ids)
			rows = len(ids)
		} else {
			logits, err = d.Forward(ctx, ids)
		}
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", step, err)
		}
		out = append(out, attentionRun{ids: ids, rows: rows, logits: slices.Clone(logits)})
		pr.at(reply.StepVerifying, sessionShare+(1-sessionShare)*float64(step+1)/6)
		next := sample.Argmax(logits[len(logits)-v:])
		ids = []int{next}
		if step == 4 {
			ids = []int{next, (next + 7) % v, (next + 11) % v}
		}
	}
	return out, nil
}

// sessionShare is the share of attentionRuns' time its session's creation takes: about half
// on the twins cut after checkLayers layers (it was 0.75 s of 0.92 on the whole 4-layer
// Qwen3-width q4 model).
const sessionShare = 0.5

// sameLogits compares a row of logits with the reference's.
func sameLogits(ref, got []float32, tol float64) error {
	var scale, diff float64
	for i := range ref {
		scale = max(scale, math.Abs(float64(ref[i])))
		diff = max(diff, math.Abs(float64(ref[i]-got[i])))
	}
	if !(diff <= tol*max(scale, 1e-6)) {
		return fmt.Errorf("logits differ by %.3g, %.2g of the largest (tolerance %g)", diff, diff/max(scale, 1e-6), tol)
	}
	ia, ib := sample.Argmax(ref), sample.Argmax(got)
	if ia != ib && float64(ref[ia]-ref[ib]) > 2*diff {
		return fmt.Errorf("greedy token %d, rewritten %d", ia, ib)
	}
	return nil
}
