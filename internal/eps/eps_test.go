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

func TestSaverOptions(t *testing.T) {
	for _, tc := range []struct {
		name, ep, htp string
		opts, want    map[string]string
	}{
		{"CPU: no spinning", "cpu", "", map[string]string{SpinKey: "1", "session.disable_prepacking": "1"},
			map[string]string{SpinKey: "0", "session.disable_prepacking": "1"}},
		{"QNN: burst becomes balanced", "qnn", "", WithDefaults("qnn", nil),
			map[string]string{"backend_path": "QnnHtp.dll", HTPModeKey: "balanced", SpinKey: "0"}},
		{"QNN: the user's battery choice", "QNN", "power_saver", map[string]string{HTPModeKey: "high_performance", "soc_model": "60"},
			map[string]string{HTPModeKey: "power_saver", "soc_model": "60", SpinKey: "0"}},
		{"DirectML keeps its options", "dml", "power_saver", map[string]string{"device_id": "1"},
			map[string]string{"device_id": "1", SpinKey: "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Merge(tc.opts, nil)
			if diff := cmp.Diff(tc.want, SaverOptions(tc.ep, tc.opts, tc.htp)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(in, tc.opts); diff != "" {
				t.Errorf("the route's own options changed (-before +after):\n%s", diff)
			}
		})
	}
	for _, m := range PowerModes {
		if PowerModeLabel(m) == m {
			t.Errorf("power mode %q has no label", m)
		}
	}
}
