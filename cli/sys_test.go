package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/inference/ort/attnop"
	"edgechat/inference/ort/decoder"
	ortenv "edgechat/inference/ort/env"
	"edgechat/internal/testkit/testenv"
)

func runJSON(t *testing.T, args []string, v any) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Run(args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out.String())
	}
}

func TestSysJSON(t *testing.T) {
	var r sysReport
	runJSON(t, []string{"sys", "--json", "--ort-lib", testenv.ORTLibrary(t)}, &r)
	if r.ORTVersion != "1.30.0" || r.PhysicalCore < 1 {
		t.Fatalf("report %+v", r)
	}
	byName := map[string]bool{}
	for _, p := range r.Providers {
		byName[p.Name] = p.Appends
	}
	if !byName["CPU"] || byName["QNN"] {
		t.Fatalf("providers %+v: want CPU usable and QNN not (no QNN in this build)", r.Providers)
	}
}

// TestSysListsQNNRuntimes points --qnn-search at a folder holding a file named
// onnxruntime.dll that is no DLL: the report lists it with the reason it cannot be used.
func TestSysListsQNNRuntimes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my venv")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "onnxruntime.dll"), []byte("not a DLL"), 0o644); err != nil {
		t.Fatal(err)
	}
	var r sysReport
	runJSON(t, []string{"sys", "--json", "--ort-lib", testenv.ORTLibrary(t), "--qnn-search", dir}, &r)
	want := []ortenv.Candidate{{Path: filepath.Join(dir, "onnxruntime.dll"), Origin: "folder you named", Problem: "not a Windows DLL"}}
	if diff := cmp.Diff(want, r.QNNRuntimes); diff != "" {
		t.Errorf("qnn_runtimes (-want +got):\n%s", diff)
	}
}

func TestInspectJSON(t *testing.T) {
	model := writeTinyModel(t)
	var r map[string]any
	runJSON(t, []string{"inspect", "--model", model, "--json"}, &r)
	if r["layout_letter"] != "A" || r["layers"].(float64) != 2 || r["static"] != false {
		t.Fatalf("report %v", r)
	}
}

func TestBenchJSON(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	var r map[string]any
	runJSON(t, []string{"bench", "--model", model, "--ort-lib", lib, "--seq-len", "32", "--iterations", "3", "--warmup", "1", "--decode-tokens", "4", "--json", "--plot", t.TempDir() + "/h.png"}, &r)
	for _, k := range []string{"mean_ms", "std_ms", "p50_ms", "p95_ms", "samples_per_s", "ttft_ms", "decode_tokens_per_s"} {
		if v, ok := r[k].(float64); !ok || v <= 0 {
			t.Errorf("%s = %v", k, r[k])
		}
	}
}

// TestSysAttentionKernels: sys says whether CPU models run attention and int4 products on
// EdgeChat's kernels, and why not when either is turned off, and which KV cache the default
// setting keeps (per row on the attention kernels, else 32-bit and why).
func TestSysAttentionKernels(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	const row = "8-bit, a scale per row (EdgeChat's kernels)"
	for _, tc := range []struct{ attn, mm, kvrow, wantAttn, wantMM, wantKV string }{
		{"", "", "", "used", "used", row},
		{"off", "", "", "not used: turned off", "used", "32-bit: EdgeChat's attention kernels are not used: turned off"},
		{"", "off", "", "used", "not used: turned off", row},
		{"", "", "off", "used", "used", "32-bit: the per-row 8-bit cache is turned off"},
	} {
		t.Run("EDGECHAT_ATTN_KERNEL="+tc.attn+",EDGECHAT_MATMUL_KERNEL="+tc.mm+",EDGECHAT_KVROW="+tc.kvrow, func(t *testing.T) {
			t.Setenv(decoder.AttnKernelVar, tc.attn)
			t.Setenv(decoder.MatMulKernelVar, tc.mm)
			t.Setenv(decoder.KVRowVar, tc.kvrow)
			var r sysReport
			runJSON(t, []string{"sys", "--json", "--ort-lib", lib}, &r)
			if err := attnop.Available(); err != nil { // ONNX Runtime is loaded by now
				t.Skip(err)
			}
			if !strings.HasPrefix(r.AttnKernel, tc.wantAttn) || !strings.HasPrefix(r.MatMulKernel, tc.wantMM) || !strings.HasPrefix(r.KVCache, tc.wantKV) {
				t.Errorf("attention_kernels %q, matmul_kernel %q, kv_cache %q; want %q…, %q…, %q…", r.AttnKernel, r.MatMulKernel, r.KVCache, tc.wantAttn, tc.wantMM, tc.wantKV)
			}
		})
	}
}
