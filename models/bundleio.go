package models

import (
	"fmt"
	"slices"

	"edgechat/onnx/proto"
)

// BundleNames are the tensor names a decoder-pipeline bundle's genai_config.json gives, with
// Windows ML's defaults.
type BundleNames struct {
	InputIDs, Logits, PastSeqLen, TotalSeqLen    string
	PastKey, PastValue, PresentKey, PresentValue string // patterns with one %d
}

// BundleNamesOf reads the names from a bundle's decoder configuration.
func BundleNamesOf(d Decoder) BundleNames {
	get := func(m map[string]string, k, def string) string {
		if v := m[k]; v != "" {
			return v
		}
		return def
	}
	return BundleNames{
		InputIDs: get(d.Inputs, "input_ids", "input_ids"), Logits: get(d.Outputs, "logits", "logits"),
		PastSeqLen: get(d.Inputs, "past_sequence_length", "past_seq_len"), TotalSeqLen: get(d.Inputs, "total_sequence_length", "total_seq_len"),
		PastKey: get(d.Inputs, "past_key_names", "past_keys_%d"), PastValue: get(d.Inputs, "past_value_names", "past_values_%d"),
		PresentKey: get(d.Outputs, "present_key_names", "present_keys_%d"), PresentValue: get(d.Outputs, "present_value_names", "present_values_%d"),
	}
}

// GQAIO is a bundle's ctx or iter graph's interface: GroupQueryAttention over one KV buffer
// per layer and tensor.
type GQAIO struct {
	HiddenIn, HiddenOut         string
	Seq                         int // rows per run; 0 when dynamic
	Past, Present               []KVPair
	KVType                      string
	Heads, Rows, HeadDim, Width int
}

// KVDesc describes the KV buffers, to tell whether ctx and iter come from one build.
func (g *GQAIO) KVDesc() string {
	return fmt.Sprintf("%d layers of %s [1,%d,%d,%d]", len(g.Past), g.KVType, g.Heads, g.Rows, g.HeadDim)
}

// DescribeGQA reads a ctx or iter graph's interface; path names the graph in errors.
func DescribeGQA(path string, info *proto.ModelInfo, n BundleNames) (*GQAIO, error) {
	g := &GQAIO{}
	var err error
	if g.Past, err = KVNames(info.Inputs, PastPattern, n.PastKey, n.PastValue); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if g.Present, err = KVNames(info.Outputs, PresentPattern, n.PresentKey, n.PresentValue); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(g.Past) == 0 || len(g.Past) != len(g.Present) {
		return nil, fmt.Errorf("%s: found %d past and %d present key/value pairs (%s, %s); expected one of each per layer", path, len(g.Past), len(g.Present), n.PastKey, n.PresentKey)
	}
	known := map[string]bool{n.PastSeqLen: true, n.TotalSeqLen: true}
	for _, p := range slices.Concat(g.Past, g.Present) {
		known[p.Key], known[p.Value] = true, true
	}
	for _, name := range []string{n.PastSeqLen, n.TotalSeqLen} {
		if v, ok := info.Input(name); !ok || v.ElemType != "int32" {
			return nil, fmt.Errorf("%s needs an int32 input %s (GroupQueryAttention's sequence lengths); found %q", path, name, v.ElemType)
		}
	}
	for i, list := range [][]proto.IO{info.Inputs, info.Outputs} {
		var other []proto.IO
		for _, v := range list {
			if !known[v.Name] {
				other = append(other, v)
			}
		}
		if len(other) != 1 || other[0].ElemType != "float32" || len(other[0].Dims) != 3 {
			return nil, fmt.Errorf("%s: expected one float32 hidden-state tensor [1, seq, hidden] among the %s besides the KV cache, found %s", path, [2]string{"inputs", "outputs"}[i], ListNames(other))
		}
		if i == 0 {
			g.HiddenIn, g.Seq, g.Width = other[0].Name, int(max(other[0].Dims[1].Value, 0)), int(other[0].Dims[2].Value)
		} else {
			g.HiddenOut = other[0].Name
		}
	}
	past, _ := info.Input(g.Past[0].Key)
	if len(past.Dims) != 4 || past.Dims[1].Value <= 0 || past.Dims[3].Value <= 0 || g.Width <= 0 {
		return nil, fmt.Errorf("%s: past key %s has shape %s; expected [1, kv_heads, context_length, head_dim]", path, past.Name, ShapeString(past.Dims))
	}
	if past.ElemType != "float32" && past.ElemType != "float16" {
		return nil, fmt.Errorf("%s: KV cache type %s is not supported (float32 or float16)", path, past.ElemType)
	}
	g.KVType, g.Heads, g.Rows, g.HeadDim = past.ElemType, int(past.Dims[1].Value), int(max(past.Dims[2].Value, 0)), int(past.Dims[3].Value)
	return g, nil
}
