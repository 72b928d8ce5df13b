package fakehub

import (
	"net/http/httptest"
	"os"
	"path/filepath"

	"edgechat/internal/testkit/synth"
)

// WriteModel writes a synthetic Hugging Face export (layout A) with two variants into dir:
// onnx/model_q4.onnx (weights inside the graph) and onnx/model.onnx with its weights in
// onnx/model.onnx_data, beside config.json, generation_config.json and, when o.TokenizerDir
// is set, the tokenizer files. o.Layout is ignored.
func WriteModel(dir string, o synth.Options) error {
	o.Layout, o.ExternalData = synth.LayoutHF, false
	if err := synth.Write(dir, o); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(dir, "onnx", "model.onnx"), filepath.Join(dir, "onnx", "model_q4.onnx")); err != nil {
		return err
	}
	ext := filepath.Join(dir, "ext")
	o.ExternalData, o.TokenizerDir, o.Seed = true, "", o.Seed+1
	if err := synth.Write(ext, o); err != nil {
		return err
	}
	for _, n := range []string{"model.onnx", "model.onnx_data"} {
		if err := os.Rename(filepath.Join(ext, "onnx", n), filepath.Join(dir, "onnx", n)); err != nil {
			return err
		}
	}
	return os.RemoveAll(ext)
}

// Server is a hub and its CDN listening on loopback.
type Server struct {
	*Hub
	URL    string // the hub: set HF_ENDPOINT to it
	hub    *httptest.Server
	cdn    *httptest.Server
	closed bool
}

// Start serves repos on two loopback ports (hub and CDN).
func Start(repos ...*Repo) *Server {
	h := New(repos...)
	cdn := httptest.NewServer(h.CDNHandler())
	h.CDN = cdn.URL
	hub := httptest.NewServer(h.Handler())
	return &Server{Hub: h, URL: hub.URL, hub: hub, cdn: cdn}
}

// Close stops both servers.
func (s *Server) Close() {
	if s.closed {
		return
	}
	s.closed = true
	s.Hub.Close()
	s.hub.CloseClientConnections()
	s.cdn.CloseClientConnections()
	s.hub.Close()
	s.cdn.Close()
}
