//go:build linux && amd64 && cgo

package main

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef char *(*kb_register_fn)(void *getBase, void *options, const char *path);

static char *call_register(void *f, void *getBase, void *options, const char *path) {
	return ((kb_register_fn)f)(getBase, options, path);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"path/filepath"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/env"
	"edgechat/onnx/proto"
)

// customOps registers the custom-operator library built by customop/build.sh on session
// options that onnxruntime_go made, which it does not offer to do itself.
type customOps struct {
	path                        string
	getBase, registerFn, config unsafe.Pointer
}

// dlsym opens lib (already loaded when noload) and finds sym in it.
func dlsym(lib, sym string, noload bool) (unsafe.Pointer, error) {
	cl, cs := C.CString(lib), C.CString(sym)
	defer C.free(unsafe.Pointer(cl))
	defer C.free(unsafe.Pointer(cs))
	flags := C.int(C.RTLD_NOW)
	if noload {
		flags |= C.RTLD_NOLOAD
	}
	h := C.dlopen(cl, flags)
	if h == nil {
		return nil, fmt.Errorf("dlopen %s: %s", lib, C.GoString(C.dlerror()))
	}
	p := C.dlsym(h, cs)
	if p == nil {
		return nil, fmt.Errorf("%s has no %s", lib, sym)
	}
	return p, nil
}

func loadCustomOps(path string) (*customOps, error) {
	info, ok := env.Loaded()
	if !ok {
		return nil, errors.New("ONNX Runtime is not loaded")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	c := &customOps{path: abs}
	// OrtGetApiBase of the library onnxruntime_go loaded (RTLD_LOCAL: not in the global scope).
	if c.getBase, err = dlsym(info.Path, "OrtGetApiBase", true); err != nil {
		return nil, err
	}
	if c.registerFn, err = dlsym(abs, "kb_register", false); err != nil {
		return nil, err
	}
	if c.config, err = dlsym(abs, "kb_config", false); err != nil {
		return nil, err
	}
	return c, nil
}

// optionsHandle is the OrtSessionOptions pointer inside onnxruntime_go's SessionOptions,
// whose only field it is (v1.27.0: `type SessionOptions struct { o *C.OrtSessionOptions }`).
// The package does not export it; this reads the unexported field, and register checks that
// the pointer is the options object by reading back an entry set through the package.
func optionsHandle(o *ort.SessionOptions) (unsafe.Pointer, error) {
	if unsafe.Sizeof(*o) != unsafe.Sizeof(uintptr(0)) {
		return nil, fmt.Errorf("onnxruntime_go's SessionOptions is %d bytes, not one pointer: its layout changed", unsafe.Sizeof(*o))
	}
	return *(*unsafe.Pointer)(unsafe.Pointer(o)), nil
}

// register adds the library's operators to o.
func (c *customOps) register(o *ort.SessionOptions) error {
	h, err := optionsHandle(o)
	if err != nil {
		return err
	}
	const key, want = "kernbench.probe", "options-handle-check"
	if err := o.AddSessionConfigEntry(key, want); err != nil {
		return err
	}
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	got := C.call_register(c.config, c.getBase, h, ck)
	if got == nil || C.GoString(got) != want {
		return errors.New("the pointer read from onnxruntime_go's SessionOptions is not its OrtSessionOptions")
	}
	C.free(unsafe.Pointer(got))
	cp := C.CString(c.path)
	defer C.free(unsafe.Pointer(cp))
	if msg := C.call_register(c.registerFn, c.getBase, h, cp); msg != nil {
		defer C.free(unsafe.Pointer(msg))
		return fmt.Errorf("RegisterCustomOpsLibrary_V2 %s: %s", c.path, C.GoString(msg))
	}
	return nil
}

// checkAffine runs a one-node graph of the trivial operator kernbench.Affine (2x+1).
func (c *customOps) checkAffine(dir string) error {
	m := &proto.Model{IRVersion: 10, Producer: "kernbench",
		Opsets: []proto.Opset{{Domain: "", Version: 21}, {Domain: "kernbench", Version: 1}},
		Graph: proto.Graph{Name: "affine",
			Nodes:   []proto.Node{{Name: "affine", OpType: "Affine", Domain: "kernbench", Inputs: []string{"X"}, Outputs: []string{"Y"}}},
			Inputs:  []proto.ValueInfo{{Name: "X", Type: proto.Float, Dims: proto.Dims(2, 3)}},
			Outputs: []proto.ValueInfo{{Name: "Y", Type: proto.Float, Dims: proto.Dims(2, 3)}}}}
	path := filepath.Join(dir, "affine.onnx")
	if err := m.WriteFile(path, proto.WriteOptions{}); err != nil {
		return err
	}
	x := []float32{0, 1, 2, -1, 0.5, 10}
	in, err := ort.NewTensor(ort.NewShape(2, 3), x)
	if err != nil {
		return err
	}
	defer in.Destroy()
	out, err := ort.NewEmptyTensor[float32](ort.NewShape(2, 3))
	if err != nil {
		return err
	}
	defer out.Destroy()
	o, err := ort.NewSessionOptions()
	if err != nil {
		return err
	}
	defer o.Destroy()
	if err := c.register(o); err != nil {
		return err
	}
	s, err := ort.NewAdvancedSession(path, []string{"X"}, []string{"Y"}, []ort.Value{in}, []ort.Value{out}, o)
	if err != nil {
		return err
	}
	defer s.Destroy()
	if err := s.Run(); err != nil {
		return err
	}
	for i, v := range out.GetData() {
		if v != 2*x[i]+1 {
			return fmt.Errorf("the Affine operator gave %v for %v", out.GetData(), x)
		}
	}
	fmt.Printf("custom operator kernbench.Affine from %s ran in an onnxruntime_go session: %v → %v\n", filepath.Base(c.path), x, out.GetData())
	return nil
}
