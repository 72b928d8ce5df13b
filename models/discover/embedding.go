package discover

import (
	"errors"
	"fmt"
	"path/filepath"

	"edgechat/models"
)

// EmbeddingModel resolves the embedding_model setting (other than "off") to a folder and a
// name to show: a folder is checked to hold a text-embedding model; "" picks the first
// embedding model Scan finds on roots ("" when there is none). Chat models are never picked.
func EmbeddingModel(setting string, roots Roots) (dir, name string, err error) {
	switch setting {
	case "":
		for _, m := range Scan(roots).Models {
			if m.Kind == models.KindEmbedding {
				return m.Path, m.Name, nil
			}
		}
		return "", "", nil
	}
	f, err := models.Open(setting, "")
	if err != nil {
		return "", "", fmt.Errorf("embedding model: %w", err)
	}
	if f.Kind() != models.KindEmbedding {
		return "", "", errors.New(setting + " is a chat model, not a text-embedding model: choose a folder such as Qwen3-Embedding-0.6B's ONNX export, or leave the setting empty to find one")
	}
	return setting, filepath.Base(setting), nil
}
