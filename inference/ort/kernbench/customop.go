//go:build linux && amd64 && cgo

package main

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

typedef char *(*kb_register_fn)(void *getBase, void *options, const char *path);

static char *call_register(void *f, uintptr_t getBase, void *options, const char *path) {
	return ((kb_register_fn)f)((void *)getBase, options, path);
}
*/
import "C"

import (
	"fmt"
	"path/filepath"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/attnop"
	"edgechat/onnx/proto"
)

// customOps registers the custom-operator library built by customop/build.sh on session
// options that onnxruntime_go made, which it does not offer to do itself.
type customOps struct {
	path       string
	getBase    uintptr // OrtGetApiBase of the library onnxruntime_go loaded
	registerFn unsafe.Pointer
}

// dlsym opens lib and finds sym in it.
func dlsym(lib, sym string) (unsafe.Pointer, error) {
	cl, cs := C.CString(lib), C.CString(sym)
	defer C.free(unsafe.Pointer(cl))
	defer C.free(unsafe.Pointer(cs))
	h := C.dlopen(cl, C.RTLD_NOW)
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
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	c := &customOps{path: abs}
	if c.getBase, err = attnop.APIBase(); err != nil { // errs before ONNX Runtime is loaded
		return nil, err
	}
	if c.registerFn, err = dlsym(abs, "kb_register"); err != nil {
		return nil, err
	}
	return c, nil
}

// register adds the library's operators to o.
func (c *customOps) register(o *ort.SessionOptions) error {
	h, err := attnop.OptionsHandle(o)
	if err != nil {
		return err
	}
	cp := C.CString(c.path)
	defer C.free(unsafe.Pointer(cp))
	if msg := C.call_register(c.registerFn, C.uintptr_t(c.getBase), h, cp); msg != nil {
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
