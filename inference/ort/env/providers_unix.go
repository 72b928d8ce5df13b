//go:build !windows

package env

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

// Slots of the OrtApi function table (checked against onnxruntime_c_api.h; the table only
// ever grows, so these stay valid).
enum { SLOT_GET_ERROR_MESSAGE = 2, SLOT_RELEASE_STATUS = 93, SLOT_GET_PROVIDERS = 125, SLOT_RELEASE_PROVIDERS = 126 };

typedef struct { const void* (*GetApi)(unsigned int); const char* (*GetVersionString)(void); } ec_api_base;
typedef const ec_api_base* (*ec_get_api_base)(void);
typedef void* (*ec_get_providers)(char***, int*);
typedef void* (*ec_release_providers)(char**, int);
typedef const char* (*ec_error_message)(const void*);
typedef void (*ec_release_status)(void*);

// ec_list_providers returns the providers joined by '\n' (malloc'd) or NULL with *err set.
static char* ec_list_providers(const char* path, unsigned int version, char** err) {
	void* h = dlopen(path, RTLD_LAZY);
	if (!h) { *err = strdup(dlerror()); return NULL; }
	ec_get_api_base gab = (ec_get_api_base)dlsym(h, "OrtGetApiBase");
	if (!gab) { *err = strdup("OrtGetApiBase not found"); return NULL; }
	void* const* api = (void* const*)gab()->GetApi(version);
	if (!api) { *err = strdup("this ONNX Runtime does not support the API version EdgeChat uses"); return NULL; }
	char** list = NULL; int n = 0;
	void* st = ((ec_get_providers)api[SLOT_GET_PROVIDERS])(&list, &n);
	if (st) {
		*err = strdup(((ec_error_message)api[SLOT_GET_ERROR_MESSAGE])(st));
		((ec_release_status)api[SLOT_RELEASE_STATUS])(st);
		return NULL;
	}
	size_t total = 1;
	for (int i = 0; i < n; i++) total += strlen(list[i]) + 1;
	char* out = calloc(total, 1);
	for (int i = 0; i < n; i++) { strcat(out, list[i]); if (i + 1 < n) strcat(out, "\n"); }
	st = ((ec_release_providers)api[SLOT_RELEASE_PROVIDERS])(list, n);
	if (st) ((ec_release_status)api[SLOT_RELEASE_STATUS])(st);
	return out;
}
*/
import "C"

import (
	"errors"
	"strings"
	"unsafe"
)

// listProviders calls GetAvailableProviders in the library at path.
func listProviders(path string) ([]string, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	out := C.ec_list_providers(cpath, C.uint(apiVersion), &cerr)
	if out == nil {
		defer C.free(unsafe.Pointer(cerr))
		return nil, errors.New(C.GoString(cerr))
	}
	defer C.free(unsafe.Pointer(out))
	s := C.GoString(out)
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}
