package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/testdocs"
	"edgechat/internal/testenv"
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
