package synth

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/onnx/proto"
)

// TestGenAIConfigNames checks that every name genai_config.json gives (directly or as a %d
// pattern) is an input or output of the ONNX file it belongs to.
func TestGenAIConfigNames(t *testing.T) {
	for _, layout := range []Layout{LayoutGenAI, LayoutBundle} {
		t.Run(string(layout), func(t *testing.T) {
			o := Tiny()
			o.Layout = layout
			dir := modelDir(t, o)
			var cfg genaiJSON
			readJSON(t, filepath.Join(dir, "genai_config.json"), &cfg)
			m := cfg.Model
			if m.ContextLength <= 0 || m.BosTokenID != EndOfText || m.PadTokenID != EndOfText || len(m.EosTokenID) != 2 {
				t.Errorf("model section %+v", m)
			}
			if s := cfg.Search; s.MaxLength != m.ContextLength || s.TopK != 20 || s.TopP != 0.95 || s.Temperature != 0.6 || !s.DoSample {
				t.Errorf("search section %+v", s)
			}
			names := func(file string) map[string]bool {
				mi, err := proto.ReadInfo(filepath.Join(dir, file))
				if err != nil {
					t.Fatal(err)
				}
				set := map[string]bool{}
				for _, io := range append(mi.Inputs, mi.Outputs...) {
					set[io.Name] = true
				}
				return set
			}
			expand := func(pattern string) []string {
				if !strings.Contains(pattern, "%d") {
					return []string{pattern}
				}
				var out []string
				for l := range o.Layers {
					out = append(out, fmt.Sprintf(pattern, l))
				}
				return out
			}
			check := func(file string, list []string) {
				have := names(file)
				for _, n := range list {
					for _, name := range expand(n) {
						if !have[name] {
							t.Errorf("%s has no %s", file, name)
						}
					}
				}
			}
			d := m.Decoder
			if layout == LayoutGenAI {
				var all []string
				for _, v := range d.Inputs {
					all = append(all, v)
				}
				for _, v := range d.Outputs {
					all = append(all, v)
				}
				check(d.Filename, all)
				return
			}
			if m.Type != "decoder-pipeline" || !cfg.Search.PastPresentShareBuffer || len(d.Pipeline) != 4 {
				t.Errorf("bundle config: type %q, share %v, %d stages", m.Type, cfg.Search.PastPresentShareBuffer, len(d.Pipeline))
			}
			for _, st := range d.Pipeline {
				for _, s := range st {
					check(s.Filename, append(s.Inputs, s.Outputs...))
				}
			}
			mi, err := proto.ReadInfo(filepath.Join(dir, BundleContextFile))
			if err != nil {
				t.Fatal(err)
			}
			if n := mi.Ops[proto.OpKey("com.microsoft", "GroupQueryAttention")]; n != o.Layers {
				t.Errorf("ctx.onnx has %d GroupQueryAttention nodes, want %d (ops %v)", n, o.Layers, mi.OpTypes())
			}
		})
	}
}
