package models

import (
	"strings"
	"testing"

	"edgechat/onnx/proto"
)

// DescribeDecoder reads the KV names of each export style, and refuses a stacked past
// (ONNX Runtime's older GPT-2 export: past_N [2, batch, heads, past, head_dim]) with what to
// do instead of a count of missing pairs.
func TestDescribeDecoderKVStyles(t *testing.T) {
	f := func(v int64) proto.Dim { return proto.Dim{Value: v} }
	p := func(s string) proto.Dim { return proto.Dim{Param: s} }
	kv := func(name string) proto.IO {
		return proto.IO{Name: name, ElemType: "float32", Dims: []proto.Dim{p("batch"), f(4), p("past"), f(16)}}
	}
	ids := proto.IO{Name: "input_ids", ElemType: "int64", Dims: []proto.Dim{p("batch"), p("seq")}}
	logits := proto.IO{Name: "logits", ElemType: "float32", Dims: []proto.Dim{p("batch"), p("seq"), f(512)}}
	for _, tc := range []struct {
		name    string
		in, out []proto.IO
		want    string // "" for success
	}{
		{"optimum", []proto.IO{ids, kv("past_key_values.0.key"), kv("past_key_values.0.value")},
			[]proto.IO{logits, kv("present.0.key"), kv("present.0.value")}, ""},
		{"dotted", []proto.IO{ids, kv("past.0.key"), kv("past.0.value")},
			[]proto.IO{logits, kv("present.0.key"), kv("present.0.value")}, ""},
		{"merged", []proto.IO{ids, kv("past_key_values.0.key"), kv("past_key_values.0.value"), {Name: "use_cache_branch", ElemType: "bool", Dims: []proto.Dim{f(1)}}},
			[]proto.IO{logits, kv("present.0.key"), kv("present.0.value")}, ""},
		{"stacked", []proto.IO{ids, {Name: "past_0", ElemType: "float32", Dims: []proto.Dim{f(2), p("batch"), f(4), p("past"), f(16)}}},
			[]proto.IO{logits, {Name: "present_0", ElemType: "float32", Dims: []proto.Dim{f(2), p("batch"), f(4), p("total"), f(16)}}}, "export the model again with Hugging Face Optimum"},
		{"use_cache_branch not bool", []proto.IO{ids, kv("past_key_values.0.key"), kv("past_key_values.0.value"), {Name: "use_cache_branch", ElemType: "int64", Dims: []proto.Dim{f(1)}}},
			[]proto.IO{logits, kv("present.0.key"), kv("present.0.value")}, "use_cache_branch is int64"},
	} {
		d, err := DescribeDecoder("m.onnx", tc.in, tc.out, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want one saying %q", tc.name, err, tc.want)
		case tc.want == "" && (d.Layers() != 1 || d.KVHeads != 4 || d.HeadDim != 16):
			t.Errorf("%s: %d layers, %d heads of %d", tc.name, d.Layers(), d.KVHeads, d.HeadDim)
		case tc.name == "merged" && d.UseCacheBranch != "use_cache_branch":
			t.Errorf("merged: UseCacheBranch = %q", d.UseCacheBranch)
		}
	}
}
