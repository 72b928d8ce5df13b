package cli

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"edgechat/internal/testkit/testenv"
)

// The first run of a model prints how far the preparation of its optimized copy has gone on
// stderr, a line per step of a percent that never goes back, up to 100%, between the
// tokenizer's step and ONNX Runtime's; the second run, the copy cached, only says it loads,
// in those two steps.
func TestGenerateFirstLoadProgress(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	t.Setenv("EDGECHAT_CACHE", t.TempDir()) // a cold graph cache
	run := func() string {
		var out, errb bytes.Buffer
		code := Run([]string{"generate", "--model", model, "--ort-lib", lib, "--threads", "1", "--prompt", "Hi", "--temperature", "0", "--max-tokens", "2"}, strings.NewReader(""), &out, &errb)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return errb.String()
	}
	loading := "[status] Loading the model for the CPU…"
	tokenizer := "[status] Loading the model for the CPU: reading the tokenizer (step 1 of 2)"
	starting := "[status] Loading the model for the CPU: starting ONNX Runtime (step 2 of 2)"
	percent := regexp.MustCompile(`^\[status\] Preparing this model for your PC: (\d+)%$`)
	var lines, pcts []string
	for _, l := range strings.Split(run(), "\n") {
		if strings.HasPrefix(l, "[status]") {
			lines = append(lines, l)
		}
	}
	last := -1
	if len(lines) < 4 {
		t.Fatalf("status lines:\n%s", strings.Join(lines, "\n"))
	}
	for _, l := range lines[2 : len(lines)-1] {
		m := percent.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("status line %q amid the preparation; lines:\n%s", l, strings.Join(lines, "\n"))
		}
		p, _ := strconv.Atoi(m[1])
		if p < last {
			t.Errorf("%d%% after %d%%", p, last)
		}
		last = p
		pcts = append(pcts, m[1])
	}
	if lines[0] != loading || lines[1] != tokenizer || lines[len(lines)-1] != starting || last != 100 || len(pcts) < 3 {
		t.Errorf("status lines:\n%s\nwant loading, the tokenizer, the preparation up to 100%%, ONNX Runtime", strings.Join(lines, "\n"))
	}
	if again := run(); strings.Count(again, "[status]") != 3 || !strings.Contains(again, loading+"\n"+tokenizer+"\n"+starting+"\n") {
		t.Errorf("second run's stderr:\n%s\nwant only %q, %q, %q", again, loading, tokenizer, starting)
	}
}
