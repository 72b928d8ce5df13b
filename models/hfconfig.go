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

// gptNames are the keys GPT-2 (n_embd, n_head, n_layer, n_positions; also GPT-J and
// CodeGen) and GPT-Neo (num_heads, num_layers) use for the standard ones.
type gptNames struct {
	NEmbd      int `json:"n_embd"`
	NHead      int `json:"n_head"`
	NumHeads   int `json:"num_heads"`
	NLayer     int `json:"n_layer"`
	NumLayers  int `json:"num_layers"`
	NPositions int `json:"n_positions"`
}

// UnmarshalJSON reads config.json, taking GPT-2's and GPT-Neo's keys where the standard ones
// are missing: a GPT-2 export's context is n_positions, past which its learned position
// table has no rows.
func (c *HFConfig) UnmarshalJSON(b []byte) error {
	type plain HFConfig
	var g gptNames
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &g); err != nil {
		return err
	}
	fill := func(v *int, alts ...int) {
		for _, a := range alts {
			if *v == 0 && a > 0 {
				*v = a
			}
		}
	}
	fill(&c.HiddenSize, g.NEmbd)
	fill(&c.NumAttentionHeads, g.NHead, g.NumHeads)
	fill(&c.NumHiddenLayers, g.NLayer, g.NumLayers)
	fill(&c.MaxPositionEmbeddings, g.NPositions)
	return nil
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
