package decoder

import (
	"path/filepath"

	"edgechat/internal/residency"

	ort "github.com/yalue/onnxruntime_go"
)

// newSession creates an ONNX Runtime session over a model file. Creating and destroying
// sessions maps and unmaps weight files, so both run inside residency.Hold: a release of
// mapped weight pages never overlaps them. Creating one also pages out the large weight
// mappings as pre-packing reads them (residency.Loading).
func newSession(path string, in, out []string, opts *ort.SessionOptions) (s *ort.DynamicAdvancedSession, err error) {
	residency.Loading(filepath.Dir(path), func() { s, err = ort.NewDynamicAdvancedSession(path, in, out, opts) })
	return s, err
}

// destroySession destroys a session made by newSession; nil is allowed.
func destroySession(s *ort.DynamicAdvancedSession) (err error) {
	if s == nil {
		return nil
	}
	residency.Hold(func() { err = s.Destroy() })
	return err
}
