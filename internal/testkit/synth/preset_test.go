package synth

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"edgechat/onnx/proto"
)

// TestQwen3ShapePreset writes the qwen3-0.6b-shape preset (an 870 MB model), reads its
// interface with proto.ReadInfo and checks the KV cache proof on it. It takes half a minute
// and 2 GB of memory, so it runs only with EDGECHAT_SYNTH_PRESET=1.
func TestQwen3ShapePreset(t *testing.T) {
	if os.Getenv("EDGECHAT_SYNTH_PRESET") != "1" {
		t.Skip("set EDGECHAT_SYNTH_PRESET=1 to write and run the 870 MB qwen3-0.6b-shape model")
	}
	o := Qwen3Shape()
	o.Layers = 2
	start := time.Now()
	dir := modelDir(t, o)
	t.Logf("Write: %s", time.Since(start))

	start = time.Now()
	mi, err := proto.ReadInfo(filepath.Join(dir, "onnx", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ReadInfo: %s, %d inputs, %d initializers, %d MB", time.Since(start), len(mi.Inputs), mi.Initializers, mi.InitializerBytes>>20)
	if in, _ := mi.Input("past_key_values.0.key"); dimsString(in.Dims) != "[batch_size 8 past_sequence_length 128]" {
		t.Errorf("past_key_values.0.key dims %v", in.Dims)
	}

	start = time.Now()
	m := openHF(t, o)
	t.Logf("ONNX Runtime session: %s", time.Since(start))
	ids, mask, pos := leftPadded(prompt[:5], 0)
	whole, _ := m.step(t, ids, mask, pos, nil)
	_, kv := m.step(t, ids[:4], mask[:4], pos[:4], nil)
	last, _ := m.step(t, ids[4:], mask, pos[4:], kv)
	if d := maxDiff(t, whole[4*o.Vocab:], last); !(d < 1e-3) {
		t.Errorf("one pass and cached logits differ by %g", d)
	} else {
		t.Logf("one pass vs cache: |Δ| = %.3g", d)
	}
}
