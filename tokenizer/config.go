package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"
)

// configJSON is the part of tokenizer_config.json this package reads.
type configJSON struct {
	ChatTemplate json.RawMessage `json:"chat_template"`
	BOS          json.RawMessage `json:"bos_token"`
	EOS          json.RawMessage `json:"eos_token"`
	PAD          json.RawMessage `json:"pad_token"`
	UNK          json.RawMessage `json:"unk_token"`
}

// parseConfig reads the chat template and special tokens of a tokenizer_config.json.
func parseConfig(data []byte) (template string, special SpecialTokens, err error) {
	var c configJSON
	if err := json.Unmarshal(data, &c); err != nil {
		return "", special, fmt.Errorf("not valid JSON: %w", err)
	}
	if template, err = chatTemplate(c.ChatTemplate); err != nil {
		return "", special, err
	}
	for _, f := range []struct {
		dst  *string
		raw  json.RawMessage
		name string
	}{{&special.BOS, c.BOS, "bos_token"}, {&special.EOS, c.EOS, "eos_token"},
		{&special.PAD, c.PAD, "pad_token"}, {&special.UNK, c.UNK, "unk_token"}} {
		if *f.dst, err = tokenString(f.raw); err != nil {
			return "", special, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return template, special, nil
}

// chatTemplate reads chat_template: a string, or a list of {name, template} of which the one
// named "default" is taken.
func chatTemplate(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var list []struct{ Name, Template string }
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", fmt.Errorf("chat_template is neither a string nor a list of {name, template}")
	}
	for _, e := range list {
		if e.Name == "default" {
			return e.Template, nil
		}
	}
	return "", fmt.Errorf("chat_template list has no template named \"default\"")
}

// tokenString reads a special token given as a string, an {"content": …} object or null.
func tokenString(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var obj struct{ Content string }
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", fmt.Errorf("neither a string nor an object with content")
	}
	return obj.Content, nil
}

// ReadChatTemplate returns the chat template of the tokenizer_config.json at path ("" if it
// has none), without loading the tokenizer.
func ReadChatTemplate(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	t, _, err := parseConfig(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}
