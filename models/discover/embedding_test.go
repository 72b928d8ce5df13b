package discover

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/models"
)

// TestEmbeddingModels: a Qwen3-Embedding-shaped folder in the hub cache is listed as an
// embedding model, the automatic setting picks it and never a chat model, and a chat model
// named in the setting is refused.
func TestEmbeddingModels(t *testing.T) {
	home := t.TempDir()
	cache := filepath.Join(home, ".cache", "huggingface", "hub")
	hfRepo(t, cache, "onnx-community/Qwen3-0.6B-ONNX", "A", "", false)
	emb := hfRepo(t, cache, "onnx-community/Qwen3-Embedding-0.6B-ONNX", "E", "", false)
	roots := Roots{Home: home}
	if _, name, _ := EmbeddingModel("", roots); name != "onnx-community/Qwen3-Embedding-0.6B-ONNX" {
		t.Errorf("name %q, want the repository's", name)
	}
	kinds := map[string]string{}
	for _, m := range Scan(roots).Models {
		kinds[m.Name] = m.Kind
	}
	want := map[string]string{"onnx-community/Qwen3-0.6B-ONNX": models.KindChat, "onnx-community/Qwen3-Embedding-0.6B-ONNX": models.KindEmbedding}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if !models.IsEmbeddingModel(emb) || models.IsEmbeddingModel(base["A"]) {
		t.Error("IsEmbeddingModel does not tell the embedding folder from the chat one")
	}

	tests := []struct {
		setting, want, err string
	}{
		{"", emb, ""},
		{emb, emb, ""},
		{base["A"], "", "is a chat model"},
		{filepath.Join(home, "nothing"), "", "embedding model:"},
	}
	for _, tt := range tests {
		got, _, err := EmbeddingModel(tt.setting, roots)
		if got != tt.want || (tt.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("EmbeddingModel(%q) = %q, %v; want %q, error containing %q", tt.setting, got, err, tt.want, tt.err)
		}
	}
	// Only chat models: nothing is picked.
	chatOnly := t.TempDir()
	hfRepo(t, filepath.Join(chatOnly, ".cache", "huggingface", "hub"), "onnx-community/Qwen3-0.6B-ONNX", "A", "", false)
	if got, _, err := EmbeddingModel("", Roots{Home: chatOnly}); got != "" || err != nil {
		t.Errorf("with chat models only: %q, %v", got, err)
	}
}
