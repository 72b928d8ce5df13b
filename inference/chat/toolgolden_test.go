package chat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// toolCase is one row of testdata/toolcases.json, written by tools/goldenprompts: messages as
// transformers takes them, with tool calls, tool results and a system message's tools key.
type toolCase struct {
	Name     string `json:"name"`
	Messages []struct {
		Role       string  `json:"role"`
		Content    string  `json:"content"`
		Tools      *string `json:"tools"`
		ToolCallID string  `json:"tool_call_id"`
		ToolName   string  `json:"name"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	AddGenerationPrompt bool              `json:"add_generation_prompt"`
	Tools               []json.RawMessage `json:"tools"`
}

func (c toolCase) input(specials map[string]*string) ([]Message, Options) {
	msgs := make([]Message, len(c.Messages))
	for i, m := range c.Messages {
		msgs[i] = Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.ToolName}
		if m.Tools != nil {
			msgs[i].Tools = *m.Tools
		}
		for _, tc := range m.ToolCalls {
			msgs[i].ToolCalls = append(msgs[i].ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
	}
	return msgs, goldenOptions(specials, c.AddGenerationPrompt, c.Tools)
}

// toolTemplates render the tool cases; those that TestGolden does not cover render the base
// cases here too (with the clock pinned, for Llama 3.2's date).
var toolTemplates = []struct {
	name      string
	baseCases bool
}{
	{"qwen3", false}, {"llama3_1", true}, {"llama3_2", true}, {"phi4_mini", true}, {"mistral_v0_3", true}, {"hermes3", false},
}

// toolDay is the day goldenprompts.py gives strftime_now.
var toolDay = time.Date(2024, time.July, 26, 9, 30, 0, 0, time.UTC)

// TestToolGolden renders tool calls and tool results with the real templates of Qwen3, Llama
// 3.1 and 3.2, Phi-4-mini, Mistral 7B v0.3 and Hermes 3 and compares byte for byte with
// Python Jinja2 (tools/goldenprompts).
func TestToolGolden(t *testing.T) {
	defer func(orig func() time.Time) { now = orig }(now)
	now = func() time.Time { return toolDay }
	data, err := os.ReadFile(filepath.Join("testdata", "toolcases.json"))
	if err != nil {
		t.Fatalf("%v — run `go generate ./inference/chat`", err)
	}
	var cases []toolCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	base := loadCases(t)
	for _, tt := range toolTemplates {
		t.Run(tt.name, func(t *testing.T) {
			tpl, specials := loadTemplate(t, tt.name)
			for _, c := range cases {
				msgs, opt := c.input(specials)
				checkGolden(t, tpl, "tool_"+c.Name, filepath.Join("testdata", "golden", tt.name, "tool_"+c.Name), msgs, opt)
			}
			if !tt.baseCases {
				return
			}
			for _, c := range base {
				msgs, opt := c.input(specials)
				checkGolden(t, tpl, c.Name, filepath.Join("testdata", "golden", tt.name, c.Name), msgs, opt)
			}
		})
	}
}
