package decoder

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// The check of a q4 model's attention rewrite runs on twins cut after checkLayers layers, their
// LM head an identity (optimize.Options.KeepLayers), so that it does not load the whole model
// twice: a sound rewrite still passes, and a wrong one (the mask made anti-causal in every
// layer, which GroupQueryAttention cannot do) still fails.
func TestCheckOnCutTwins(t *testing.T) {
	for _, tc := range []struct {
		name, old, repl string
		gqa             bool
	}{
		{"sound", "", "", true},
		{"mismatch", "\x22\x03And", "\x22\x03Xor", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			initORT(t)
			o := synth.Tiny()
			o.Layers, o.Quant = 4, synth.QuantQ4
			o.TokenizerDir = testenv.TokenizerDir(t, "qwen3")
			dir := t.TempDir()
			if err := synth.Write(dir, o); err != nil {
				t.Fatal(err)
			}
			f, err := models.Open(dir, "")
			if err != nil {
				t.Fatal(err)
			}
			if tc.old != "" {
				b, err := os.ReadFile(f.Model)
				if err != nil || !bytes.Contains(b, []byte(tc.old)) {
					t.Fatalf("cannot replace %q (%v)", tc.old, err)
				}
				if err := os.WriteFile(f.Model, bytes.ReplaceAll(b, []byte(tc.old), []byte(tc.repl)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var twins []*proto.ModelInfo
			old := verifyTolerance
			t.Cleanup(func() { verifyTolerance = old })
			verifyTolerance = func(info *proto.ModelInfo) float64 {
				twins = append(twins, info)
				return old(info)
			}
			cache := t.TempDir()
			got := optimizedGraph(f, cache, cpu1, 4096, kernels{}, nil)
			if len(twins) != 1 {
				t.Fatalf("%d checks, want 1", len(twins))
			}
			tw := twins[0]
			pasts := 0
			for _, in := range tw.Inputs {
				if strings.HasPrefix(in.Name, "past_key_values.") {
					pasts++
				}
			}
			logits, _ := tw.Output("logits")
			products := 7 // a layer's MatMulNBits: q, k, v, o, gate, up, down, less those packed
			if graphOptions.FusePackedQKV {
				products -= 2
			}
			if graphOptions.FuseGateUp {
				products--
			}
			if pasts != 2*checkLayers || len(logits.Dims) != 3 || logits.Dims[2].Value != int64(o.Hidden) || tw.Ops[proto.OpKey("com.microsoft", "MatMulNBits")] != products*checkLayers {
				t.Errorf("the check's twin: %d cache inputs, logits %v, %d MatMulNBits; want %d layers and the hidden state (%d) as logits",
					pasts, logits.Dims, tw.Ops[proto.OpKey("com.microsoft", "MatMulNBits")], checkLayers, o.Hidden)
			}
			info, err := proto.ReadInfo(got)
			if err != nil {
				t.Fatal(err)
			}
			if gqa := info.Ops[proto.OpKey("com.microsoft", "GroupQueryAttention")]; (gqa == o.Layers) != tc.gqa {
				t.Errorf("the copy that runs has %d GroupQueryAttention nodes; want the rewrite %v", gqa, tc.gqa)
			}
			out, _ := info.Output("logits")
			if len(out.Dims) != 3 || out.Dims[2].Value != int64(o.Vocab) {
				t.Errorf("the copy that runs has logits %v", out.Dims)
			}
			gqa, _ := optimize.CachedPath(f.Model, cache, gqaOptions(4096, cpu1))
			v, _ := os.ReadFile(verdictPath(gqa, cpu1))
			t.Logf("verdict: %s", v)
			dirs, _ := os.ReadDir(filepath.Join(cache, "optimized"))
			if tc.gqa && len(dirs) != 1 { // the twins are gone
				t.Errorf("%d copies left in the cache, want the one that runs", len(dirs))
			}
		})
	}
}
