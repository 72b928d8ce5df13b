package synth

// genai_config.json in onnxruntime-genai's format (layout B, and layout D's pipeline variant).

type genaiJSON struct {
	Model  genaiModel  `json:"model"`
	Search genaiSearch `json:"search"`
}

type genaiModel struct {
	BosTokenID    int          `json:"bos_token_id"`
	ContextLength int          `json:"context_length"`
	Decoder       genaiDecoder `json:"decoder"`
	EosTokenID    []int        `json:"eos_token_id"`
	PadTokenID    int          `json:"pad_token_id"`
	Type          string       `json:"type"`
	VocabSize     int          `json:"vocab_size"`
}

type genaiDecoder struct {
	SessionOptions    map[string]any      `json:"session_options"`
	Filename          string              `json:"filename,omitempty"`
	HeadSize          int                 `json:"head_size"`
	HiddenSize        int                 `json:"hidden_size"`
	Inputs            map[string]string   `json:"inputs"`
	Outputs           map[string]string   `json:"outputs"`
	NumAttentionHeads int                 `json:"num_attention_heads"`
	NumHiddenLayers   int                 `json:"num_hidden_layers"`
	NumKeyValueHeads  int                 `json:"num_key_value_heads"`
	Pipeline          []map[string]stage  `json:"pipeline,omitempty"`
	SlidingWindow     *genaiSlidingWindow `json:"sliding_window,omitempty"`
}

// stage is one model of a decoder-pipeline.
type stage struct {
	Filename       string         `json:"filename"`
	SessionOptions map[string]any `json:"session_options,omitempty"`
	Inputs         []string       `json:"inputs"`
	Outputs        []string       `json:"outputs"`
	RunOnPrompt    bool           `json:"run_on_prompt"`
	RunOnTokenGen  bool           `json:"run_on_token_gen"`
	IsLMHead       bool           `json:"is_lm_head,omitempty"`
}

type genaiSlidingWindow struct {
	WindowSize         int    `json:"window_size"`
	PadValue           int    `json:"pad_value"`
	Alignment          string `json:"alignment"`
	SlideInputs        bool   `json:"slide_inputs"`
	SlideKeyValueCache bool   `json:"slide_key_value_cache"`
}

type genaiSearch struct {
	DiversityPenalty       float64 `json:"diversity_penalty"`
	DoSample               bool    `json:"do_sample"`
	EarlyStopping          bool    `json:"early_stopping"`
	LengthPenalty          float64 `json:"length_penalty"`
	MaxLength              int     `json:"max_length"`
	MinLength              int     `json:"min_length"`
	NoRepeatNgramSize      int     `json:"no_repeat_ngram_size"`
	NumBeams               int     `json:"num_beams"`
	NumReturnSequences     int     `json:"num_return_sequences"`
	PastPresentShareBuffer bool    `json:"past_present_share_buffer"`
	RepetitionPenalty      float64 `json:"repetition_penalty"`
	Temperature            float64 `json:"temperature"`
	TopK                   int     `json:"top_k"`
	TopP                   float64 `json:"top_p"`
}

// genaiConfig describes layout B's single dynamic decoder model.onnx.
func genaiConfig(o Options) genaiJSON {
	return genaiJSON{
		Model: genaiModel{
			BosTokenID: EndOfText, ContextLength: o.MaxPositions, EosTokenID: []int{ImEnd, EndOfText},
			PadTokenID: EndOfText, Type: "qwen3", VocabSize: o.Vocab,
			Decoder: genaiDecoder{
				SessionOptions: map[string]any{"log_id": "onnxruntime-genai", "provider_options": []any{}},
				Filename:       "model.onnx", HeadSize: o.HeadDim, HiddenSize: o.Hidden,
				Inputs: map[string]string{
					"input_ids": "input_ids", "attention_mask": "attention_mask", "position_ids": "position_ids",
					"past_key_names": "past_key_values.%d.key", "past_value_names": "past_key_values.%d.value",
				},
				Outputs: map[string]string{
					"logits": "logits", "present_key_names": "present.%d.key", "present_value_names": "present.%d.value",
				},
				NumAttentionHeads: o.Heads, NumHiddenLayers: o.Layers, NumKeyValueHeads: o.KVHeads,
			},
		},
		Search: searchDefaults(o.MaxPositions, false),
	}
}

// genaiInt4Config is genaiConfig for the int4 GroupQueryAttention build: no position_ids
// (rotary is inside GQA) and past and present sharing one buffer.
func genaiInt4Config(o Options) genaiJSON {
	cfg := genaiConfig(o)
	delete(cfg.Model.Decoder.Inputs, "position_ids")
	cfg.Search.PastPresentShareBuffer = true
	return cfg
}

func searchDefaults(maxLength int, share bool) genaiSearch {
	return genaiSearch{
		DoSample: true, EarlyStopping: true, LengthPenalty: 1, MaxLength: maxLength, NumBeams: 1,
		NumReturnSequences: 1, PastPresentShareBuffer: share, RepetitionPenalty: 1,
		Temperature: 0.6, TopK: 20, TopP: 0.95,
	}
}
