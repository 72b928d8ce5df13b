package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/paths"
	"edgechat/onnx/optimize"
)

// inspect says when a graph runs as published because its optimized copy did not load.
func TestInspectSaysCopyNotUsed(t *testing.T) {
	model := writeTinyModel(t) // with the installed tokenizer, before the cache moves
	t.Setenv("EDGECHAT_CACHE", t.TempDir())
	inspect := func() string {
		var out, errb bytes.Buffer
		if code := Run([]string{"inspect", "--model", model}, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return out.String()
	}
	if s := inspect(); strings.Contains(s, "runs as published") {
		t.Fatalf("a note without a recorded fallback:\n%s", s)
	}
	reason := "Load model failed: two nodes with same node name (x)"
	if err := optimize.RecordFallback(filepath.Join(model, "onnx", "model.onnx"), paths.GraphCacheDir(), reason); err != nil {
		t.Fatal(err)
	}
	if s := inspect(); !strings.Contains(s, "optimized copy of model.onnx did not load, so the graph runs as published ("+reason+")") {
		t.Fatalf("inspect does not say the copy is not used:\n%s", s)
	}
}
