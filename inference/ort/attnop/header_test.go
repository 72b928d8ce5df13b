//go:build cgo && (amd64 || arm64) && (linux || windows)

package attnop

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// headerNames are what ortapi.h declares by hand: the OrtApi entries (their index in the table),
// OrtCustomOp's fields (their offset) and the enum values.
var (
	headerEntries = []string{"CreateStatus", "GetErrorMessage", "CreateCustomOpDomain", "CustomOpDomain_Add",
		"AddCustomOpDomain", "GetTensorMutableData", "GetDimensionsCount", "GetDimensions", "GetTensorTypeAndShape",
		"KernelInfoGetAttribute_float", "KernelInfoGetAttribute_int64", "KernelContext_GetInputCount",
		"KernelContext_GetInput", "KernelContext_GetOutput", "ReleaseStatus", "ReleaseTensorTypeAndShapeInfo",
		"GetSessionConfigEntry", "KernelContext_ParallelFor"}
	headerFields = []string{"version", "CreateKernel", "GetName", "GetExecutionProviderType", "GetInputType",
		"GetInputTypeCount", "GetOutputType", "GetOutputTypeCount", "KernelCompute", "KernelDestroy",
		"GetInputCharacteristic", "GetOutputCharacteristic", "GetInputMemoryType", "GetVariadicInputMinArity",
		"GetVariadicInputHomogeneity", "GetVariadicOutputMinArity", "GetVariadicOutputHomogeneity", "CreateKernelV2",
		"KernelComputeV2", "InferOutputShapeFn", "GetStartVersion", "GetEndVersion"}
	headerEnums = []string{"ORT_OK", "ORT_FAIL", "ORT_INVALID_ARGUMENT", "ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT", "ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8",
		"ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8", "ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32", "INPUT_OUTPUT_REQUIRED",
		"INPUT_OUTPUT_OPTIONAL", "OrtMemTypeDefault"}
)

// headerProgram is a C program printing the indices, offsets and values of headerNames as the
// header it includes has them; entry(name) is how it names the entry's index.
func headerProgram(include string, entry func(string) string) string {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <stddef.h>\n#include \"" + include + "\"\nint main(void) {\n")
	for _, e := range headerEntries {
		b.WriteString("\tprintf(\"OrtApi." + e + " %zu\\n\", (size_t)(" + entry(e) + "));\n")
	}
	for _, f := range headerFields {
		b.WriteString("\tprintf(\"OrtCustomOp." + f + " %zu\\n\", offsetof(OrtCustomOp, " + f + "));\n")
	}
	for _, e := range headerEnums {
		b.WriteString("\tprintf(\"" + e + " %d\\n\", (int)" + e + ");\n")
	}
	b.WriteString("\treturn 0;\n}\n")
	return b.String()
}

// realHeader finds onnxruntime_c_api.h in the module cache: onnxruntime_go's copy.
func realHeader(t *testing.T) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/yalue/onnxruntime_go").Output()
	if err != nil {
		t.Skipf("cannot find onnxruntime_go's folder (go list -m: %v): the real header is not at hand", err)
	}
	h := filepath.Join(strings.TrimSpace(string(out)), "onnxruntime_c_api.h")
	if _, err := os.Stat(h); err != nil {
		t.Skipf("onnxruntime_go's folder has no onnxruntime_c_api.h (%v)", err)
	}
	return h
}

// runC compiles src with gcc (include folders incs) and returns what it prints.
func runC(t *testing.T, name, src string, incs ...string) string {
	t.Helper()
	dir := t.TempDir()
	c, bin := filepath.Join(dir, name+".c"), filepath.Join(dir, name)
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-o", bin, c}
	for _, i := range incs {
		args = append(args, "-I", i)
	}
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", name, err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return string(out)
}

// TestHeaderMatchesONNXRuntime checks ortapi.h's hand-written indices, offsets and enum values
// against ONNX Runtime's own header (onnxruntime_go's copy), compiled by gcc.
func TestHeaderMatchesONNXRuntime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the check compiles and runs C programs with the host's gcc (Linux)")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: cannot compile the header check")
	}
	real := realHeader(t)
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	want := runC(t, "real", headerProgram("onnxruntime_c_api.h", func(e string) string {
		return "offsetof(OrtApi, " + e + ") / sizeof(void *)"
	}), filepath.Dir(real))
	got := runC(t, "ours", headerProgram("ortapi.h", func(e string) string { return "ORTAPI_" + e }), here)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ortapi.h differs from %s (-real +ortapi.h):\n%s", real, diff)
	}
}

// TestChunkVarMatchesOp checks that op.c reads the variable DecodeChunkVar names: the chunked
// cases of TestRowAgainstDequantizedCache set it, and under another name they would run
// unchunked and still pass, the chunks' merge untested.
func TestChunkVarMatchesOp(t *testing.T) {
	src, err := os.ReadFile("op.c")
	if err != nil {
		t.Fatal(err)
	}
	if want := `#define CHUNKVAR "` + DecodeChunkVar + `"`; !strings.Contains(string(src), want) {
		t.Fatalf("op.c does not define %s", want)
	}
}
