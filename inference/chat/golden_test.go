package chat

//go:generate /usr/bin/python3 ../../tools/goldenprompts/goldenprompts.py

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenCase is one row of testdata/cases.json, written by tools/goldenprompts.
type goldenCase struct {
	Name     string `json:"name"`
	Messages []struct {
		Role             string  `json:"role"`
		Content          string  `json:"content"`
		ReasoningContent *string `json:"reasoning_content"`
	} `json:"messages"`
	AddGenerationPrompt bool              `json:"add_generation_prompt"`
	EnableThinking      *bool             `json:"enable_thinking"`
	Tools               []json.RawMessage `json:"tools"`
}

func (c goldenCase) input(specials map[string]*string) ([]Message, Options) {
	msgs := make([]Message, len(c.Messages))
	for i, m := range c.Messages {
		msgs[i] = Message{Role: m.Role, Content: m.Content}
		if m.ReasoningContent != nil {
			msgs[i].ReasoningContent = *m.ReasoningContent
		}
	}
	opt := goldenOptions(specials, c.AddGenerationPrompt, c.Tools)
	opt.EnableThinking = c.EnableThinking
	return msgs, opt
}

// goldenOptions are a case's options: the template's special tokens, the generation prompt
// and the tools, as goldenprompts.py passes them.
func goldenOptions(specials map[string]*string, addGenerationPrompt bool, tools []json.RawMessage) Options {
	opt := Options{AddGenerationPrompt: addGenerationPrompt}
	if s := specials["bos_token"]; s != nil {
		opt.BOS = *s
	}
	if s := specials["eos_token"]; s != nil {
		opt.EOS = *s
	}
	for _, tool := range tools {
		opt.Tools = append(opt.Tools, tool)
	}
	return opt
}

func loadCases(t *testing.T) []goldenCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "cases.json"))
	if err != nil {
		t.Fatalf("%v — run `go generate ./inference/chat` (needs /usr/bin/python3 with python3-jinja2)", err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func loadTemplate(t *testing.T, name string) (*Template, map[string]*string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "templates", name+".jinja"))
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := New(string(src))
	if err != nil {
		t.Fatalf("New(%s): %v", name, err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "templates", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	specials := map[string]*string{}
	if err := json.Unmarshal(data, &specials); err != nil {
		t.Fatal(err)
	}
	return tpl, specials
}

// TestGolden renders every case with every template and compares byte for byte with what
// Python Jinja2 rendered, the way transformers does (tools/goldenprompts).
func TestGolden(t *testing.T) {
	cases := loadCases(t)
	for _, name := range []string{"qwen3", "llama3", "deepseek_v3", "gemma3", "phi3_5", "llama2"} {
		t.Run(name, func(t *testing.T) {
			tpl, specials := loadTemplate(t, name)
			for _, c := range cases {
				msgs, opt := c.input(specials)
				checkGolden(t, tpl, c.Name, filepath.Join("testdata", "golden", name, c.Name), msgs, opt)
			}
		})
	}
}

// checkGolden renders msgs and compares with base.txt, or expects an error when base.err exists.
func checkGolden(t *testing.T, tpl *Template, name, base string, msgs []Message, opt Options) {
	t.Run(name, func(t *testing.T) {
		got, err := tpl.Render(msgs, opt)
		if want, rerr := os.ReadFile(base + ".err"); rerr == nil {
			if err == nil {
				t.Fatalf("Render succeeded, want an error like %q", strings.TrimSpace(string(want)))
			}
			if !errors.Is(err, ErrTemplate) {
				t.Errorf("error %v is not ErrTemplate", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		want, err := os.ReadFile(base + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("Render mismatch (-want +got):\n%s", diff)
		}
	})
}
