package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The file is checked at start as the settings pane checks it: out-of-range values give way
// to their defaults with a warning that names the value, and a section where a value belongs
// is reported as such (not as an unknown setting).
func TestOpenChecksValues(t *testing.T) {
	tests := []struct {
		name, file string
		edit       func(*Settings) // from the defaults
		warnings   []string        // each with the file's path in front
	}{
		{"top_p out of range", "top_p: 7\ntop_k: 5\n", func(s *Settings) { s.TopK = 5 },
			[]string{"top_p is 7, but top-p must be more than 0 and at most 1; using the default, 0.95, instead"}},
		{"negative top_k", "top_k: -5\n", nil,
			[]string{"top_k is -5, but top-k must be 0 (off) or more; using the default, 20, instead"}},
		{"theme number", "theme: 7\n", nil,
			[]string{"theme is 7, but theme must be one of system, light, dark; using the default, system, instead"}},
		{"kv_cache unknown", "kv_cache: 4-bit\ntop_k: 5\n", func(s *Settings) { s.TopK = 5 },
			[]string{"kv_cache is 4-bit, but KV cache must be one of auto, 32-bit, 8-bit; using the default, auto, instead"}},
		{"max_tokens huge", "max_tokens: 2147483647\n", nil,
			[]string{"max_tokens is 2147483647, but max tokens must be between 1 and 32768; using the default, 1024, instead"}},
		{"unknown ep", "cpu:\n  ep: warp\n", nil,
			[]string{`cpu.ep is warp, but unknown accelerator "warp" (ONNX Runtime execution provider): choose one of cpu, qnn, dml, webgpu; using the default, cpu, instead`}},
		{"repetition_penalty section", "repetition_penalty: {a: 1}\ntemperature: 0.2\n", func(s *Settings) { s.Temperature = 0.2 },
			[]string{"repetition_penalty should be a number, not a section of settings; using the default instead"}},
		{"section with two keys, reported once", "top_k:\n  a: 1\n  b: 2\n", nil,
			[]string{"top_k should be a whole number, not a section of settings; using the default instead"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "settings.yaml")
			writeFile(t, file, tt.file)
			s := mustOpen(t, file)
			want := Defaults()
			if tt.edit != nil {
				tt.edit(&want)
			}
			if diff := cmp.Diff(want, s.Settings()); diff != "" {
				t.Errorf("Settings() (-want +got):\n%s", diff)
			}
			var got []string
			for _, w := range s.Warnings() {
				got = append(got, strings.TrimPrefix(w, file+": "))
			}
			if diff := cmp.Diff(tt.warnings, got); diff != "" {
				t.Errorf("Warnings() (-want +got):\n%s", diff)
			}
		})
	}
}

// An out-of-range environment override gives way too, and the warning names the variable.
func TestOpenChecksEnvValues(t *testing.T) {
	t.Setenv("EDGECHAT_TOP_P", "7")
	s := mustOpen(t, filepath.Join(t.TempDir(), "settings.yaml"))
	if got := s.Settings().TopP; got != Defaults().TopP {
		t.Errorf("top_p = %v, want the default", got)
	}
	if w := s.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], "EDGECHAT_TOP_P: top_p is 7") {
		t.Errorf("Warnings() = %q", w)
	}
}
