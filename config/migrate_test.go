package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A file from before kv_cache: kv_int8: true reads as the 8-bit cache, false or a bad value as
// the default (auto), a kv_cache beside it wins; no warning about an unknown key, the other
// settings kept, and the first Save writes kv_cache without kv_int8.
func TestMigrateKVInt8(t *testing.T) {
	tests := []struct {
		name, file string
		want       string // Settings.KVCache
		saved      string // kv_cache's line after Save; "" = none
	}{
		{"on", "kv_int8: true\n", KVCache8, "kv_cache: 8-bit"},
		{"on as text", "kv_int8: \"TRUE\"\n", KVCache8, "kv_cache: 8-bit"},
		{"off", "kv_int8: false\n", KVCacheAuto, "kv_cache: auto"},
		{"bad", "kv_int8: maybe\n", KVCacheAuto, "kv_cache: auto"},
		{"kv_cache wins", "kv_int8: true\nkv_cache: 32-bit\n", KVCache32, "kv_cache: 32-bit"},
		{"kv_cache alone", "kv_cache: 8-bit\n", KVCache8, "kv_cache: 8-bit"},
		{"neither", "", KVCacheAuto, "kv_cache: auto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "settings.yaml")
			writeFile(t, file, tt.file+"top_k: 7\ntheme: dark\nfuture_option: keep me\n")
			s := mustOpen(t, file)
			want := Defaults()
			want.KVCache, want.TopK, want.Theme = tt.want, 7, "dark"
			if diff := cmp.Diff(want, s.Settings()); diff != "" {
				t.Errorf("Settings() (-want +got):\n%s", diff)
			}
			wantWarn := []string{file + `: unknown setting "future_option" is ignored (kept in the file)`}
			if diff := cmp.Diff(wantWarn, s.Warnings()); diff != "" {
				t.Errorf("Warnings() (-want +got):\n%s", diff)
			}
			if err := s.Save(s.Settings()); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(file)
			data := string(b)
			for _, line := range []string{tt.saved, "top_k: 7", "theme: dark", "future_option: keep me"} {
				if !strings.Contains(data, line+"\n") {
					t.Errorf("saved file lacks %q:\n%s", line, data)
				}
			}
			if strings.Contains(data, "kv_int8") {
				t.Errorf("saved file keeps kv_int8:\n%s", data)
			}
			if got := mustOpen(t, file).Settings().KVCache; got != tt.want {
				t.Errorf("reopened: kv_cache %q, want %q", got, tt.want)
			}
		})
	}
}
