package models

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
)

// tinyFolder writes a tiny synthetic model in layout l with Qwen3's tokenizer.
func tinyFolder(t *testing.T, l synth.Layout) string {
	t.Helper()
	o := synth.Tiny()
	o.TokenizerDir, o.Layout = testenv.TokenizerDir(t, "qwen3"), l
	dir := filepath.Join(t.TempDir(), string(l))
	if err := synth.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Inspect names each layout, reads the decoder's shape from its graphs, and lists a bundle's
// stages with the EP each runs on.
func TestInspectLayouts(t *testing.T) {
	for _, tc := range []struct {
		layout synth.Layout
		letter string
		graphs []GraphReport // Role, File and EP compared
	}{
		{synth.LayoutHF, "A", []GraphReport{{Role: "decoder", File: "model.onnx"}}},
		{synth.LayoutGenAI, "B", []GraphReport{{Role: "decoder", File: "model.onnx"}}},
		{synth.LayoutStatic, "C", []GraphReport{{Role: "prefill", File: synth.StaticPrefillFile}, {Role: "gen", File: synth.StaticGenFile}}},
		{synth.LayoutBundle, "D", []GraphReport{{Role: "embeddings", File: "embeddings.onnx", EP: "cpu"}, {Role: "context", File: "ctx.onnx", EP: "qnn"},
			{Role: "iterator", File: "iter.onnx", EP: "qnn"}, {Role: "lm_head", File: "lm_head.onnx", EP: "cpu"}}},
	} {
		t.Run(tc.letter, func(t *testing.T) {
			dir := tinyFolder(t, tc.layout)
			r, err := Inspect(dir, "")
			if err != nil {
				t.Fatal(err)
			}
			if r.LayoutLetter != tc.letter || r.NeedsQNN || r.Layers != 2 || r.KVHeads != 2 || r.HeadDim != 16 || r.KVType != "float32" {
				t.Errorf("layout %s, needs QNN %v, %d layers, KV %s %d×%d", r.LayoutLetter, r.NeedsQNN, r.Layers, r.KVType, r.KVHeads, r.HeadDim)
			}
			if c := r.Tokenizer.Components; c == nil || !strings.HasPrefix(c.Model, "BPE") || len(c.PreTokenizer) == 0 || r.Tokenizer.File != "tokenizer.json" {
				t.Errorf("tokenizer %+v, components %+v: want the BPE pipeline of tokenizer.json named", r.Tokenizer, c)
			}
			var got []GraphReport
			for _, g := range r.Graphs {
				got = append(got, GraphReport{Role: g.Role, File: g.File, EP: g.EP})
			}
			if diff := cmp.Diff(tc.graphs, got); diff != "" {
				t.Errorf("graphs (-want +got):\n%s", diff)
			}
			f, err := Open(dir, "")
			if err != nil {
				t.Fatal(err)
			}
			var sum int64
			for _, g := range r.Graphs {
				sum += g.SizeBytes
			}
			if n := f.FileBytes(); n != sum || n == 0 {
				t.Errorf("FileBytes %d, graphs add up to %d", n, sum)
			}
		})
	}
}
