package apitest

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edgechat/inference"
	"edgechat/inference/ort/decoder"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/server"
)

// TestOfficialClients runs the official OpenAI and Anthropic npm clients against a real
// server on loopback, the real engine behind it on a tiny random-weight Qwen3 model with the
// real tokenizer, and an embedding model: tool calls (required, named, streamed, and their
// results sent back), json_schema and json_object replies, embeddings, the Responses API and
// the Messages API (messages, streams, forced tool_use). ajv validates every call's
// arguments and every structured reply against its schema (testdata/clients.cjs).
func TestOfficialClients(t *testing.T) {
	node, modules := testenv.APIClients(t)
	lib := testenv.ORTLibrary(t)
	chatDir, embDir := writeModel(t, synth.LayoutHF), writeModel(t, synth.LayoutEmbedding)
	eng, err := inference.New(inference.Config{Open: decoder.Opener(lib), Preload: true, Routes: []inference.RouteConfig{{
		Name: "cpu", Model: chatDir, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu"}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	emb, err := decoder.OpenEmbedder(embDir, decoder.EmbedOptions{Library: lib, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emb.Close() })
	s := server.New(eng, server.Options{Addr: "127.0.0.1:0", ModelName: "tiny", APIKey: "test-key",
		Embeddings: func() (server.Embedder, string, error) { return emb, "emb", nil }})
	addr, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "clients.cjs"), "http://"+addr)
	cmd.Env = append(cmd.Environ(), "NODE_PATH="+modules)
	out, err := cmd.CombinedOutput()
	t.Logf("clients:\n%s", out)
	if err != nil || !strings.Contains(string(out), "all checks passed") {
		t.Fatalf("the clients' checks failed: %v", err)
	}
}

// writeModel writes a tiny synthetic Qwen3 model with the real tokenizer in layout.
func writeModel(t *testing.T, layout synth.Layout) string {
	o := synth.Tiny()
	o.Layout, o.TokenizerDir = layout, testenv.TokenizerDir(t, "qwen3")
	dir := filepath.Join(t.TempDir(), string(layout))
	if err := synth.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	return dir
}
