package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"edgechat/internal/testkit/testenv"
)

// BenchmarkRenderGolden renders every golden case (base and tool cases) with every real
// template once per iteration: the sandbox's cost on the templates it must not slow down.
// Run: go test -run '^$' -bench RenderGolden -benchtime 200x ./inference/chat/
func BenchmarkRenderGolden(b *testing.B) {
	t := &testing.T{}
	cases := loadCases(t)
	data, err := os.ReadFile(filepath.Join("testdata", "toolcases.json"))
	if err != nil {
		b.Fatal(err)
	}
	var tools []toolCase
	if err := json.Unmarshal(data, &tools); err != nil {
		b.Fatal(err)
	}
	type job struct {
		tpl  *Template
		msgs []Message
		opt  Options
	}
	var jobs []job
	for _, name := range []string{"qwen3", "llama3", "deepseek_v3", "gemma3", "phi3_5", "llama2", "llama3_1", "llama3_2", "phi4_mini", "mistral_v0_3", "hermes3"} {
		tpl, specials := loadTemplate(t, name)
		for _, c := range cases {
			msgs, opt := c.input(specials)
			jobs = append(jobs, job{tpl, msgs, opt})
		}
		for _, c := range tools {
			msgs, opt := c.input(specials)
			jobs = append(jobs, job{tpl, msgs, opt})
		}
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		for _, j := range jobs {
			_, _ = j.tpl.Render(j.msgs, j.opt)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N*len(jobs)), "µs/render")
}

// Every real template renders every golden case far below the limits: under a tenth of the
// steps and bytes its conversation allows, at depth 8 or less.
func TestRealTemplatesWithinLimits(t *testing.T) {
	defer func(orig func() time.Time) { now = orig }(now)
	now = func() time.Time { return toolDay }
	cases := loadCases(t)
	data, err := os.ReadFile(filepath.Join("testdata", "toolcases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tools []toolCase
	if err := json.Unmarshal(data, &tools); err != nil {
		t.Fatal(err)
	}
	var maxSteps, maxBytes int
	for _, name := range []string{"qwen3", "llama3", "deepseek_v3", "gemma3", "phi3_5", "llama2", "llama3_1", "llama3_2", "phi4_mini", "mistral_v0_3", "hermes3"} {
		tpl, specials := loadTemplate(t, name)
		check := func(c string, msgs []Message, opt Options) {
			_, b, _ := tpl.render(context.Background(), msgs, opt)
			if b == nil {
				return
			}
			maxSteps, maxBytes = max(maxSteps, b.steps), max(maxBytes, b.bytes)
			if b.steps*10 > b.lim.Steps || b.bytes*10 > b.lim.Bytes || b.err != nil {
				t.Errorf("%s/%s: %d steps of %d, %d bytes of %d, err %v", name, c, b.steps, b.lim.Steps, b.bytes, b.lim.Bytes, b.err)
			}
		}
		for _, c := range cases {
			msgs, opt := c.input(specials)
			check(c.Name, msgs, opt)
		}
		for _, c := range tools {
			msgs, opt := c.input(specials)
			check(c.Name, msgs, opt)
		}
	}
	t.Logf("most used: %d steps, %d bytes", maxSteps, maxBytes)
}

// A long conversation (2,000 messages, with tools) renders with every real template within
// a tenth of its limits: the limits grow with the conversation faster than real templates'
// use does.
func TestLongConversationWithinLimits(t *testing.T) {
	defer func(orig func() time.Time) { now = orig }(now)
	now = func() time.Time { return toolDay }
	msgs := []Message{{Role: "system", Content: "Be brief."}}
	for i := range 1000 {
		msgs = append(msgs, Message{Role: "user", Content: fmt.Sprintf("question %d with some words", i)}, Message{Role: "assistant", Content: "an answer of a few words"})
	}
	msgs = append(msgs, Message{Role: "user", Content: "last"})
	opt := Options{AddGenerationPrompt: true, Tools: []any{trialConversations[0].opt.Tools[0]}}
	for _, name := range []string{"qwen3", "llama3", "deepseek_v3", "gemma3", "phi3_5", "llama2", "llama3_1", "llama3_2", "phi4_mini", "mistral_v0_3", "hermes3"} {
		tpl, specials := loadTemplate(t, name)
		o := opt
		if s := specials["bos_token"]; s != nil {
			o.BOS = *s
		}
		start := time.Now()
		_, b, err := tpl.render(context.Background(), msgs, o)
		took := time.Since(start)
		if b == nil || errors.Is(err, ErrLimit) || b.steps*10 > b.lim.Steps || b.bytes*10 > b.lim.Bytes {
			t.Errorf("%s: %v", name, err)
			continue
		}
		t.Logf("%s: %v, %d steps of %d, %d KB of %d KB (%v)", name, took.Round(time.Millisecond), b.steps, b.lim.Steps, b.bytes>>10, b.lim.Bytes>>10, err)
	}
}

// The chat templates of the real tokenizer folders the tests use load under the sandbox and
// render the trial conversations within a tenth of the limits.
func TestTokenizerFolderTemplatesWithinLimits(t *testing.T) {
	for _, name := range []string{"qwen3", "llama3", "gemma3", "deepseek_v3"} {
		var cfg struct {
			ChatTemplate string `json:"chat_template"`
		}
		data, err := os.ReadFile(filepath.Join(testenv.TokenizerDir(t, name), "tokenizer_config.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatal(err)
		}
		tpl, err := New(cfg.ChatTemplate)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, c := range trialConversations {
			_, b, _ := tpl.render(context.Background(), c.msgs, c.opt)
			if b == nil || b.steps*10 > b.lim.Steps || b.bytes*10 > b.lim.Bytes {
				t.Errorf("%s: over a tenth of the limits: %+v", name, b)
			}
		}
	}
}
