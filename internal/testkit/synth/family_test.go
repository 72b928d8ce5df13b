package synth

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/proto"
)

// TestFamilyModels has ONNX's checker accept every family's graph, plain and merged, and
// reads their interfaces back: position_ids only where the export has it, the chosen KV
// names, use_cache_branch only on merged decoders.
func TestFamilyModels(t *testing.T) {
	testenv.Python(t)
	var files []string
	for _, f := range Families {
		for _, v := range []struct {
			name string
			edit func(o *Options)
		}{
			{"plain", nil},
			{"merged", func(o *Options) { o.Merged = true }},
			{"no position_ids, past.N", func(o *Options) { o.NoPositionIDs, o.PastNames = true, PastDotted }},
		} {
			o := FamilyTiny(f)
			if v.edit != nil {
				v.edit(&o)
			}
			dir := t.TempDir()
			if err := Write(dir, o); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, FamilyModelFile(o))
			files = append(files, path)
			mi, err := proto.ReadInfo(path)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, x := range mi.Inputs {
				names = append(names, x.Name)
			}
			past := "past_key_values.1.value"
			if o.PastNames == PastDotted {
				past = "past.1.value"
			}
			want := map[string]bool{
				"input_ids": true, "attention_mask": true, past: true,
				"position_ids":     f != FamilyOPT && !o.NoPositionIDs,
				"use_cache_branch": o.Merged,
			}
			for n, in := range want {
				if slices.Contains(names, n) != in {
					t.Errorf("%s %s: input %s present = %v, want %v (inputs %s)", f, v.name, n, !in, in, strings.Join(names, ", "))
				}
			}
			if len(mi.Outputs) != 1+2*o.Layers || mi.Outputs[0].Name != "logits" {
				t.Errorf("%s %s: outputs %v", f, v.name, mi.Outputs)
			}
		}
	}
	testenv.CheckONNX(t, files...)
	t.Logf("checked %d files", len(files))
}

// A family's options are checked: other families, layouts and shapes are refused.
func TestFamilyValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(o *Options)
		want string
	}{
		{func(o *Options) { o.Family = "bloom" }, "unknown family"},
		{func(o *Options) { o.KVHeads = 2 }, "multi-head attention"},
		{func(o *Options) { o.Layout = LayoutGenAI }, "Hugging Face layout only"},
		{func(o *Options) { o.Quant = QuantQ4 }, "float32 weights"},
		{func(o *Options) { o.Family, o.HeadDim = FamilyGPTNeoX, 4; o.Hidden = 16 }, "too small"},
		{func(o *Options) { o.Family, o.Merged = "", true }, "apply to the other families"},
	} {
		o := FamilyTiny(FamilyGPT2)
		tc.edit(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want an error naming %q", fmt.Sprint(o.Family), err, tc.want)
		}
	}
}
