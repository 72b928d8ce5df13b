package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"edgechat/config"
	"edgechat/models"
	"edgechat/models/discover"
	"edgechat/models/hub"
)

// ModelChoice is a model the chat can go on with: a folder and where it runs.
type ModelChoice struct {
	Path   string // the model's folder
	Name   string // what the window calls it ("onnx-community/Qwen3-0.6B-ONNX")
	Device string // "npu" or "cpu"
	Size   int64  // bytes on disk; 0 when not known
	// Base is set for a base model (no chat template): the chat completes text with it.
	Base bool
	// Unusable says why it cannot be chosen on this PC ("" when it can).
	Unusable string
}

// Label is how the picker lists the model: "qwen3 · 522 MB · CPU · Complete text".
func (c ModelChoice) Label() string {
	parts := []string{c.Name}
	if c.Size > 0 {
		parts = append(parts, hub.Bytes(c.Size))
	}
	parts = append(parts, strings.ToUpper(c.Device))
	if c.Base {
		parts = append(parts, "Complete text")
	}
	if c.Unusable != "" {
		parts = append(parts, c.Unusable)
	}
	return strings.Join(parts, " · ")
}

// headerLabel names the model that answers in the chat's header: "qwen3 · CPU", with
// "· Complete text" for a base model.
func headerLabel(c ModelChoice, base bool) string {
	if c.Path == "" {
		return "No model"
	}
	l := c.Name + " · " + strings.ToUpper(c.Device)
	if base {
		l += " · Complete text"
	}
	return l
}

// ModelSwitch changes the model that answers. Current, Choices and Use run on the main
// goroutine; Load on a goroutine of the chat's.
type ModelSwitch interface {
	// Current is the model that answers now.
	Current() ModelChoice
	// Choices are the models to choose from: those found on this PC and downloaded.
	Choices() []ModelChoice
	// Use makes c the model that answers from the next reply on, and in new chats. It is
	// quick: the model loads on first use, or with Load.
	Use(c ModelChoice) error
	// Load loads the model that answers, passing on what the engine reports while it does
	// ("Loading the model for the CPU…"); it returns once the model is ready or failed.
	Load(ctx context.Context, status func(string)) error
}

// settingsModels is the window's ModelSwitch: the model that answers is the settings' (the
// NPU's when set, else the CPU's); Use saves the settings, after which main rebuilds the
// engine; the choices are the Models view's scan. Main goroutine, except Load (Current also runs after a scan, on the test driver on its
// goroutine: the cache of base models has a lock).
type settingsModels struct {
	store SettingsStore
	// saved runs after Use saved the settings (the window's modelChosen without showing).
	saved func(config.Settings)
	// load loads the engine's model (Deps.LoadModel; nil: nothing to load ahead).
	load func(ctx context.Context, status func(string)) error
	// found is the last scan's models (nil: no Models view); npu says an NPU runtime is here.
	found func() []discover.Model
	npu   func() bool
	mu    sync.Mutex
	base  map[string]bool // models.IsBaseModel by folder: it reads the folder's files
}

// Current is the settings' model, named as the scan names it when it found it.
func (s *settingsModels) Current() ModelChoice {
	c := choiceOf(s.store.Settings(), s.isBase)
	if s.found != nil && c.Path != "" {
		for _, m := range s.found() {
			if m.Path == c.Path && m.Name != "" {
				c.Name, c.Size = m.Name, m.SizeBytes
			}
		}
	}
	return c
}

// choiceOf is the model of the settings that answers first: the NPU's when set, else the
// CPU's.
func choiceOf(st config.Settings, isBase func(string) bool) ModelChoice {
	c := ModelChoice{Path: st.CPU.Model, Device: "cpu"}
	if st.NPU.Model != "" {
		c = ModelChoice{Path: st.NPU.Model, Device: "npu"}
	}
	if c.Path != "" {
		c.Name = models.DisplayName(c.Path)
		c.Base = isBase != nil && isBase(c.Path)
	}
	return c
}

func (s *settingsModels) isBase(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.base[path]; ok {
		return b
	}
	if s.base == nil {
		s.base = map[string]bool{}
	}
	b := models.IsBaseModel(path)
	s.base[path] = b
	return b
}

func (s *settingsModels) Choices() []ModelChoice {
	var found []discover.Model
	if s.found != nil {
		found = s.found()
	}
	npu := s.npu != nil && s.npu()
	cur := s.Current()
	var out []ModelChoice
	seen := false
	for _, m := range found {
		if m.Kind == models.KindEmbedding || m.Kind == models.KindReranker {
			continue // ranks documents; cannot chat
		}
		c := ModelChoice{Path: m.Path, Name: m.Name, Device: m.Device, Size: m.SizeBytes, Base: s.isBase(m.Path)}
		if c.Name == "" {
			c.Name = models.DisplayName(m.Path)
		}
		if c.Device == "npu" && !npu {
			c.Unusable = "needs an NPU runtime (Settings → Runtime)"
		}
		seen = seen || c.Path == cur.Path
		out = append(out, c)
	}
	if !seen && cur.Path != "" { // set in Settings, outside the folders a scan looks in
		out = append([]ModelChoice{cur}, out...)
	}
	return out
}

func (s *settingsModels) Use(c ModelChoice) error {
	if c.Unusable != "" {
		return fmt.Errorf("%s cannot be used here: it %s", c.Name, c.Unusable)
	}
	if cur := choiceOf(s.store.Settings(), nil); cur.Path == c.Path && cur.Device == c.Device {
		// The model that answers already: its variant (ModelFile) stays, the settings are
		// not saved, and the engine — its model loaded, its conversations' KV caches — is
		// kept.
		return nil
	}
	st := applyChoice(s.store.Settings(), c)
	if err := s.store.Save(st); err != nil {
		return fmt.Errorf("could not save the settings: %w — check that the settings folder is writable", err)
	}
	if s.saved != nil {
		s.saved(st)
	}
	return nil
}

// applyChoice makes c the model that answers first: an NPU model goes on the NPU (the CPU's
// model stays for prompts too long for it); a CPU model goes on the CPU, and the NPU's model
// is cleared, else it would go on answering first.
func applyChoice(st config.Settings, c ModelChoice) config.Settings {
	if c.Device == "npu" {
		st.NPU.Model, st.NPU.ModelFile = c.Path, ""
		if st.NPU.EP == "" {
			st.NPU.EP = "qnn"
		}
		return st
	}
	st.CPU.Model, st.CPU.ModelFile = c.Path, ""
	if st.CPU.EP == "" {
		st.CPU.EP = "cpu"
	}
	st.NPU.Model, st.NPU.ModelFile = "", ""
	return st
}

func (s *settingsModels) Load(ctx context.Context, status func(string)) error {
	if s.load == nil {
		return nil
	}
	return s.load(ctx, status)
}
