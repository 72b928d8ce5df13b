// Package embedmodel opens the models that rank attached documents' passages: the
// text-embedding model (by meaning) and the cross-encoder reranker the embedding_model and
// reranker_model settings name, or the first found on this PC. It joins the settings, model
// discovery and the ONNX Runtime models (inference/ort/decoder) for the window and the command
// line, which hand the results to documents.Library.SetEmbedder and SetReranker.
package embedmodel

import (
	"edgechat/config"
	"edgechat/documents"
	"edgechat/inference/ort/decoder"
	"edgechat/internal/host"
	"edgechat/internal/paths"
	"edgechat/models"
	"edgechat/models/discover"
	"edgechat/onnx/proto"
)

// Opener returns the function documents.Library.SetEmbedder takes for settings s: setting
// is the embedding_model value to use ("" finds one, "off" none, else a folder). It resolves
// and loads the model only when called (on the goroutine that first needs vectors): a
// BERT-family encoder (all-MiniLM, bge, e5, gte …) as its sentence-transformers files say, a
// decoder export (Qwen3-Embedding) by its last token. No model found is not an error: ranking
// stays by keywords.
func Opener(s config.Settings, setting string) func() (documents.Embedder, error) {
	if setting == config.EmbeddingOff {
		return nil
	}
	return func() (documents.Embedder, error) {
		dir, name, err := discover.EmbeddingModel(setting, roots(s))
		if err != nil || dir == "" {
			return nil, err
		}
		o := options(s)
		if isEncoder(dir) {
			e, err := decoder.OpenEncoderEmbedder(dir, name, o)
			if err != nil {
				return nil, err
			}
			e.Label = name
			return e, nil
		}
		e, err := decoder.OpenEmbedder(dir, o)
		if err != nil {
			return nil, err
		}
		e.Label = name
		return e, nil
	}
}

// RerankOpener returns the function documents.Library.SetReranker takes for settings s:
// setting is the reranker_model value ("" finds one, "off" none, else a folder). No reranker
// found is not an error: passages keep their first ranking.
func RerankOpener(s config.Settings, setting string) func() (documents.Reranker, error) {
	if setting == config.EmbeddingOff {
		return nil
	}
	return func() (documents.Reranker, error) {
		dir, name, err := discover.RerankerModel(setting, roots(s))
		if err != nil || dir == "" {
			return nil, err
		}
		// Re-ranking runs before the reply starts, while nothing else does: all the cores.
		o := options(s)
		o.Threads = max(1, host.PhysicalCores())
		c, err := decoder.OpenCrossEncoder(dir, o)
		if err != nil {
			return nil, err
		}
		c.Label = name
		return c, nil
	}
}

func roots(s config.Settings) discover.Roots {
	return discover.RootsFromEnv(s.ModelsFolders(), s.UserModelFolders())
}

// options run the models on half the cores: passages are embedded in the background, often
// while a reply is being generated, and the other half is the chat's.
func options(s config.Settings) decoder.EmbedOptions {
	return decoder.EmbedOptions{Library: s.ORTLibrary, Threads: max(1, host.PhysicalCores()/2), GraphCache: paths.GraphCacheDir()}
}

// isEncoder reports whether dir's embedding model is a BERT-family encoder: its graph takes
// neither position_ids nor a past (a decoder export's, such as Qwen3-Embedding's, takes
// both), or its config.json names an encoder type. The encoder then reports any problem with
// its sentence-transformers files.
func isEncoder(dir string) bool {
	f, err := models.Open(dir, "")
	if err != nil {
		return false
	}
	info, err := proto.ReadInfo(f.Model)
	if err != nil {
		return false
	}
	if eio, err := models.DescribeEmbedding(f.Model, info.Inputs, info.Outputs); err == nil && eio.PositionIDs == "" && len(eio.Past) == 0 {
		return true
	}
	cfg, err := models.ReadSentenceConfig(f.Dir)
	return err == nil && cfg.Pooling != models.PoolLast && cfg.IsEncoder(info.Inputs)
}

// Changed reports whether going from settings a to b changes which embedding model is used.
func Changed(a, b config.Settings) bool {
	return a.EmbeddingModel != b.EmbeddingModel || a.ORTLibrary != b.ORTLibrary ||
		a.ModelsDir != b.ModelsDir || a.ModelFolders != b.ModelFolders
}

// RerankerChanged reports whether going from settings a to b changes which reranker is used.
func RerankerChanged(a, b config.Settings) bool {
	return a.RerankerModel != b.RerankerModel || a.ORTLibrary != b.ORTLibrary ||
		a.ModelsDir != b.ModelsDir || a.ModelFolders != b.ModelFolders
}
