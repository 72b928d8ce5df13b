package embedmodel

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/config"
	"edgechat/inference/ort/decoder"
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

// A BERT-family folder opens as an encoder with its prompts; a cross-encoder opens as the
// reranker, found automatically too, and is refused as an embedding model.
func TestBertOpeners(t *testing.T) {
	root := t.TempDir()
	emb, rr := filepath.Join(root, "e5-tiny"), filepath.Join(root, "ms-marco-tiny")
	o := synth.BertTiny()
	o.MaxSeqLength = 16
	if err := synth.WriteBert(emb, o); err != nil {
		t.Fatal(err)
	}
	o.Reranker = true
	if err := synth.WriteBert(rr, o); err != nil {
		t.Fatal(err)
	}
	s := config.Defaults()
	s.ORTLibrary = testenv.ORTLibrary(t)
	s.ModelsDir = t.TempDir()
	e, err := Opener(s, emb)()
	if err != nil {
		t.Fatal(err)
	}
	defer e.(interface{ Close() error }).Close()
	enc, ok := e.(*decoder.EncoderEmbedder)
	if !ok {
		t.Fatalf("%T, want the BERT encoder", e)
	}
	if c := enc.Config(); c.QueryPrompt != "query: " || c.PassagePrompt != "passage: " || c.MaxLength != 16 || c.Pooling != "mean" {
		t.Errorf("config %+v: want e5's prompts by its name, max 16, mean", c)
	}
	if _, err := Opener(s, rr)(); err == nil || !strings.Contains(err.Error(), "is a reranker, not a text-embedding model") {
		t.Errorf("a reranker as the embedding model: %v", err)
	}
	if RerankOpener(s, config.EmbeddingOff) != nil {
		t.Error("off gives a reranker opener")
	}
	if _, err := RerankOpener(s, emb)(); err == nil || !strings.Contains(err.Error(), "is a text-embedding model, not a reranker") {
		t.Errorf("an embedding model as the reranker: %v", err)
	}
	s.ModelsDir = root // found automatically
	t.Setenv("HOME", t.TempDir())
	r, err := RerankOpener(s, "")()
	if err != nil || r == nil {
		t.Fatalf("automatic: %v, %v", r, err)
	}
	defer r.(interface{ Close() error }).Close()
	if n := r.(interface{ ModelName() string }).ModelName(); n != "ms-marco-tiny" {
		t.Errorf("name %q", n)
	}
	scores, err := r.Score(context.Background(), "what is the code?", []string{"the vault code", "bake bread"})
	if err != nil || len(scores) != 2 || scores[0] == scores[1] {
		t.Errorf("scores %v, %v", scores, err)
	}
	a, b := s, s
	b.RerankerModel = rr
	if !RerankerChanged(a, b) || RerankerChanged(a, a) || Changed(a, b) {
		t.Error("RerankerChanged does not follow reranker_model alone")
	}
}
