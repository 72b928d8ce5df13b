package optimize

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A fallback record says that ONNX Runtime refused the optimized copy of a graph (or the copy
// failed its check) while the graph as published ran: later loads go straight to the
// published graph, and `inspect` says so. The record is keyed by the graph's path, size and
// modification time and the rewrites' version, so an edited graph, or a newer EdgeChat whose
// rewrites may have been mended, tries again.

// RecordFallback notes in cacheDir why the optimized copy of the graph at path is not used.
func RecordFallback(path, cacheDir, reason string) error {
	p, err := fallbackPath(path, cacheDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(strings.TrimSpace(reason)+"\n"), 0o644)
}

// Fallback returns why the optimized copy of the graph at path is not used, if a fallback was
// recorded in cacheDir.
func Fallback(path, cacheDir string) (reason string, ok bool) {
	p, err := fallbackPath(path, cacheDir)
	if err != nil {
		return "", false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

func fallbackPath(path, cacheDir string) (string, error) {
	if cacheDir == "" {
		return "", fmt.Errorf("no cache folder")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%d\x00%d", abs, st.Size(), st.ModTime().UnixNano(), rewriteVersion))
	return filepath.Join(cacheDir, "optimized", "published", hex.EncodeToString(h[:8])+".txt"), nil
}
