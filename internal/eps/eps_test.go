package eps

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookupAndLabels(t *testing.T) {
	for _, tc := range []struct{ name, label, ort string }{
		{"", "CPU", "CPU"}, {"cpu", "CPU", "CPU"}, {"QNN", "QNN", "QNN"}, {"dml", "DirectML", "DML"}, {"webgpu", "WebGPU", "WebGPU"},
	} {
		p, ok := Lookup(tc.name)
		if !ok || p.Label != tc.label || p.ORT != tc.ort || Label(tc.name) != tc.label {
			t.Errorf("Lookup(%q) = %+v, %v", tc.name, p, ok)
		}
	}
	if _, ok := Lookup("cuda"); ok || Label("cuda") != "cuda" {
		t.Error("an unknown provider was found")
	}
	if diff := cmp.Diff([]string{"cpu", "qnn", "dml", "webgpu"}, Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}

func TestWithDefaults(t *testing.T) {
	got := WithDefaults("qnn", map[string]string{"htp_performance_mode": "sustained_high_performance", "soc_model": "60"})
	want := map[string]string{"backend_path": "QnnHtp.dll", "htp_performance_mode": "sustained_high_performance", "soc_model": "60"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := WithDefaults("cpu", nil); len(got) != 0 {
		t.Errorf("cpu defaults %v", got)
	}
	if got := FormatOptions(All[1].Defaults); got != "backend_path=QnnHtp.dll, htp_performance_mode=burst" {
		t.Errorf("FormatOptions = %q", got)
	}
}
