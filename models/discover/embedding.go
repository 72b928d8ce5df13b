package discover

import (
	"fmt"
	"path/filepath"

	"edgechat/models"
)

// EmbeddingModel resolves the embedding_model setting (other than "off") to a folder and a
// name to show: a folder is checked to hold a text-embedding model; "" picks the first
// embedding model Scan finds on roots ("" when there is none). Chat models are never picked.
func EmbeddingModel(setting string, roots Roots) (dir, name string, err error) {
	return modelOfKind(models.KindEmbedding, setting, roots,
		"a text-embedding model: choose a folder such as all-MiniLM-L6-v2's, bge-small's or Qwen3-Embedding-0.6B's ONNX export, or leave the setting empty to find one")
}

// RerankerModel resolves the reranker_model setting (other than "off") as EmbeddingModel
// does, for cross-encoder rerankers.
func RerankerModel(setting string, roots Roots) (dir, name string, err error) {
	return modelOfKind(models.KindReranker, setting, roots,
		"a reranker: choose a cross-encoder's folder such as ms-marco-MiniLM-L-6-v2's or bge-reranker-base's ONNX export, or leave the setting empty to find one")
}

func modelOfKind(kind, setting string, roots Roots, want string) (dir, name string, err error) {
	if setting == "" {
		for _, m := range Scan(roots).Models {
			if m.Kind == kind {
				return m.Path, m.Name, nil
			}
		}
		return "", "", nil
	}
	f, err := models.Open(setting, "")
	if err != nil {
		return "", "", fmt.Errorf("%s model: %w", kind, err)
	}
	if k := f.Kind(); k != kind {
		what := map[string]string{models.KindChat: "a chat model", models.KindEmbedding: "a text-embedding model", models.KindReranker: "a reranker"}[k]
		return "", "", fmt.Errorf("%s is %s, not %s", setting, what, want)
	}
	return setting, filepath.Base(setting), nil
}
