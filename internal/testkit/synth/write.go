package synth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"edgechat/internal/filecopy"
	"edgechat/onnx/proto"
)

// Qwen3's special token ids.
const (
	EndOfText = 151643 // <|endoftext|>: bos and pad
	ImEnd     = 151645 // <|im_end|>
)

// Write writes a synthetic model folder in o.Layout to dir (created if needed): the ONNX
// files, config.json, generation_config.json, layout-specific configs and, when
// o.TokenizerDir is set, tokenizer.json and tokenizer_config.json.
func Write(dir string, o Options) error {
	if err := o.Validate(); err != nil {
		return fmt.Errorf("synthetic model options: %w", err)
	}
	tokFiles := []string{"tokenizer.json", "tokenizer_config.json"}
	if o.TokenizerDir != "" {
		for _, name := range tokFiles {
			if _, err := os.Stat(filepath.Join(o.TokenizerDir, name)); err != nil {
				return fmt.Errorf("%s not found in %s: point the tokenizer folder at Qwen3's tokenizer files (tools/setup.sh installs them) or leave it empty to copy none", name, o.TokenizerDir)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if o.Family != "" {
		if err := writeFamily(dir, o); err != nil {
			return fmt.Errorf("write synthetic %s model to %s: %w", o.Family, dir, err)
		}
		return copyTokenizer(dir, o.TokenizerDir, tokFiles)
	}
	w := newWeights(o)
	if o.Q4Twin {
		w.dequantize(o)
	}
	var err error
	switch {
	case o.Layout == LayoutHF:
		err = writeModel(filepath.Join(dir, "onnx", o.Quant.File()), buildDecoder(o, w, hfSpec(o)), o)
	case o.Layout == LayoutGenAI:
		m, cfg := buildDecoder(o, w, hfSpec(o)), genaiConfig(o)
		if o.Quant == QuantGenAIInt4 {
			m, cfg = buildGenAIInt4(o, w), genaiInt4Config(o)
		}
		if err = writeModel(filepath.Join(dir, "model.onnx"), m, o); err == nil {
			err = writeJSON(filepath.Join(dir, "genai_config.json"), cfg)
		}
	case o.Layout == LayoutStatic:
		err = writeStatic(dir, o, w)
	case o.Layout == LayoutBundle, o.Layout == LayoutFoundry:
		err = writeBundle(dir, o, w)
	case o.Layout == LayoutEmbedding:
		err = writeEmbedding(dir, o, w)
	}
	if err != nil {
		return fmt.Errorf("write synthetic %s model to %s: %w", o.Layout, dir, err)
	}
	if err := writeJSON(filepath.Join(dir, "config.json"), hfConfig(o)); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "generation_config.json"), generationConfig()); err != nil {
		return err
	}
	return copyTokenizer(dir, o.TokenizerDir, tokFiles)
}

// copyTokenizer copies the named files from src ("" copies none) to dir.
func copyTokenizer(dir, src string, names []string) error {
	if src == "" {
		return nil
	}
	for _, name := range names {
		if err := filecopy.Copy(filepath.Join(src, name), filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("copy tokenizer: %w", err)
		}
	}
	return nil
}

// writeModel writes m to path, moving the weights to a data file beside it (model.onnx_data in
// Hugging Face exports, model.onnx.data in onnxruntime-genai ones) when o.ExternalData asks for
// it in those layouts, or when the file would come near protobuf's 2 GB limit.
func writeModel(path string, m *proto.Model, o Options) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var size int64
	for _, t := range m.Graph.Initializers {
		size += int64(len(t.Raw))
	}
	var opt proto.WriteOptions
	external := o.ExternalData && (o.Layout == LayoutHF || o.Layout == LayoutGenAI || o.Layout == LayoutEmbedding)
	if external || size > 1800<<20 {
		opt.ExternalData = filepath.Base(path) + "_data"
		if o.Layout == LayoutGenAI {
			opt.ExternalData = filepath.Base(path) + ".data"
		}
	}
	return m.WriteFile(path, opt)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// hfConfigJSON mirrors Qwen3's config.json field for field.
type hfConfigJSON struct {
	Architectures         []string  `json:"architectures"`
	AttentionBias         bool      `json:"attention_bias"`
	AttentionDropout      float64   `json:"attention_dropout"`
	BosTokenID            int       `json:"bos_token_id"`
	EosTokenID            int       `json:"eos_token_id"`
	HeadDim               int       `json:"head_dim"`
	HiddenAct             string    `json:"hidden_act"`
	HiddenSize            int       `json:"hidden_size"`
	InitializerRange      float64   `json:"initializer_range"`
	IntermediateSize      int       `json:"intermediate_size"`
	MaxPositionEmbeddings int       `json:"max_position_embeddings"`
	MaxWindowLayers       int       `json:"max_window_layers"`
	ModelType             string    `json:"model_type"`
	NumAttentionHeads     int       `json:"num_attention_heads"`
	NumHiddenLayers       int       `json:"num_hidden_layers"`
	NumKeyValueHeads      int       `json:"num_key_value_heads"`
	RMSNormEps            float64   `json:"rms_norm_eps"`
	RopeScaling           *struct{} `json:"rope_scaling"`
	RopeTheta             float64   `json:"rope_theta"`
	SlidingWindow         *int      `json:"sliding_window"`
	TieWordEmbeddings     bool      `json:"tie_word_embeddings"`
	TorchDtype            string    `json:"torch_dtype"`
	TransformersVersion   string    `json:"transformers_version"`
	UseCache              bool      `json:"use_cache"`
	UseSlidingWindow      bool      `json:"use_sliding_window"`
	VocabSize             int       `json:"vocab_size"`
}

func hfConfig(o Options) hfConfigJSON {
	return hfConfigJSON{
		Architectures: []string{"Qwen3ForCausalLM"}, BosTokenID: EndOfText, EosTokenID: ImEnd,
		HeadDim: o.HeadDim, HiddenAct: "silu", HiddenSize: o.Hidden, InitializerRange: 0.02,
		IntermediateSize: o.Intermediate, MaxPositionEmbeddings: o.MaxPositions,
		MaxWindowLayers: o.Layers, ModelType: "qwen3", NumAttentionHeads: o.Heads,
		NumHiddenLayers: o.Layers, NumKeyValueHeads: o.KVHeads, RMSNormEps: o.RMSNormEps,
		RopeTheta: o.RopeTheta, TieWordEmbeddings: true, TorchDtype: "float32", // the weights; a float16 KV cache is an I/O choice
		TransformersVersion: "4.51.0", UseCache: true, VocabSize: o.Vocab,
	}
}

type generationConfigJSON struct {
	BosTokenID          int     `json:"bos_token_id"`
	DoSample            bool    `json:"do_sample"`
	EosTokenID          []int   `json:"eos_token_id"`
	PadTokenID          int     `json:"pad_token_id"`
	Temperature         float64 `json:"temperature"`
	TopK                int     `json:"top_k"`
	TopP                float64 `json:"top_p"`
	TransformersVersion string  `json:"transformers_version"`
}

func generationConfig() generationConfigJSON {
	return generationConfigJSON{
		BosTokenID: EndOfText, DoSample: true, EosTokenID: []int{ImEnd, EndOfText}, PadTokenID: EndOfText,
		Temperature: 0.6, TopK: 20, TopP: 0.95, TransformersVersion: "4.51.0",
	}
}

// writeJSONFiles writes each value of files as JSON to its path below dir, making folders.
func writeJSONFiles(dir string, files map[string]any) error {
	for name, v := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := writeJSON(p, v); err != nil {
			return err
		}
	}
	return nil
}
