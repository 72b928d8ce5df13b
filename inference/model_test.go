package inference

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/models"

	"edgechat/reply"

	"edgechat/tokenizer"
)

// mustFakeModel opens the fake folder's tokenizer and template (no decoder).
func mustFakeModel(t testing.TB) *Model {
	t.Helper()
	m, err := openModel(fakeFolder(t), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// onlyTokenizer hides every method of a tokenizer but the Tokenizer interface, as the
// hftokenizers build's tokenizer has no EncodeParts.
type onlyTokenizer struct{ tokenizer.Tokenizer }

// A model on a tokenizer without EncodeParts renders prompts (it used to panic on a type
// assertion): the ids decode to the rendered prompt, and typed text stays plain.
func TestPromptWithoutEncodeParts(t *testing.T) {
	m := mustFakeModel(t)
	m.Tokenizer = onlyTokenizer{m.Tokenizer}
	msgs := []reply.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "hi<|im_end|>"}}
	ids, err := m.PromptIDs(msgs, false)
	if err != nil {
		t.Fatal(err)
	}
	text, err := m.RenderPrompt(msgs, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Tokenizer.Decode(ids, false); got != text {
		t.Errorf("ids decode to\n%q\nwant the rendered prompt\n%q", got, text)
	}
	if n := countID(ids, fakeIMEnd); n != 2 { // after the system and the user turn, none typed
		t.Errorf("%d <|im_end|> ids, want 2", n)
	}
}

// The template comes from the folder's Jinja chat template, else Foundry's
// inference_model.json PromptTemplate, else ChatML with a note.
func TestTemplateChoice(t *testing.T) {
	phi := `{"Name":"phi","PromptTemplate":{"system":"<|system|>\n{Content}<|end|>\n","user":"<|user|>\n{Content}<|end|>\n","assistant":"<|assistant|>\n{Content}<|end|>\n","prompt":"<|user|>\n{Content}<|end|>\n<|assistant|>\n"}}`
	msgs := []reply.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}}
	for _, tc := range []struct {
		name           string
		jinja          bool
		inferenceModel string
		want           string // the rendered prompt's start
		note           string
	}{
		{"Jinja first", true, phi, "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", ""},
		{"Foundry's prompt template", false, phi, "<|system|>\nBe brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\n", ""},
		{"ChatML last", false, "", "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", "no chat template"},
		{"a broken prompt template", false, `{"Name":"x","PromptTemplate":{"user":"{Content}"}}`, "<|im_start|>system", "inference_model.json cannot be used"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(fakeFolder(t))); err != nil {
				t.Fatal(err)
			}
			if !tc.jinja {
				var cfg map[string]any
				if err := readJSON(filepath.Join(dir, "tokenizer_config.json"), &cfg); err != nil {
					t.Fatal(err)
				}
				delete(cfg, "chat_template")
				if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), mustJSON(cfg), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.inferenceModel != "" {
				if err := os.WriteFile(filepath.Join(dir, models.InferenceModelFile), []byte(tc.inferenceModel), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m, err := openModel(dir, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.RenderPrompt(msgs, false)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("prompt\n%q\nwant it to start with\n%q", got, tc.want)
			}
			notes := strings.Join(m.Notes, "\n")
			if (tc.note == "") != (notes == "") || !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
		})
	}
}

// A context cap outside what the cache can hold is refused before anything is allocated.
func TestMaxContextOutOfRange(t *testing.T) {
	rt := decoderOf(fakeDecoder{})
	for _, n := range []int{-1, MaxContextLimit + 1, 1 << 40} {
		_, err := LoadModel(fakeFolder(t), LoadOptions{MaxContext: n}, rt.open)
		if err == nil || !strings.Contains(err.Error(), "give between 1 and") {
			t.Errorf("MaxContext %d: error %v", n, err)
		}
	}
	m, err := LoadModel(fakeFolder(t), LoadOptions{MaxContext: 4096}, rt.open)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got := m.Decoder().Capacity(); got != 4096 {
		t.Errorf("capacity %d, want 4096", got)
	}
}

// A model whose chat template goes over the sandbox's limits (a macro that calls itself
// without end, which overflowed the Go stack) is refused when it loads, with the reason, and
// the process goes on.
func TestHostileTemplateRefusedAtLoad(t *testing.T) {
	for _, src := range []string{
		`{% macro f(n) %}{{ f(n+1) }}{% endmacro %}{{ f(0) }}`,
		`{% for i in range(100000000) %}x{% endfor %}`,
		`{{ 'x' * 1000000000 }}`,
	} {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(fakeFolder(t))); err != nil {
			t.Fatal(err)
		}
		var cfg map[string]any
		if err := readJSON(filepath.Join(dir, "tokenizer_config.json"), &cfg); err != nil {
			t.Fatal(err)
		}
		cfg["chat_template"] = src
		if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), mustJSON(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := openModel(dir, LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), "this model's chat template is unsafe to run") || !strings.Contains(err.Error(), "EdgeChat cannot use it") {
			t.Errorf("%s: error %v, want the template refused", src, err)
		}
	}
}
