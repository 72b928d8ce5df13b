package cli

import (
	"strings"
	"testing"

	"edgechat/internal/testkit/testenv"
)

func TestTokenize(t *testing.T) {
	dir := testenv.TokenizerDir(t, "qwen3")
	tests := []struct {
		name     string
		args     []string
		stdin    string
		want     string
		wantCode int
		wantErr  string
	}{
		{"special", []string{"--special"}, "Hello, world! 你好 <|im_start|>user", "[9707,11,1879,0,220,108386,220,151644,872]\n", 0, ""},
		{"user text keeps tokens literal", nil, "<|im_start|>", "[27,91,318,4906,91,29]\n", 0, ""},
		{"file path", []string{"--tokenizer", dir + "/tokenizer.json"}, "Hi", "[13048]\n", 0, ""},
		{"empty", nil, "", "[]\n", 0, ""},
		{"batch", []string{"--batch"}, `["Hi", "", "<|im_end|>"]`, "[[13048],[],[27,91,318,6213,91,29]]\n", 0, ""},
		{"decode", []string{"--decode"}, "[9707,11,151644]", "Hello,", 0, ""},
		{"decode special", []string{"--decode", "--special"}, "[9707,11,151644]", "Hello,<|im_start|>", 0, ""},
		{"batch decode", []string{"--decode", "--batch", "--special"}, "[[9707],[151645,27]]", `["Hello","<|im_end|><"]` + "\n", 0, ""},
		{"bad batch", []string{"--batch"}, "Hi", "", 1, "--batch wants a JSON array of strings"},
		{"bad decode", []string{"--decode"}, `["a"]`, "", 1, "--decode wants a JSON array of ids"},
		{"missing tokenizer", []string{"--tokenizer", ""}, "", "", 1, "--tokenizer is required"},
		{"not a tokenizer folder", []string{"--tokenizer", t.TempDir()}, "", "", 1, "tokenizer.json not found in"},
		{"bad flag", []string{"--nope"}, "", "", 2, "usage: edgechat tokenize"},
	}
	// The real trained model's tokenizer: its README gives these ids (BOS from the
	// post-processor, then the SentencePiece pieces).
	stories := testenv.SharedModel(t, "stories260K")
	tests = append(tests, struct {
		name     string
		args     []string
		stdin    string
		want     string
		wantCode int
		wantErr  string
	}{"sentencepiece with BOS", []string{"--tokenizer", stories, "--add-special-tokens", "--special"}, "Once upon a time", "[1,403,407,261,378]\n", 0, ""})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"tokenize", "--tokenizer", dir}, tt.args...)
			var out, errb strings.Builder
			code := Run(args, strings.NewReader(tt.stdin), &out, &errb)
			if code != tt.wantCode {
				t.Fatalf("exit code %d, want %d (stderr %q)", code, tt.wantCode, errb.String())
			}
			if out.String() != tt.want {
				t.Errorf("stdout %q, want %q", out.String(), tt.want)
			}
			if !strings.Contains(errb.String(), tt.wantErr) {
				t.Errorf("stderr %q, want it to mention %q", errb.String(), tt.wantErr)
			}
		})
	}
}
