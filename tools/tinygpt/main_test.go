package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run([]string{"--out", dir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "4 layers, hidden 16, 8 heads, 445 words, 22 positions") {
		t.Errorf("output %q", out.String())
	}
	for _, f := range []string{"onnx/model.onnx", "config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	bad := filepath.Join(t.TempDir(), "gpt_model.cpp")
	if err := os.WriteFile(bad, []byte("int main() {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage: tinygpt --out DIR"},
		{[]string{"--out", dir, "--source", bad}, "--source and --header go together"},
		{[]string{"--out", dir, "--source", bad, "--header", bad}, "reading the checkpoint: the header does not define"},
		{[]string{"--out", dir, "--source", bad, "--header", filepath.Join(dir, "missing.h")}, "missing.h"},
	} {
		if err := run(tc.args, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
