//go:build cgo && (amd64 || arm64) && linux

package attnop

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

static uintptr_t attnop_dlsym(const char *lib, const char *sym, char **err) {
	void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
	if (!h) {
		*err = dlerror();
		return 0;
	}
	void *p = dlsym(h, sym);
	if (!p)
		*err = dlerror();
	dlclose(h); // the reference RTLD_NOLOAD took; onnxruntime_go's stays
	return (uintptr_t)p;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// apiBase finds OrtGetApiBase in the ONNX Runtime library at path, which onnxruntime_go has
// loaded (RTLD_LOCAL, so not in the global scope): RTLD_NOLOAD gives that same library, never a
// second copy.
func apiBase(path string) (uintptr, error) {
	cp, cs := C.CString(path), C.CString("OrtGetApiBase")
	defer C.free(unsafe.Pointer(cp))
	defer C.free(unsafe.Pointer(cs))
	var msg *C.char
	p := C.attnop_dlsym(cp, cs, &msg)
	if p == 0 {
		return 0, fmt.Errorf("find OrtGetApiBase in %s (loaded): %s", path, C.GoString(msg))
	}
	return uintptr(p), nil
}
