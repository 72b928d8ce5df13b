package optimize_test

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"edgechat/internal/testkit/synth"
	"edgechat/onnx/optimize"
)

// A copy of a graph that holds its weights is written from the source's bytes piece by piece
// (the weights not copied in memory) and is byte for byte what Rewrite makes; writing it tells
// its steps in order, with a share that never goes back and reaches 1.
func TestCachedStreamsInlineWeights(t *testing.T) {
	path := write(t, synth.Tiny()) // weights inline: a 39 MB embedding among them
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o := optimize.Options{LastRows: true, KeepInput: true, FuseRMSNorm: true, SharedKVAttention: true}
	want, _, err := optimize.Rewrite(src, o)
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		name string
		done float64
	}
	var steps []step
	got, _, err := optimize.CachedProgress(path, t.TempDir(), o, func(name string, done float64) { steps = append(steps, step{name, done}) })
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("the copy (%d bytes) is not what Rewrite makes (%d bytes)", len(b), len(want))
	}
	var names []string
	for i, s := range steps {
		if i > 0 && s.done < steps[i-1].done {
			t.Errorf("progress went back: %v after %v", s, steps[i-1])
		}
		if len(names) == 0 || names[len(names)-1] != s.name {
			names = append(names, s.name)
		}
	}
	if !slices.Equal(names, []string{optimize.StepReading, optimize.StepRewriting, optimize.StepWriting}) || steps[len(steps)-1].done != 1 {
		t.Errorf("steps %v", steps)
	}
}
