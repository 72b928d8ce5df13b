package synth

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"edgechat/inference/sample"
	"edgechat/internal/testkit/testenv"
)

// TestMatchesNumpyReference checks the graph's math against testdata/reference.py, a numpy
// transcription of Hugging Face's Qwen3 forward pass that shares only the weights.
func TestMatchesNumpyReference(t *testing.T) {
	py := testenv.Python(t)
	o := Tiny()
	m := openHF(t, o)
	ids, mask, pos := leftPadded(prompt, 0)
	logits, _ := m.step(t, ids, mask, pos, nil)
	got := logits[(len(ids)-1)*o.Vocab:]

	dir := modelDir(t, o)
	out := filepath.Join(t.TempDir(), "ref.f32")
	args := []string{"testdata/reference.py", filepath.Join(dir, "onnx", "model.onnx"), filepath.Join(dir, "config.json"), out}
	for _, id := range ids {
		args = append(args, fmt.Sprint(id))
	}
	if b, err := exec.Command(py, args...).CombinedOutput(); err != nil {
		t.Fatalf("reference.py: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, len(raw)/4)
	for i := range want {
		want[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	// float32 against float64 through 2 layers with large weights: relative error ~1e-6 of
	// logits of magnitude ~10 stays well under 1e-3.
	d := maxDiff(t, want, got)
	if !(d < 1e-3) {
		t.Errorf("ONNX logits differ from the numpy reference by %g", d)
	}
	t.Logf("max |Δ| against numpy = %.3g (logits up to %.3g)", d, got[sample.Argmax(got)])
	if sample.Argmax(want) != sample.Argmax(got) {
		t.Errorf("argmax %d, reference %d", sample.Argmax(got), sample.Argmax(want))
	}
}
