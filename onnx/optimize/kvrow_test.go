package optimize_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// TestQuantizeKVRow: a kernel copy's attention moves to the per-row domain (imported), its
// past and present tensors become int8 rows of head size + KVRowExtra, the copy says per_row;
// a copy without kernel attention, or with a quantized cache, is refused; CachedKVRow writes
// the copy once and keys it by the domain.
func TestQuantizeKVRow(t *testing.T) {
	copied, _, err := optimize.Rewrite(gqaModel(t, 128, 16, 8, proto.Float, nil), optimize.Options{AttentionKernel: kernelTest})
	if err != nil {
		t.Fatal(err)
	}
	q, err := optimize.QuantizeKVRow(copied, "test.kvrow")
	if err != nil {
		t.Fatal(err)
	}
	domain, imports, _ := attentionAt(t, q)
	if domain != "test.kvrow" || !slices.Contains(imports, "test.kvrow") {
		t.Errorf("attention in %q, imports %v: want test.kvrow, imported", domain, imports)
	}
	info, err := proto.Parse(bytes.NewReader(q), int64(len(q)))
	if err != nil {
		t.Fatal(err)
	}
	if m := info.Metadata[optimize.MetaKVInt8]; m != optimize.MetaKVRow {
		t.Errorf("%s = %q, want %q", optimize.MetaKVInt8, m, optimize.MetaKVRow)
	}
	for _, name := range []string{"past_key", "past_value", "present_key", "present_value"} {
		v, ok := info.Input(name)
		if !ok {
			v, ok = info.Output(name)
		}
		if !ok || v.ElemType != "int8" || len(v.Dims) != 4 || v.Dims[3].Value != 128+optimize.KVRowExtra || v.Dims[1].Value != 8 {
			t.Errorf("%s: %+v, want int8 [1, 8, t, 132]", name, v)
		}
	}
	if v, _ := info.Input("q"); v.ElemType != "float32" || v.Dims[2].Value != 16*128 {
		t.Errorf("q changed: %+v", v)
	}

	for _, tc := range []struct {
		name string
		src  []byte
		want string
	}{
		{"ONNX Runtime's attention", gqaModel(t, 128, 16, 8, proto.Float, nil), "EdgeChat's kernels"},
		{"already per row", q, "already per_row"},
	} {
		if _, err := optimize.QuantizeKVRow(tc.src, "test.kvrow"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}

	dir := t.TempDir()
	src := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(src, copied, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := optimize.CachedKVRow(src, filepath.Join(dir, "cache"), "test.kvrow")
	if err != nil {
		t.Fatal(err)
	}
	b, err := optimize.CachedKVRow(src, filepath.Join(dir, "cache"), "test.kvrow")
	c, err2 := optimize.CachedKVRow(src, filepath.Join(dir, "cache"), "other.kvrow")
	if err != nil || err2 != nil || a != b || a == c {
		t.Errorf("copies %s, %s (%v), other domain %s (%v): want the same path twice, another for another domain", a, b, err, c, err2)
	}
	if got, err := os.ReadFile(a); err != nil || !bytes.Equal(got, q) {
		t.Errorf("the cached copy is not QuantizeKVRow's (%v)", err)
	}
}
