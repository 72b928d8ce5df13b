package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// FolderConfig is what a model folder says about its tokenizer beside the tokenizer itself:
// the chat template and the named special tokens.
type FolderConfig struct {
	// ChatTemplate is the template to chat with: chat_template.jinja, else chat_template.json's,
	// else tokenizer_config.json's chat_template (the one named "default" when it is a list).
	ChatTemplate string
	// Templates are all the named templates (a list in tokenizer_config.json, or the files of
	// additional_chat_templates/), "default" included.
	Templates map[string]string
	// TemplateFile is the file ChatTemplate came from ("" if none).
	TemplateFile string
	Special      SpecialTokens
	// AddBOS and AddEOS are tokenizer_config.json's add_bos_token and add_eos_token (nil when
	// unset): they shape the post-processor of a tokenizer built from tokenizer.model or
	// vocab.json, as transformers does; a tokenizer.json's own post-processor is kept.
	AddBOS, AddEOS *bool
}

// configJSON is the part of tokenizer_config.json this package reads.
type configJSON struct {
	ChatTemplate json.RawMessage `json:"chat_template"`
	BOS          json.RawMessage `json:"bos_token"`
	EOS          json.RawMessage `json:"eos_token"`
	PAD          json.RawMessage `json:"pad_token"`
	UNK          json.RawMessage `json:"unk_token"`
	AddBOS       *bool           `json:"add_bos_token"`
	AddEOS       *bool           `json:"add_eos_token"`
}

// ReadFolderConfig reads the tokenizer configuration of a model folder: tokenizer_config.json,
// chat_template.jinja, chat_template.json and additional_chat_templates/*.jinja, each if
// present. A file that is present but unreadable is an error naming it.
func ReadFolderConfig(dir string) (FolderConfig, error) {
	var cfg FolderConfig
	file := filepath.Join(dir, "tokenizer_config.json")
	data, err := os.ReadFile(file)
	switch {
	case err == nil:
		if cfg, err = parseConfig(data); err != nil {
			return cfg, fmt.Errorf("load tokenizer config %s: %w", file, err)
		}
		if cfg.ChatTemplate != "" || len(cfg.Templates) > 0 {
			cfg.TemplateFile = file
		}
	case !errors.Is(err, os.ErrNotExist):
		return cfg, fmt.Errorf("load tokenizer config: %w", err)
	}
	if file = filepath.Join(dir, "chat_template.json"); fileExists(file) {
		data, err := os.ReadFile(file)
		if err != nil {
			return cfg, fmt.Errorf("load chat template: %w", err)
		}
		var c struct {
			ChatTemplate json.RawMessage `json:"chat_template"`
		}
		if err := json.Unmarshal(data, &c); err != nil {
			return cfg, fmt.Errorf("load chat template %s: not valid JSON: %w", file, err)
		}
		tmpl, named, err := chatTemplate(c.ChatTemplate)
		if err != nil {
			return cfg, fmt.Errorf("load chat template %s: %w", file, err)
		}
		if tmpl != "" {
			cfg.ChatTemplate, cfg.TemplateFile = tmpl, file
		}
		mergeTemplates(&cfg, named)
	}
	if file = filepath.Join(dir, "chat_template.jinja"); fileExists(file) {
		data, err := os.ReadFile(file)
		if err != nil {
			return cfg, fmt.Errorf("load chat template: %w", err)
		}
		cfg.ChatTemplate, cfg.TemplateFile = string(data), file
		mergeTemplates(&cfg, map[string]string{"default": string(data)})
	}
	extra := filepath.Join(dir, "additional_chat_templates")
	entries, _ := os.ReadDir(extra)
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".jinja")
		if !ok || e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(extra, e.Name()))
		if err != nil {
			return cfg, fmt.Errorf("load chat template: %w", err)
		}
		mergeTemplates(&cfg, map[string]string{name: string(data)})
	}
	return cfg, nil
}

func mergeTemplates(cfg *FolderConfig, named map[string]string) {
	if len(named) == 0 {
		return
	}
	if cfg.Templates == nil {
		cfg.Templates = map[string]string{}
	}
	for k, v := range named {
		cfg.Templates[k] = v
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// TemplateNames lists the named templates, sorted.
func (c FolderConfig) TemplateNames() []string {
	var names []string
	for k := range c.Templates {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// parseConfig reads the chat template and special tokens of a tokenizer_config.json.
func parseConfig(data []byte) (FolderConfig, error) {
	var cfg FolderConfig
	var c configJSON
	if err := json.Unmarshal(data, &c); err != nil {
		return cfg, fmt.Errorf("not valid JSON: %w", err)
	}
	var err error
	if cfg.ChatTemplate, cfg.Templates, err = chatTemplate(c.ChatTemplate); err != nil {
		return cfg, err
	}
	cfg.AddBOS, cfg.AddEOS = c.AddBOS, c.AddEOS
	special := &cfg.Special
	for _, f := range []struct {
		dst  *string
		raw  json.RawMessage
		name string
	}{{&special.BOS, c.BOS, "bos_token"}, {&special.EOS, c.EOS, "eos_token"},
		{&special.PAD, c.PAD, "pad_token"}, {&special.UNK, c.UNK, "unk_token"}} {
		if *f.dst, err = tokenString(f.raw); err != nil {
			return cfg, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return cfg, nil
}

// chatTemplate reads chat_template: a string, or a list of {name, template} of which the one
// named "default" is taken (all of them are returned by name).
func chatTemplate(raw json.RawMessage) (string, map[string]string, error) {
	if isNull(raw) {
		return "", nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil, nil
	}
	var list []struct{ Name, Template string }
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", nil, fmt.Errorf("chat_template is neither a string nor a list of {name, template}")
	}
	named := map[string]string{}
	for _, e := range list {
		named[e.Name] = e.Template
	}
	def, ok := named["default"]
	if !ok {
		return "", named, fmt.Errorf("chat_template list has no template named \"default\"")
	}
	return def, named, nil
}

// tokenString reads a special token given as a string, an {"content": …} object or null.
func tokenString(raw json.RawMessage) (string, error) {
	if isNull(raw) {
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

// ReadChatTemplate returns the chat template of the model folder holding the
// tokenizer_config.json at path (or of the folder path itself): chat_template.jinja, else
// chat_template.json, else tokenizer_config.json's; "" if it has none.
func ReadChatTemplate(path string) (string, error) {
	dir := path
	if st, err := os.Stat(path); err != nil {
		return "", err
	} else if !st.IsDir() {
		dir = filepath.Dir(path)
	}
	cfg, err := ReadFolderConfig(dir)
	return cfg.ChatTemplate, err
}
