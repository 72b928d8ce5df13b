//go:build cgo && (amd64 || arm64) && windows

package attnop

import (
	"fmt"
	"syscall"
)

// apiBase finds OrtGetApiBase in the ONNX Runtime DLL at path, which onnxruntime_go has loaded:
// LoadLibrary returns that same module (adding a reference, kept: ONNX Runtime is never
// unloaded).
func apiBase(path string) (uintptr, error) {
	h, err := syscall.LoadLibrary(path)
	if err != nil {
		return 0, fmt.Errorf("open %s (loaded): %w", path, err)
	}
	p, err := syscall.GetProcAddress(h, "OrtGetApiBase")
	if err != nil {
		return 0, fmt.Errorf("find OrtGetApiBase in %s: %w", path, err)
	}
	return p, nil
}
