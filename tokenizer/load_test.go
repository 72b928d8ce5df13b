package tokenizer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tinyTokenizer writes a small byte-level BPE tokenizer.json (Qwen-style pipeline), changed by
// edit, into a temporary folder and returns the folder.
func tinyTokenizer(t *testing.T, edit func(m map[string]any)) string {
	t.Helper()
	vocab := map[string]any{}
	for b := 0; b < 256; b++ {
		vocab[string(byteToRune[b])] = b
	}
	merges := [][]string{{"Ġ", "t"}, {"h", "i"}, {"Ġt", "h"}, {"Ġth", "e"}}
	for i, m := range merges {
		vocab[m[0]+m[1]] = 256 + i
	}
	var qwenRegex string
	for re, m := range splitPatterns {
		if strings.Contains(re, `\p{N}|`) && m != nil {
			qwenRegex = re
		}
	}
	m := map[string]any{
		"version": "1.0",
		"added_tokens": []any{
			map[string]any{"id": 260, "content": "<|end|>", "single_word": false, "lstrip": false, "rstrip": false, "special": true, "normalized": false},
			map[string]any{"id": 261, "content": "<x>", "single_word": false, "lstrip": false, "rstrip": false, "special": false, "normalized": false},
		},
		"normalizer": map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": qwenRegex}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		}},
		"post_processor": map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false},
		"decoder":        map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		"model": map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "",
			"end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
			"vocab": vocab, "merges": merges},
	}
	if edit != nil {
		edit(m)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func modelOf(m map[string]any) map[string]any { return m["model"].(map[string]any) }

func preTokenizers(m map[string]any) []any {
	return m["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)
}

func TestTinyTokenizer(t *testing.T) {
	tk, err := Load(tinyTokenizer(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text          string
		user, special []int
	}{
		{"hi the", []int{257, 259}, []int{257, 259}},
		{"hi<|end|>", []int{257, '<', '|', 'e', 'n', 'd', '|', '>'}, []int{257, 260}},
		{"<x>", []int{'<', 'x', '>'}, []int{261}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.user, tk.Encode(tt.text)); diff != "" {
			t.Errorf("Encode(%q) (-want +got):\n%s", tt.text, diff)
		}
		if diff := cmp.Diff(tt.special, tk.EncodeSpecial(tt.text)); diff != "" {
			t.Errorf("EncodeSpecial(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
	if got := tk.Decode([]int{257, 260, 261}, true); got != "hi<x>" {
		t.Errorf("Decode skipping special = %q, want %q", got, "hi<x>")
	}
}

// A file saved with BPE dropout (a fine-tune's tokenizer.json) loads and tokenizes with every
// merge, as the model runs at inference; inspect says the dropout is not applied.
func TestBPEDropoutNotApplied(t *testing.T) {
	plain, err := Load(tinyTokenizer(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	drop, err := Load(tinyTokenizer(t, func(m map[string]any) { modelOf(m)["dropout"] = 0.1 }))
	if err != nil {
		t.Fatalf("Load with dropout 0.1: %v", err)
	}
	for _, text := range []string{"hi the", " the hi thi", "<|end|>hi"} {
		for range 20 { // a random skip would show within a few calls
			if diff := cmp.Diff(plain.EncodeSpecial(text), drop.EncodeSpecial(text)); diff != "" {
				t.Fatalf("EncodeSpecial(%q) with dropout (-without +with):\n%s", text, diff)
			}
		}
	}
	if got := drop.Components().Model; !strings.Contains(got, "dropout 0.1 not applied") {
		t.Errorf("Components().Model = %q, want it to say the dropout is not applied", got)
	}
	if _, err := Load(tinyTokenizer(t, func(m map[string]any) { modelOf(m)["dropout"] = 1.5 })); err == nil || !strings.Contains(err.Error(), "not between 0 and 1") {
		t.Errorf("Load with dropout 1.5: %v, want a refusal", err)
	}
}

// TestLoadRefuses checks that a file is refused, naming the part, where the reference would
// refuse it (a required field missing) or where this package does not implement the part.
func TestLoadRefuses(t *testing.T) {
	tests := []struct {
		name, wantMsg string
		unsupported   bool
		edit          func(m map[string]any)
	}{
		{"normalizer", "normalizer Unicode", true, func(m map[string]any) { m["normalizer"] = map[string]any{"type": "Unicode"} }},
		{"untyped", "legacy untyped", true, func(m map[string]any) { m["normalizer"] = map[string]any{"lowercase": true} }},
		{"pre-tokenizer", "pre-tokenizer Unknown", true, func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{map[string]any{"type": "Unknown"}}}
		}},
		{"precompiled null", "precompiled_charsmap is null", false, func(m map[string]any) {
			m["normalizer"] = map[string]any{"type": "Precompiled", "precompiled_charsmap": nil}
		}},
		{"fixed length 0", "length must be at least 1", false, func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "FixedLength", "length": 0}
		}},
		{"regex look-behind", `unsupported group "(?<="`, true, func(m map[string]any) {
			preTokenizers(m)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `(?<=a)b`}
		}},
		{"regex extended option", `unsupported group "(?x)"`, true, func(m map[string]any) {
			preTokenizers(m)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `(?x) a b # c`}
		}},
		{"regex class", `unsupported class \p{Emoji_Keycap_Sequence}`, true, func(m map[string]any) {
			preTokenizers(m)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `\p{Emoji_Keycap_Sequence}+`}
		}},
		// Oniguruma's POSIX classes and intersections, which a plain bracket reading gets wrong.
		{"regex POSIX class", `unsupported POSIX class [:alpha:]`, true, func(m map[string]any) {
			preTokenizers(m)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `[[:alpha:]]+|\s+`}
		}},
		{"regex class intersection", `unsupported class intersection &&`, true, func(m map[string]any) {
			preTokenizers(m)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `[a-z&&[^aeiou]]+`}
		}},
		{"regex reversed interval", `unsupported repetition {2,1}`, true, func(m map[string]any) {
			preTokenizers(m)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `\d{2,1}|\D+`}
		}},
		{"split without invert", "missing field invert", false, func(m map[string]any) { delete(preTokenizers(m)[0].(map[string]any), "invert") }},
		{"byte-level without add_prefix_space", "missing field add_prefix_space", false, func(m map[string]any) {
			delete(preTokenizers(m)[1].(map[string]any), "add_prefix_space")
		}},
		{"model", "model Chars", true, func(m map[string]any) { modelOf(m)["type"] = "Chars" }},
		{"wordpiece without unk", `unk_token "[UNK]" is not in the vocab`, false, func(m map[string]any) {
			modelOf(m)["type"], modelOf(m)["unk_token"], modelOf(m)["max_input_chars_per_word"] = "WordPiece", "[UNK]", 100
		}},
		{"subword prefix", "missing from the vocab", false, func(m map[string]any) { modelOf(m)["continuing_subword_prefix"] = "##" }},
		{"decoder", "decoder WordPiece: missing field prefix", false, func(m map[string]any) { m["decoder"] = map[string]any{"type": "WordPiece"} }},
		{"post-processor", "post-processor BertProcessing: missing field sep", false, func(m map[string]any) { m["post_processor"] = map[string]any{"type": "BertProcessing"} }},
		{"version", "unknown tokenizer.json version", false, func(m map[string]any) { m["version"] = "2.0" }},
		// The reference's added tokens have no default fields (swift-transformers' test
		// tokenizer.json lists tokens with id and content only).
		{"added token without flags", `added_tokens: token 1 ("<x>"): missing field single_word`, false, func(m map[string]any) {
			m["added_tokens"].([]any)[1] = map[string]any{"id": 261, "content": "<x>"}
		}},
		{"added token without special", `added_tokens: token 0 ("<|end|>"): missing field special`, false, func(m map[string]any) {
			delete(m["added_tokens"].([]any)[0].(map[string]any), "special")
		}},
		{"added token null flag", `added_tokens: token 0: lstrip is null`, false, func(m map[string]any) {
			m["added_tokens"].([]any)[0].(map[string]any)["lstrip"] = nil
		}},
		{"added token negative id", `added_tokens: token 0 ("<|end|>"): id -1 is not a u32`, false, func(m map[string]any) {
			m["added_tokens"].([]any)[0].(map[string]any)["id"] = -1
		}},
		{"added token id beyond u32", `added_tokens: token 0 ("<|end|>"): id 4294967296 is not a u32`, false, func(m map[string]any) {
			m["added_tokens"].([]any)[0].(map[string]any)["id"] = 1 << 32
		}},
		{"added tokens null", "added_tokens is null", false, func(m map[string]any) { m["added_tokens"] = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tinyTokenizer(t, tt.edit))
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) || tt.unsupported != errors.Is(err, ErrUnsupported) {
				t.Errorf("Load error = %v, want one naming %s (ErrUnsupported %v)", err, tt.wantMsg, tt.unsupported)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	empty := t.TempDir()
	if _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "tokenizer.json not found in "+empty) {
		t.Errorf("Load(empty folder) error = %v", err)
	}
	bad := tinyTokenizer(t, func(m map[string]any) { modelOf(m)["merges"] = []string{"Ġ zz"} })
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "missing from the vocab") {
		t.Errorf("Load(merge of unknown token) error = %v", err)
	}
	if err := os.WriteFile(filepath.Join(empty, "tokenizer.json"), []byte(`{"model": {"vocab": {"a": 1,}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "not a valid tokenizer.json") {
		t.Errorf("Load(broken JSON) error = %v", err)
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name, config, template string
		special                SpecialTokens
	}{
		{"strings", `{"chat_template": "{{ x }}", "bos_token": "<s>", "eos_token": "</s>", "pad_token": null}`,
			"{{ x }}", SpecialTokens{BOS: "<s>", EOS: "</s>"}},
		{"template list and token objects", `{"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}],
			"bos_token": {"__type": "AddedToken", "content": "<b>"}, "unk_token": {"content": "<u>"}}`,
			"D", SpecialTokens{BOS: "<b>", UNK: "<u>"}},
		{"no template", `{}`, "", SpecialTokens{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tinyTokenizer(t, nil)
			if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(tt.config), 0o644); err != nil {
				t.Fatal(err)
			}
			tk, err := Load(filepath.Join(dir, "tokenizer.json"))
			if err != nil {
				t.Fatal(err)
			}
			if tk.ChatTemplate() != tt.template {
				t.Errorf("ChatTemplate = %q, want %q", tk.ChatTemplate(), tt.template)
			}
			if diff := cmp.Diff(tt.special, tk.SpecialTokens()); diff != "" {
				t.Errorf("SpecialTokens (-want +got):\n%s", diff)
			}
		})
	}
}
