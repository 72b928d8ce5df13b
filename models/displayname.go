package models

import (
	"path/filepath"
	"strings"
)

// DisplayName names a model for people: by its folder ("qwen3-0.6b" for
// ~/models/qwen3-0.6b/onnx/model.onnx), or by its repository where the folder is a commit:
// "onnx-community/Qwen3-0.6B-ONNX" for a download (<models dir>/onnx-community--Qwen3-0.6B-ONNX/
// <commit>) or the Hugging Face cache's snapshot (models--ORG--NAME/snapshots/<commit>).
func DisplayName(path string) string {
	if path == "" {
		return ""
	}
	p := filepath.Clean(path)
	if strings.HasSuffix(strings.ToLower(p), ".onnx") {
		p = filepath.Dir(p)
	}
	if filepath.Base(p) == "onnx" {
		p = filepath.Dir(p)
	}
	name := filepath.Base(p)
	if !isCommit(name) {
		return name
	}
	repo := filepath.Dir(p)
	if filepath.Base(repo) == "snapshots" {
		repo = filepath.Dir(repo)
	}
	r := strings.TrimPrefix(filepath.Base(repo), "models--")
	if org, rest, ok := strings.Cut(r, "--"); ok && org != "" && rest != "" {
		return org + "/" + rest
	}
	return name
}

// isCommit reports whether s looks like a git commit id (7 to 40 lowercase hex digits).
func isCommit(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
