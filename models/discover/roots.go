// Package discover finds the model folders already on this PC — the Hugging Face hub cache,
// Foundry Local's and AI Toolkit's caches, AI Dev Gallery's, EdgeChat's own models folder and
// folders the user added — and describes each (layout, NPU or CPU, quantization, size,
// context) from its files alone, without an ONNX Runtime session. It never touches the network
// and never imports Fyne.
package discover

import (
	"os"
	"path/filepath"
)

// Source names where a model was found.
type Source string

// The sources, in the order Scan reports them.
const (
	SourceEdgeChat  Source = "edgechat"
	SourceUser      Source = "user"
	SourceHFCache   Source = "huggingface-cache"
	SourceFoundry   Source = "foundry-local"
	SourceAIToolkit Source = "ai-toolkit"
	SourceGallery   Source = "ai-dev-gallery"
)

// Describe is the source's name for people.
func (s Source) Describe() string {
	return map[Source]string{
		SourceEdgeChat:  "Downloaded by EdgeChat",
		SourceUser:      "Your folders",
		SourceHFCache:   "Hugging Face cache",
		SourceFoundry:   "Foundry Local",
		SourceAIToolkit: "AI Toolkit",
		SourceGallery:   "AI Dev Gallery",
	}[s]
}

// Roots are the folders to scan. Tests pass fake trees; the app passes RootsFromEnv.
type Roots struct {
	Home string // the user's home folder (%USERPROFILE% on Windows)
	// The Hugging Face variables, as set (or "").
	HFHubCache, HFHome, XDGCacheHome string
	// EdgeChat is EdgeChat's models folder; Earlier the folders earlier versions downloaded
	// into (their models are found where they are); User the folders the user added.
	EdgeChat string
	Earlier  []string
	User     []string
}

// RootsFromEnv reads the home folder and the Hugging Face variables of this process.
// modelsDirs are EdgeChat's models folders, the one downloads go to first
// (config.Settings.ModelsFolders); user the folders the user added.
func RootsFromEnv(modelsDirs, user []string) Roots {
	home, _ := os.UserHomeDir()
	r := Roots{
		Home: home, HFHubCache: os.Getenv("HF_HUB_CACHE"), HFHome: os.Getenv("HF_HOME"),
		XDGCacheHome: os.Getenv("XDG_CACHE_HOME"), User: user,
	}
	if len(modelsDirs) > 0 {
		r.EdgeChat, r.Earlier = modelsDirs[0], modelsDirs[1:]
	}
	return r
}

// HFCache is the hub cache huggingface_hub uses: $HF_HUB_CACHE, else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
func (r Roots) HFCache() string {
	switch {
	case r.HFHubCache != "":
		return r.HFHubCache
	case r.HFHome != "":
		return filepath.Join(r.HFHome, "hub")
	case r.XDGCacheHome != "":
		return filepath.Join(r.XDGCacheHome, "huggingface", "hub")
	case r.Home != "":
		return filepath.Join(r.Home, ".cache", "huggingface", "hub")
	}
	return ""
}

// root is one folder to scan and the source it stands for.
type root struct {
	source Source
	dir    string
}

func (r Roots) list() []root {
	var out []root
	add := func(s Source, d string) {
		if d != "" {
			out = append(out, root{s, d})
		}
	}
	add(SourceEdgeChat, r.EdgeChat)
	for _, d := range r.Earlier {
		add(SourceEdgeChat, d)
	}
	for _, u := range r.User {
		add(SourceUser, u)
	}
	add(SourceHFCache, r.HFCache())
	if r.Home != "" {
		add(SourceFoundry, filepath.Join(r.Home, ".foundry", "cache", "models"))
		add(SourceAIToolkit, filepath.Join(r.Home, ".aitk", "models"))
		add(SourceGallery, filepath.Join(r.Home, ".cache", "aigallery"))
	}
	return out
}
