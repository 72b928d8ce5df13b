package models

import "testing"

func TestDisplayName(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "",
		"/m/qwen3-0.6b":                 "qwen3-0.6b",
		"/m/qwen3-0.6b/onnx/model.onnx": "qwen3-0.6b",
		"/m/onnx-community--Qwen3-0.6B-ONNX/0123456789abcdef0123456789abcdef01234567/onnx/model_q4.onnx": "onnx-community/Qwen3-0.6B-ONNX",
		"/hf/hub/models--Qwen--Qwen3-Embedding-0.6B/snapshots/0123456789abcdef0123456789abcdef01234567":  "Qwen/Qwen3-Embedding-0.6B",
		"/m/deadbeef1234": "deadbeef1234",
	} {
		if got := DisplayName(in); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", in, got, want)
		}
	}
}
