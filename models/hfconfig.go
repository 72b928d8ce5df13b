package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// HFConfig is the part of a Hugging Face config.json that EdgeChat uses.
type HFConfig struct {
	Architectures         []string `json:"architectures"`
	ModelType             string   `json:"model_type"`
	HiddenSize            int      `json:"hidden_size"`
	IntermediateSize      int      `json:"intermediate_size"`
	NumHiddenLayers       int      `json:"num_hidden_layers"`
	NumAttentionHeads     int      `json:"num_attention_heads"`
	NumKeyValueHeads      int      `json:"num_key_value_heads"`
	HeadDim               int      `json:"head_dim"`
	MaxPositionEmbeddings int      `json:"max_position_embeddings"`
	VocabSize             int      `json:"vocab_size"`
	RopeTheta             float64  `json:"rope_theta"`
	RMSNormEps            float64  `json:"rms_norm_eps"`
	TieWordEmbeddings     bool     `json:"tie_word_embeddings"`
	TorchDtype            string   `json:"torch_dtype"`
	BOSTokenID            *int     `json:"bos_token_id"`
	EOSTokenID            IDList   `json:"eos_token_id"`
}

// GenerationDefaults are sampling defaults from generation_config.json or genai_config.json.
// Nil fields were not set by the model.
type GenerationDefaults struct {
	DoSample          *bool    `json:"do_sample"`
	Temperature       *float64 `json:"temperature"`
	TopK              *int     `json:"top_k"`
	TopP              *float64 `json:"top_p"`
	MinP              *float64 `json:"min_p"`
	RepetitionPenalty *float64 `json:"repetition_penalty"`
	MaxLength         *int     `json:"max_length"`
	EOSTokenID        IDList   `json:"eos_token_id"`
	BOSTokenID        *int     `json:"bos_token_id"`
	PadTokenID        *int     `json:"pad_token_id"`
}

// IDList is a token id or a list of them (config files use both forms).
type IDList []int

// UnmarshalJSON accepts a number, a list of numbers or null.
func (l *IDList) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" { // before the number: null would decode as 0
		*l = nil
		return nil
	}
	var one int
	if err := json.Unmarshal(b, &one); err == nil {
		*l = IDList{one}
		return nil
	}
	var many []int
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("token id list: %w", err)
	}
	*l = many
	return nil
}

// readJSON decodes path into v. A missing file returns an error wrapping os.ErrNotExist;
// a broken one names the file.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s is not valid JSON (%v): the model folder is damaged — download it again", path, err)
	}
	return nil
}

// readOptionalJSON is readJSON where a missing file is not an error; it reports whether the
// file existed.
func readOptionalJSON(path string, v any) (bool, error) {
	err := readJSON(path, v)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
