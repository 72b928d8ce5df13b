package models

import (
	"encoding/json"
	"fmt"
	"sort"

	"edgechat/internal/safepath"
)

// GenAIConfig is an onnxruntime-genai genai_config.json (layouts B and D).
type GenAIConfig struct {
	Model struct {
		Type          string  `json:"type"`
		BOSTokenID    *int    `json:"bos_token_id"`
		EOSTokenID    IDList  `json:"eos_token_id"`
		PadTokenID    *int    `json:"pad_token_id"`
		ContextLength int     `json:"context_length"`
		VocabSize     int     `json:"vocab_size"`
		Decoder       Decoder `json:"decoder"`
	} `json:"model"`
	Search GenerationDefaults `json:"search"`
}

// Decoder is genai_config.json's model.decoder.
type Decoder struct {
	Filename          string                       `json:"filename"`
	SessionOptions    SessionOptions               `json:"session_options"`
	HeadSize          int                          `json:"head_size"`
	HiddenSize        int                          `json:"hidden_size"`
	NumAttentionHeads int                          `json:"num_attention_heads"`
	NumHiddenLayers   int                          `json:"num_hidden_layers"`
	NumKeyValueHeads  int                          `json:"num_key_value_heads"`
	Inputs            map[string]string            `json:"inputs"`
	Outputs           map[string]string            `json:"outputs"`
	SlidingWindow     *SlidingWindow               `json:"sliding_window"`
	PastPresentShare  bool                         `json:"past_present_share_buffer"`
	Pipeline          []Stage                      `json:"-"`
	RawPipeline       []map[string]json.RawMessage `json:"pipeline"`
}

// SlidingWindow is the decoder-pipeline's windowed prefill description.
type SlidingWindow struct {
	WindowSize         int    `json:"window_size"`
	PadValue           int    `json:"pad_value"`
	Alignment          string `json:"alignment"`
	SlideInputs        bool   `json:"slide_inputs"`
	SlideKeyValueCache bool   `json:"slide_key_value_cache"`
}

// SessionOptions are the per-model or per-stage ONNX Runtime options genai_config.json sets.
type SessionOptions struct {
	IntraOpNumThreads int                            `json:"intra_op_num_threads"`
	InterOpNumThreads int                            `json:"inter_op_num_threads"`
	ProviderOptions   []map[string]map[string]string `json:"provider_options"`
	ConfigEntries     map[string]string              `json:"config_entries"`
}

// Provider returns the first execution provider the options name ("qnn", "dml", …) and its
// options, or "" for the CPU.
func (o SessionOptions) Provider() (string, map[string]string) {
	for _, p := range o.ProviderOptions {
		names := make([]string, 0, len(p))
		for n := range p {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			return n, p[n]
		}
	}
	return "", nil
}

// Stage is one model of a decoder-pipeline bundle.
type Stage struct {
	Name           string         `json:"-"`
	Filename       string         `json:"filename"`
	Inputs         []string       `json:"inputs"`
	Outputs        []string       `json:"outputs"`
	SessionOptions SessionOptions `json:"session_options"`
	RunOnPrompt    *bool          `json:"run_on_prompt"`
	RunOnTokenGen  *bool          `json:"run_on_token_gen"`
	// IsLMHead marks the stage that turns hidden states into logits (Foundry Local's builds).
	IsLMHead *bool `json:"is_lm_head"`
}

// IsPipeline reports whether the config describes a decoder-pipeline bundle (layout D).
func (c *GenAIConfig) IsPipeline() bool {
	return c.Model.Type == "decoder-pipeline" || len(c.Model.Decoder.RawPipeline) > 0
}

// parsePipeline fills Decoder.Pipeline from the raw stage list, keeping the file's order.
func (c *GenAIConfig) parsePipeline() error {
	d := &c.Model.Decoder
	d.Pipeline = d.Pipeline[:0]
	for i, entry := range d.RawPipeline {
		if len(entry) != 1 {
			return fmt.Errorf("pipeline stage %d has %d names; expected one", i, len(entry))
		}
		for name, raw := range entry {
			var s Stage
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("pipeline stage %q: %w", name, err)
			}
			if s.Filename == "" {
				return fmt.Errorf("pipeline stage %q names no filename", name)
			}
			if err := safepath.Rel(s.Filename); err != nil {
				return fmt.Errorf("pipeline stage %q names the file %q, which is not a file inside the model's folder (%v): EdgeChat opens only the folder's own files", name, s.Filename, err)
			}
			s.Name = name
			d.Pipeline = append(d.Pipeline, s)
		}
	}
	return nil
}

// StageNamed returns the pipeline stage with the given name.
func (c *GenAIConfig) StageNamed(name string) (Stage, bool) {
	for _, s := range c.Model.Decoder.Pipeline {
		if s.Name == name {
			return s, true
		}
	}
	return Stage{}, false
}
