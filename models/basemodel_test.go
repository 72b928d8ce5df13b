package models

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"edgechat/internal/testkit/testenv"
)

func TestIsBaseModel(t *testing.T) {
	stories := testenv.SharedModel(t, "stories260K")
	withTemplate := func(dir string) error {
		var cfg map[string]any
		b, err := os.ReadFile(filepath.Join(dir, "tokenizer_config.json"))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return err
		}
		cfg["chat_template"] = "{% for m in messages %}{{ m.content }}{% endfor %}"
		b, _ = json.Marshal(cfg)
		return os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), b, 0o644)
	}
	inferenceModel := func(body string) func(string) error {
		return func(dir string) error {
			return os.WriteFile(filepath.Join(dir, InferenceModelFile), []byte(body), 0o644)
		}
	}
	for _, tc := range []struct {
		name string
		edit func(dir string) error
		want bool
	}{
		{"no template anywhere", nil, true},
		{"a Jinja chat template", withTemplate, false},
		{"chat_template.jinja beside tokenizer_config.json", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "chat_template.jinja"), []byte("{{ messages[0].content }}"), 0o644)
		}, false},
		{"chat_template.json", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "chat_template.json"), []byte(`{"chat_template": "{{ x }}"}`), 0o644)
		}, false},
		{"Foundry's prompt template", inferenceModel(`{"Name":"m","PromptTemplate":{"user":"<|user|>{Content}<|end|>","prompt":"<|user|>{Content}<|end|><|assistant|>"}}`), false},
		{"inference_model.json without a template", inferenceModel(`{"Name":"m","PromptTemplate":null}`), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyFolder(t, stories)
			if tc.edit != nil {
				if err := tc.edit(dir); err != nil {
					t.Fatal(err)
				}
			}
			if got := IsBaseModel(dir); got != tc.want {
				t.Errorf("IsBaseModel = %v, want %v", got, tc.want)
			}
		})
	}
	if IsBaseModel(filepath.Join(t.TempDir(), "missing")) {
		t.Error("a missing folder is a base model")
	}
}

// copyFolder copies a model folder's files (one level of subfolders) into a temporary folder.
func copyFolder(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestFolderTokenizerSources checks the tokenizer files a folder may hold instead of
// tokenizer.json, and the chat template file found.
func TestFolderTokenizerSources(t *testing.T) {
	stories := testenv.SharedModel(t, "stories260K")
	dir := copyFolder(t, stories)
	if err := os.WriteFile(filepath.Join(dir, "chat_template.jinja"), []byte("T"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(f.Tokenizer) != "tokenizer.json" || filepath.Base(f.ChatTemplate) != "chat_template.jinja" {
		t.Errorf("Tokenizer %s, ChatTemplate %s", f.Tokenizer, f.ChatTemplate)
	}
	if err := os.Remove(filepath.Join(dir, "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, ""); err == nil {
		t.Fatal("a folder without tokenizer files opens")
	}
	for _, files := range [][]string{{"vocab.json", "merges.txt"}, {"tokenizer.model"}} {
		d := copyFolder(t, dir)
		for _, name := range files {
			if err := os.WriteFile(filepath.Join(d, name), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f, err := Open(d, "")
		if err != nil {
			t.Fatalf("%v: %v", files, err)
		}
		if filepath.Base(f.Tokenizer) != files[0] {
			t.Errorf("%v: Tokenizer = %s", files, f.Tokenizer)
		}
	}
}
