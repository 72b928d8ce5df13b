//go:build cgo && (amd64 || arm64) && (linux || windows)

// attnop.h: what the Go side calls (register.go).

#include <stdint.h>

// attnop_init asks the ONNX Runtime whose OrtGetApiBase is at getBase for the C API and creates
// the three operator domains (once a process). It returns NULL or an error message (to be freed).
char *attnop_init(uintptr_t getBase, const char *domain, const char *domainInt8, const char *domainRow);
// attnop_add adds the three domains to an OrtSessionOptions; NULL or an error message.
char *attnop_add(void *options);
// attnop_config reads a session config entry back from options (NULL when absent).
char *attnop_config(void *options, const char *key);
// attnop_select (kernel.h): the CPU's loops, 3 AVX-512 VNNI, 2 AVX-512, 1 AVX2 + FMA, 0 none;
// most > 0 caps the choice.
int attnop_select(int most);
// q4_select (q4avx512.c) picks the int4 product's loops for attnop_select's choice isa: AVX-512
// needs its BW, DQ and VNNI parts too, else AVX2's loops run (with AVX-VNNI where the CPU has
// it). It returns 2 (AVX-512), 1 (AVX2) or 0 (none).
int q4_select(int isa);
// q4_use picks loops by name for the tests: 2 AVX-512 VNNI, 1 AVX-VNNI, 0 AVX2 maddubs. It
// returns 0 when the CPU cannot run them (nothing changes then).
int q4_use(int which);
