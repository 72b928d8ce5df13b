//go:build cgo && (amd64 || arm64) && (linux || windows)

package attnop

/*
#cgo CFLAGS: -O3
#cgo linux LDFLAGS: -lm
#include <stdlib.h>
#include "attnop.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/env"
)

const haveKernels = true

var (
	mu      sync.Mutex
	initErr error // the first initialisation's outcome, once ONNX Runtime was loaded
	inited  bool
	// isa is the loops the attention runs (isa_amd64.go, isa_arm64.go say which); 0 none.
	isa = selectISA(0)
)

// Available returns nil when this build carries the kernels, the CPU can run them and the loaded
// ONNX Runtime offers the API they need; otherwise an error saying why (for logs and `sys`).
func Available() error {
	mu.Lock()
	defer mu.Unlock()
	return initLocked()
}

// initLocked creates the operators' domains once ONNX Runtime is loaded (mu held).
func initLocked() error {
	if isa == 0 {
		return errors.New(noISA)
	}
	if inited {
		return initErr
	}
	info, ok := env.Loaded()
	if !ok {
		return errors.New("ONNX Runtime is not loaded yet; EdgeChat's attention kernels register once it is")
	}
	inited = true
	getBase, err := APIBase()
	if err == nil {
		d, d8, dr := C.CString(Domain), C.CString(DomainInt8), C.CString(DomainRow)
		defer C.free(unsafe.Pointer(d))
		defer C.free(unsafe.Pointer(d8))
		defer C.free(unsafe.Pointer(dr))
		err = cError(C.attnop_init(C.uintptr_t(getBase), d, d8, dr))
	}
	if err != nil {
		initErr = fmt.Errorf("EdgeChat's attention kernels cannot use %s: %w; ONNX Runtime's attention is used", info.Path, err)
	}
	return initErr
}

// Register adds the three operator domains to opts (an onnxruntime_go *ort.SessionOptions). The
// domains are made once a process and outlive every options object and session.
func Register(opts *ort.SessionOptions) error {
	h, err := OptionsHandle(opts) // the domains are made first
	if err != nil {
		return err
	}
	return cError(C.attnop_add(h))
}

// APIBase is the address of OrtGetApiBase in the ONNX Runtime library onnxruntime_go loaded,
// for Register and for tools that register other custom operators (kernbench's library).
func APIBase() (uintptr, error) {
	info, ok := env.Loaded()
	if !ok {
		return 0, errors.New("ONNX Runtime is not loaded")
	}
	return apiBase(info.Path)
}

// OptionsHandle is the OrtSessionOptions pointer inside onnxruntime_go's SessionOptions, which
// the package does not export: its only field (v1.27.0: `type SessionOptions struct { o
// *C.OrtSessionOptions }`), read here, the one unsafe read of another package's internals. It
// checks the struct is one pointer wide and that the pointer is the options object by reading
// back, through ONNX Runtime, a config entry set through onnxruntime_go. Register uses it, and
// so do tools that register other custom operators (kernbench's library); it needs what
// Available needs.
func OptionsHandle(o *ort.SessionOptions) (unsafe.Pointer, error) {
	mu.Lock()
	err := initLocked()
	mu.Unlock()
	if err != nil {
		return nil, err
	}
	if o == nil {
		return nil, errors.New("no session options")
	}
	if unsafe.Sizeof(*o) != unsafe.Sizeof(uintptr(0)) {
		return nil, fmt.Errorf("onnxruntime_go's SessionOptions is %d bytes, not one pointer: its layout changed, so EdgeChat's attention kernels cannot be registered", unsafe.Sizeof(*o))
	}
	h := *(*unsafe.Pointer)(unsafe.Pointer(o))
	const key, want = "edgechat.attnop.options", "checked"
	if err := o.AddSessionConfigEntry(key, want); err != nil {
		return nil, fmt.Errorf("set a session config entry: %w", err)
	}
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	got := C.attnop_config(h, ck)
	if got == nil || C.GoString(got) != want {
		C.free(unsafe.Pointer(got))
		return nil, errors.New("the pointer read from onnxruntime_go's SessionOptions is not its OrtSessionOptions (its layout changed)")
	}
	C.free(unsafe.Pointer(got))
	return h, nil
}

// cError turns a C error message (freed here) into an error.
func cError(msg *C.char) error {
	if msg == nil {
		return nil
	}
	defer C.free(unsafe.Pointer(msg))
	return errors.New(C.GoString(msg))
}
