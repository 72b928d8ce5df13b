package models

import (
	"fmt"
	"path/filepath"
	"strings"
)

// InferenceModelFile is the file Foundry Local and AI Toolkit write beside a model they
// downloaded, naming it and, for models without a Jinja chat template, giving its prompt
// layout.
const InferenceModelFile = "inference_model.json"

// InferenceModel is what inference_model.json holds.
type InferenceModel struct {
	Name string `json:"Name"`
	// PromptTemplate is nil when the file says null or leaves it out.
	PromptTemplate *PromptTemplate `json:"PromptTemplate"`
}

// ContentPlaceholder is where a message's text goes in a PromptTemplate entry.
const ContentPlaceholder = "{Content}"

// PromptTemplate is Foundry's per-role prompt layout: each entry is the text of one turn with
// {Content} where the message goes; Prompt is the last user turn followed by the opening of
// the assistant's reply. An entry the file leaves out or sets to null is "".
type PromptTemplate struct {
	System    string `json:"system"`
	User      string `json:"user"`
	Assistant string `json:"assistant"`
	Prompt    string `json:"prompt"`
}

// ReadInferenceModel reads dir's inference_model.json. It returns nil and no error when the
// folder has none.
func ReadInferenceModel(dir string) (*InferenceModel, error) {
	path := filepath.Join(dir, InferenceModelFile)
	var m InferenceModel
	ok, err := readOptionalJSON(path, &m)
	if err != nil || !ok {
		return nil, err
	}
	if m.PromptTemplate != nil {
		if err := m.PromptTemplate.check(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return &m, nil
}

// check requires the prompt entry and {Content} in every entry given.
func (p *PromptTemplate) check() error {
	if p.Prompt == "" {
		return fmt.Errorf("PromptTemplate has no \"prompt\" entry: the model's prompt layout is unknown — add one or a chat template")
	}
	for _, e := range []struct{ name, text string }{
		{"system", p.System}, {"user", p.User}, {"assistant", p.Assistant}, {"prompt", p.Prompt},
	} {
		if e.text != "" && strings.Count(e.text, ContentPlaceholder) != 1 {
			return fmt.Errorf("PromptTemplate %q entry %q must hold %s exactly once", e.name, e.text, ContentPlaceholder)
		}
	}
	return nil
}
