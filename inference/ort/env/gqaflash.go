package env

import (
	"os"
	"sync"
)

// GQAFlashVar is the environment variable ONNX Runtime's CPU GroupQueryAttention reads when a
// session creates its kernels: "1" turns its flash (tiled, online-softmax) path off, for the
// plain one (the whole row of scores, then softmax, then the values).
const GQAFlashVar = "ORT_GQA_DISABLE_FLASH_ATTENTION"

var gqaFlashMu sync.Mutex

// WithoutGQAFlash runs create, a session's creation, with ONNX Runtime's GroupQueryAttention
// flash path off for that session's kernels: ONNX Runtime 1.30 reads GQAFlashVar in the
// kernel's constructor, so sessions created before or after keep theirs. For a quantized (int8
// or 4-bit) cache the plain path decodes faster (inference/ort/kvbench: ~0.8× the flash path's
// CPU time a call after 3,000 tokens); for a float32 cache it is slower, so only quantized
// copies ask for it. A value the user set stays as it is.
func WithoutGQAFlash(create func() error) error {
	gqaFlashMu.Lock()
	defer gqaFlashMu.Unlock()
	if _, set := os.LookupEnv(GQAFlashVar); set {
		return create()
	}
	if err := os.Setenv(GQAFlashVar, "1"); err != nil {
		return create()
	}
	defer os.Unsetenv(GQAFlashVar)
	return create()
}
