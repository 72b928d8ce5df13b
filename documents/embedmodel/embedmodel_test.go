package embedmodel

import (
	"context"
	"path/filepath"
	"testing"

	"edgechat/config"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
)

func TestOpener(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Qwen3-Embedding-tiny")
	o := synth.Tiny()
	o.Layout, o.TokenizerDir = synth.LayoutEmbedding, testenv.TokenizerDir(t, "qwen3")
	if err := synth.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	s := config.Defaults()
	s.ORTLibrary = testenv.ORTLibrary(t)
	s.ModelsDir = t.TempDir() // nothing to find
	if Opener(s, config.EmbeddingOff) != nil {
		t.Error("off gives an opener")
	}
	e, err := Opener(s, dir)()
	if err != nil {
		t.Fatal(err)
	}
	defer e.(interface{ Close() error }).Close()
	if n := e.(interface{ ModelName() string }).ModelName(); n != "Qwen3-Embedding-tiny" {
		t.Errorf("name %q", n)
	}
	if v, err := e.EmbedQuery(context.Background(), "hello"); err != nil || len(v) != o.Hidden {
		t.Errorf("EmbedQuery: %d dimensions, %v", len(v), err)
	}
	s.ModelsDir = filepath.Dir(dir) // found automatically
	t.Setenv("HOME", t.TempDir())
	found, err := Opener(s, "")()
	if err != nil || found == nil {
		t.Fatalf("automatic: %v, %v", found, err)
	}
	found.(interface{ Close() error }).Close()

	a, b := s, s
	b.EmbeddingModel = dir
	if !Changed(a, b) || Changed(a, a) {
		t.Error("Changed does not follow embedding_model")
	}
}
