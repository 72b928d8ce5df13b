package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testdocs"
	"edgechat/internal/testkit/testenv"
)

func TestGenerateAttachPrintPrompt(t *testing.T) {
	model := writeTinyModel(t)
	pdf := filepath.Join(t.TempDir(), "archive.pdf")
	if err := os.WriteFile(pdf, testdocs.LongPDF(300, 250), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--model", model, "--prompt", testdocs.NeedleQuestion, "--attach", pdf, "--max-tokens", "256", "--no-think", "--print-prompt"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	prompt := out.String()
	flat := strings.Join(strings.Fields(prompt), " ")
	if !strings.Contains(flat, testdocs.Needle) || !strings.Contains(prompt, "] archive.pdf, page 250\n") {
		t.Errorf("the prompt lacks the needle's passage:\n%.3000s", prompt)
	}
	if !strings.HasPrefix(prompt, "<|im_start|>user\nAnswer the question at the end using the numbered passages") ||
		!strings.Contains(prompt, "Question: "+testdocs.NeedleQuestion+"<|im_end|>") {
		t.Errorf("passages are not in the user message:\n%.500s", prompt)
	}
}

func TestGenerateAttachJSONSources(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(notes, []byte("# Plans\n\nThe launch is on Friday.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	scan := filepath.Join(dir, "scan.pdf")
	if err := os.WriteFile(scan, testdocs.ScannedPDF(1), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--model", model, "--ort-lib", lib, "--prompt", "When is the launch?", "--attach", notes, "--attach", scan,
		"--temperature", "0", "--max-tokens", "4", "--json"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var last map[string]any
	var notices []string
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		last = nil
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatal(err)
		}
		if last["type"] == "notice" {
			notices = append(notices, last["text"].(string))
		}
	}
	want := []any{map[string]any{"file": "notes.md", "heading": "Plans", "text": "The launch is on Friday."}}
	got, _ := json.Marshal(last["sources"])
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("sources %s, want %s", got, wantJSON)
	}
	if len(notices) != 1 || !strings.HasPrefix(notices[0], "Cannot read scan.pdf") {
		t.Errorf("notices %q, want one about scan.pdf", notices)
	}
}

// TestGenerateAttachEmbeddingModel: --embedding-model ranks by meaning as well and the
// status says so; a chat model given as one falls back to keywords with a notice; off
// ranks by keywords without one.
func TestGenerateAttachEmbeddingModel(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	emb := filepath.Join(t.TempDir(), "emb")
	o := synth.Tiny()
	o.Layout, o.TokenizerDir = synth.LayoutEmbedding, testenv.TokenizerDir(t, "qwen3")
	if err := synth.Write(emb, o); err != nil {
		t.Fatal(err)
	}
	pdf := filepath.Join(t.TempDir(), "archive.pdf")
	if err := os.WriteFile(pdf, testdocs.LongPDF(30, 20), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		setting, status, notice string
	}{
		{emb, "[status] Passages ranked by keywords and by meaning (emb)", ""},
		{model, "[status] Passages ranked by keywords", "[notice] Ranking by keywords only: the embedding model cannot be used: " + model + " is a chat model"},
		{"off", "[status] Passages ranked by keywords", ""},
	} {
		var out, errb bytes.Buffer
		code := Run([]string{"generate", "--model", model, "--ort-lib", lib, "--prompt", testdocs.NeedleQuestion, "--attach", pdf,
			"--embedding-model", tc.setting, "--max-context", "1024", "--max-tokens", "256", "--no-think", "--print-prompt"}, strings.NewReader(""), &out, &errb)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.setting, code, errb.String())
		}
		lines := strings.Split(errb.String(), "\n")
		if !slices.Contains(lines, tc.status) {
			t.Errorf("%s: stderr %q, want the line %q", tc.setting, errb.String(), tc.status)
		}
		hasNotice := slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "[notice]") })
		if tc.notice == "" && hasNotice || tc.notice != "" && !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, tc.notice) }) {
			t.Errorf("%s: stderr %q, want notice %q", tc.setting, errb.String(), tc.notice)
		}
		if !strings.Contains(out.String(), "archive.pdf, page") {
			t.Errorf("%s: no passages in the prompt", tc.setting)
		}
	}
}

// A document holding private-use, non-characters, controls and a forged body marker reaches
// the printed prompt as written (a private-use character once made every reply fail).
func TestGenerateAttachOddCharacters(t *testing.T) {
	model := writeTinyModel(t)
	doc := filepath.Join(t.TempDir(), "glyphs.txt")
	odd := "Icon \uE000 and \uF8FF, marker \uE0000\uE001, non-character \uFDD0, plane 16 \U00100000."
	if err := os.WriteFile(doc, []byte("# Glyphs\n\n"+odd+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--model", model, "--prompt", "Which icon? \uE000", "--attach", doc, "--no-think", "--print-prompt"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), odd) || !strings.Contains(out.String(), "Which icon? \uE000<|im_end|>") {
		t.Errorf("the prompt lacks the document's or the question's text:\n%s", out.String())
	}
}

// The same document and question get a reply (before, every reply failed with "the chat
// template changed a message body").
func TestGenerateAttachOddCharactersReplies(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	doc := filepath.Join(t.TempDir(), "glyphs.txt")
	if err := os.WriteFile(doc, []byte("# Glyphs\n\nIcon \uE000 and \uE0000\uE001 here.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--model", model, "--ort-lib", lib, "--prompt", "Which icon? \uE000", "--attach", doc, "--temperature", "0", "--max-tokens", "4", "--no-think"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}
