package models

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadInferenceModel(t *testing.T) {
	tests := []struct {
		name, file string
		want       *InferenceModel
		wantErr    string
	}{
		{"phi", `{"Name": "Phi-3.5-mini-instruct-qnn-npu:1", "PromptTemplate": {"system": "<|system|>\n{Content}<|end|>",
			"user": "<|user|>\n{Content}<|end|>", "assistant": "<|assistant|>\n{Content}<|end|>", "prompt": "<|user|>\n{Content}<|end|>\n<|assistant|>"}}`,
			&InferenceModel{Name: "Phi-3.5-mini-instruct-qnn-npu:1", PromptTemplate: &PromptTemplate{
				System: "<|system|>\n{Content}<|end|>", User: "<|user|>\n{Content}<|end|>",
				Assistant: "<|assistant|>\n{Content}<|end|>", Prompt: "<|user|>\n{Content}<|end|>\n<|assistant|>"}}, ""},
		{"null template", `{"Name": "qwen2.5-0.5b", "PromptTemplate": null}`, &InferenceModel{Name: "qwen2.5-0.5b"}, ""},
		{"optional entries null", `{"Name": "m", "PromptTemplate": {"system": null, "user": null, "assistant": "A{Content}", "prompt": "U{Content}A"}}`,
			&InferenceModel{Name: "m", PromptTemplate: &PromptTemplate{Assistant: "A{Content}", Prompt: "U{Content}A"}}, ""},
		{"no prompt", `{"Name": "m", "PromptTemplate": {"user": "{Content}"}}`, nil, `no "prompt" entry`},
		{"no placeholder", `{"Name": "m", "PromptTemplate": {"user": "<|user|>", "prompt": "{Content}"}}`, nil, `"user" entry "<|user|>" must hold {Content}`},
		{"broken", `{"Name": `, nil, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, InferenceModelFile), []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadInferenceModel(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one saying %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadInferenceModel (-want +got):\n%s", diff)
			}
		})
	}
	if m, err := ReadInferenceModel(t.TempDir()); m != nil || err != nil {
		t.Errorf("folder without the file: %v, %v; want nil, nil", m, err)
	}
}
