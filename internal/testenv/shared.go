package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// SharedModel returns the folder of a real model kept beside the repository's main checkout
// (shared/models/NAME, e.g. "stories260K"), or under $EDGECHAT_SHARED_MODELS.
func SharedModel(t testing.TB, name string) string {
	t.Helper()
	root := os.Getenv("EDGECHAT_SHARED_MODELS")
	if root == "" {
		out, err := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
		if err == nil {
			root = filepath.Join(filepath.Dir(filepath.Dir(strings.TrimSpace(string(out)))), "shared", "models")
		}
	}
	d := filepath.Join(root, name)
	if _, err := os.Stat(filepath.Join(d, "config.json")); err != nil {
		missing(t, "shared model "+name+" ("+d+"; set EDGECHAT_SHARED_MODELS)")
	}
	return d
}
