package decoder

import (
	"fmt"

	"edgechat/inference/ort/env"
	"edgechat/models"

	ort "github.com/yalue/onnxruntime_go"
)

// newSession creates an ONNX Runtime session over a model file: the one place that does.
func newSession(path string, in, out []string, opts *ort.SessionOptions) (*ort.DynamicAdvancedSession, error) {
	return ort.NewDynamicAdvancedSession(path, in, out, opts)
}

// destroySession destroys a session made by newSession; nil is allowed.
func destroySession(s *ort.DynamicAdvancedSession) error {
	if s == nil {
		return nil
	}
	return s.Destroy()
}

// openIO creates a session over a decoder's inputs (input_ids; attention_mask, position_ids
// logits_to_keep and use_cache_branch when present; then each layer's past key and value) and outputs (logits,
// then each layer's present key and value), and returns the number of each.
func openIO(d *models.DecoderIO, path string, opts *ort.SessionOptions) (*ort.DynamicAdvancedSession, int, int, error) {
	in := []string{d.InputIDs}
	if d.AttentionMask != "" {
		in = append(in, d.AttentionMask)
	}
	if d.PositionIDs != "" {
		in = append(in, d.PositionIDs)
	}
	if d.LogitsToKeep != "" {
		in = append(in, d.LogitsToKeep)
	}
	if d.UseCacheBranch != "" {
		in = append(in, d.UseCacheBranch)
	}
	out := []string{d.Logits}
	for i := range d.Past {
		in = append(in, d.Past[i].Key, d.Past[i].Value)
		out = append(out, d.Present[i].Key, d.Present[i].Value)
	}
	var s *ort.DynamicAdvancedSession
	create := func() (err error) {
		s, err = newSession(path, in, out, opts)
		return err
	}
	var err error
	if d.KVType == "int8" {
		// A quantized cache decodes faster on GroupQueryAttention's plain path than on its
		// flash one (env.WithoutGQAFlash).
		err = env.WithoutGQAFlash(create)
	} else {
		err = create()
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("load %s: %w", path, err)
	}
	return s, len(in), len(out), nil
}
