// Package embedmodel opens the text-embedding model that ranks attached documents' passages
// by meaning: the one the embedding_model setting names, or the first found on this PC. It
// joins the settings, model discovery and the ONNX Runtime embedder (inference/ort/decoder) for
// the window and the command line, which hand the result to documents.Library.SetEmbedder.
package embedmodel

import (
	"edgechat/config"
	"edgechat/documents"
	"edgechat/inference/ort/decoder"
	"edgechat/internal/host"
	"edgechat/internal/paths"
	"edgechat/models/discover"
)

// Opener returns the function documents.Library.SetEmbedder takes for settings s: setting
// is the embedding_model value to use ("" finds one, "off" none, else a folder). It resolves
// and loads the model only when called (on the goroutine that first needs vectors). No
// model found is not an error: ranking stays by keywords.
func Opener(s config.Settings, setting string) func() (documents.Embedder, error) {
	if setting == config.EmbeddingOff {
		return nil
	}
	return func() (documents.Embedder, error) {
		dir, name, err := discover.EmbeddingModel(setting, discover.RootsFromEnv(s.ModelsFolders(), s.UserModelFolders()))
		if err != nil || dir == "" {
			return nil, err
		}
		// Passages are embedded in the background, often while a reply is being generated: half
		// the cores leave the other half to the chat.
		threads := max(1, host.PhysicalCores()/2)
		e, err := decoder.OpenEmbedder(dir, decoder.EmbedOptions{Library: s.ORTLibrary, Threads: threads, GraphCache: paths.GraphCacheDir()})
		if err != nil {
			return nil, err
		}
		e.Label = name
		return e, nil
	}
}

// Changed reports whether going from settings a to b changes which embedding model is used.
func Changed(a, b config.Settings) bool {
	return a.EmbeddingModel != b.EmbeddingModel || a.ORTLibrary != b.ORTLibrary ||
		a.ModelsDir != b.ModelsDir || a.ModelFolders != b.ModelFolders
}
