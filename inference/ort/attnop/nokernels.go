//go:build !(cgo && (amd64 || arm64) && (linux || windows))

package attnop

import (
	"errors"

	ort "github.com/yalue/onnxruntime_go"
)

const haveKernels = false

var errNoKernels = errors.New("this build of EdgeChat has no attention kernels of its own (they are built for amd64 and arm64 Linux and Windows with cgo); ONNX Runtime's attention is used")

// Available returns why the kernels cannot be used: this build has none.
func Available() error { return errNoKernels }

// Register returns Available's error: this build has no kernels to register.
func Register(opts *ort.SessionOptions) error { return errNoKernels }

const haveMatMul = false
