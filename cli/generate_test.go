package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/synth"
	"edgechat/internal/testenv"
)

func writeTinyModel(t *testing.T) string {
	t.Helper()
	o := synth.Tiny()
	o.TokenizerDir = testenv.TokenizerDir(t, "qwen3")
	d := filepath.Join(t.TempDir(), "m")
	if err := synth.Write(d, o); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestGenerateJSON(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--model", model, "--ort-lib", lib, "--prompt", "Hi", "--temperature", "0", "--max-tokens", "16", "--json"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var last map[string]any
	lines := 0
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		last = nil
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", lines, err, sc.Text())
		}
	}
	if lines < 2 {
		t.Fatalf("only %d events", lines)
	}
	if last["type"] != "done" {
		t.Fatalf("last event %v", last)
	}
	for _, k := range []string{"prompt_ids", "ids", "finish_reason", "backend", "ttft_ms", "decode_tokens_per_s", "prompt_tokens", "generated_tokens"} {
		if _, ok := last[k]; !ok {
			t.Errorf("final event lacks %q: %v", k, last)
		}
	}
	if last["backend"] != "cpu" {
		t.Errorf("backend %v", last["backend"])
	}
}

func TestGeneratePrintPrompt(t *testing.T) {
	model := writeTinyModel(t)
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--model", model, "--system", "You are helpful.", "--prompt", "Hi", "--no-think", "--print-prompt"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
	if out.String() != want {
		t.Fatalf("prompt:\n%q\nwant\n%q", out.String(), want)
	}
}

func TestGenerateErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"generate", "--prompt", "Hi"}, "--model is required"},
		{[]string{"generate", "--model", "x"}, "--prompt"},
		{[]string{"generate", "--model", "/nonexistent/model", "--prompt", "Hi"}, "does not exist"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := Run(c.args, strings.NewReader(""), &out, &errb); code == 0 {
			t.Errorf("%v: exit 0", c.args)
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, errb.String(), c.want)
		}
	}
}

func TestGenerateHybridFallsBackWithReason(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--npu-model", model, "--npu-ep", "qnn", "--cpu-model", model, "--ort-lib", lib,
		"--prompt", "Hi", "--temperature", "0", "--max-tokens", "4", "--json"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last["backend"] != "cpu" || !strings.Contains(last["fallback_reason"].(string), "QNN execution provider is not supported") {
		t.Fatalf("final event %v", last)
	}
}

// A --max-tokens over the model's context (2^53 once panicked in makeslice) is refused
// with the numbers.
func TestGenerateMaxTokensOverContext(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--model", model, "--ort-lib", lib, "--prompt", "Hi", "--max-tokens", "9007199254740992"}, strings.NewReader(""), &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "context holds 4096 tokens") {
		t.Fatalf("exit %d, stderr %q; want a refusal that gives the context", code, errb.String())
	}
}
