package lookup_test

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"edgechat/inference/lookup"
	"edgechat/inference/ort/env"
	"edgechat/inference/ort/loop"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/optimize"
)

func openLoop(t *testing.T, path string) *loop.Loop {
	t.Helper()
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	l, err := loop.Open(path, loop.Options{Threads: 1, MaxTokens: 512})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// storiesReference is stories260K's prompt and greedy continuation (its README).
var storiesReference = []int{1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410, 408, 419,
	292, 411, 322, 265, 282, 295, 433, 426, 385, 328, 432, 358, 394, 261, 370, 432, 352, 266, 268, 388, 426}

// sameReplies decodes each prompt plainly and with lookup on two sessions of the same graph
// and requires the same tokens; it returns the decoder runs each needed.
func sameReplies(t *testing.T, plain, fast *loop.Loop, prompts [][]int, n int) (plainRuns, lookupRuns int) {
	t.Helper()
	for _, p := range prompts {
		a, err := lookup.Greedy(plain, p, n, func(id int) bool { return id == 2 }, nil)
		if err != nil {
			t.Fatal(err)
		}
		// A fixed row cost keeps the drafts, and so the run counts, independent of timing:
		// stories260K's measured T(k+1)/T(1) grows ~0.06 a row (BenchmarkVerifyRows).
		b, err := lookup.Greedy(fast, p, n, func(id int) bool { return id == 2 }, lookup.New(lookup.Options{RowCost: 0.06}))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Tokens, b.Tokens) {
			t.Fatalf("prompt %v:\nplain  %v\nlookup %v", p, a.Tokens, b.Tokens)
		}
		plainRuns, lookupRuns = plainRuns+a.Forwards, lookupRuns+b.Forwards
		plain.Truncate(0)
		fast.Truncate(0)
	}
	return plainRuns, lookupRuns
}

// TestStoriesSameAsPlain runs the real stories260K model (float32): 24 prompts taken from its
// reference story, 120 greedy tokens each, identical with and without lookup. Its greedy
// stories repeat phrases, so lookup must also save decoder runs.
func TestStoriesSameAsPlain(t *testing.T) {
	path := filepath.Join(testenv.SharedModel(t, "stories260K"), "onnx", "model.onnx")
	plain, fast := openLoop(t, path), openLoop(t, path)
	var prompts [][]int
	for i := range 24 {
		end := 2 + i*len(storiesReference)/24
		prompts = append(prompts, append([]int{1}, storiesReference[max(1, end-8):end]...))
	}
	p, l := sameReplies(t, plain, fast, prompts, 120)
	t.Logf("decoder runs after the prompt: %d plain, %d with lookup (%.2f× fewer)", p, l, float64(p)/float64(l))
	if float64(p) < 1.2*float64(l) { // 1.29× when the drafter was last tuned
		t.Errorf("lookup saved too few runs on stories: %d vs %d plain", l, p)
	}
}

// TestSyntheticSameAsPlain runs a random-weight Qwen3 decoder, as published and through the
// optimized copy whose LM head returns only the logits_to_keep rows verification needs.
func TestSyntheticSameAsPlain(t *testing.T) {
	path, keep := writeSynthetic(t, synth.Tiny())
	r := rand.New(rand.NewPCG(3, 4))
	var prompts [][]int
	for range 12 {
		p := randomIDs(r, 4+r.IntN(20), 0, 151936)
		prompts = append(prompts, append(p, p[:len(p)/2]...)) // some repetition to draft from
	}
	for _, g := range []string{path, keep} {
		sameReplies(t, openLoop(t, path), openLoop(t, g), prompts, 40)
	}
}

// writeSynthetic writes a synthetic model and returns its graph and the optimized copy whose
// LM head returns only the logits_to_keep rows verification needs.
func writeSynthetic(t *testing.T, o synth.Options) (path, optimized string) {
	t.Helper()
	dir := t.TempDir()
	if err := synth.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "onnx", o.Quant.File())
	optimized, _, err := optimize.Cached(path, t.TempDir(), optimize.Options{LastRows: true, KeepInput: true})
	if err != nil {
		t.Fatal(err)
	}
	return path, optimized
}

// randomIDs is n token ids drawn from [from, from+span).
func randomIDs(r *rand.Rand, n, from, span int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = from + r.IntN(span)
	}
	return p
}

// TestCopyingModelSameAsPlain runs a model whose weights quote (synth's induction circuit, int4
// as published and through the optimized copy): asked to go on with a passage whose opening
// it has just seen again, it repeats the passage, and lookup must give the same tokens in a
// third of the runs or fewer.
func TestCopyingModelSameAsPlain(t *testing.T) {
	o := synth.SmallCopying()
	o.Quant = synth.QuantQ4
	path, fast := writeSynthetic(t, o)
	r := rand.New(rand.NewPCG(5, 6))
	var prompts [][]int
	for range 6 {
		p := randomIDs(r, 60+r.IntN(40), 10, 4000)
		prompts = append(prompts, append(p, p[:10+r.IntN(20)]...))
	}
	plain, look := 0, 0
	for name, g := range map[string]string{"as published": path, "optimized copy": fast} {
		p, l := sameReplies(t, openLoop(t, path), openLoop(t, g), prompts, 40)
		t.Logf("%s: decoder runs after the prompt: %d plain, %d with lookup", name, p, l)
		plain, look = plain+p, look+l
	}
	if 3*look > plain {
		t.Errorf("lookup took %d runs where plain decoding took %d: a model that quotes should need a third or fewer", look, plain)
	}
}
