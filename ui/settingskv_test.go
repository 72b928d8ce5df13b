package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"edgechat/config"
)

// The KV cache picker on a real settings file: a file from before kv_cache with kv_int8: true
// shows 8-bit, picking 32-bit and saving writes kv_cache: 32-bit without kv_int8 and keeps the
// other settings, and the pane over the file reopened shows 32-bit; a file without either
// shows Automatic; a value the pane does not know selects nothing and says why.
func TestSettingsViewKVCache(t *testing.T) {
	test.NewTempApp(t)
	label := func(value string) string {
		for _, c := range kvCacheChoices {
			if c.value == value {
				return c.label
			}
		}
		t.Fatalf("no choice for %q", value)
		return ""
	}
	model := modelDir(t)
	open := func(file string) (*config.Store, *SettingsVM, *SettingsView) {
		t.Helper()
		st, err := config.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		vm := NewSettingsVM(st, nil)
		v := NewSettingsView(vm, test.NewTempWindow(t, nil), func() {})
		return st, vm, v
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.yaml")
	if err := os.WriteFile(file, []byte("kv_int8: true\ntheme: dark\ncpu:\n  model: "+model+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, vm, v := open(file)
	if got := v.KVCache.Selected; got != label(config.KVCache8) {
		t.Errorf("kv_int8: true shows %q, want %q", got, label(config.KVCache8))
	}
	if vm.Dirty() {
		t.Error("the pane is dirty before any edit")
	}
	v.KVCache.SetSelected(label(config.KVCache32))
	if got := get[string](vm.Fields["kv_cache"]); got != config.KVCache32 || !vm.Dirty() {
		t.Errorf("after picking 32-bit: kv_cache %q, dirty %v", got, vm.Dirty())
	}
	if err := vm.Save(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if s := string(data); !strings.Contains(s, "kv_cache: 32-bit\n") || strings.Contains(s, "kv_int8") || !strings.Contains(s, "theme: dark\n") {
		t.Errorf("saved file:\n%s", s)
	}
	st, _, v := open(file)
	if got := v.KVCache.Selected; got != label(config.KVCache32) || st.Settings().KVCache != config.KVCache32 {
		t.Errorf("reopened: shows %q, settings say %q; want 32-bit", got, st.Settings().KVCache)
	}

	_, vm, v = open(filepath.Join(t.TempDir(), "settings.yaml"))
	if got := v.KVCache.Selected; got != label(config.KVCacheAuto) {
		t.Errorf("no file shows %q, want %q", got, label(config.KVCacheAuto))
	}
	_ = vm.Fields["kv_cache"].Set("4-bit")
	if got := v.KVCache.Selected; got != "" || !strings.Contains(get[string](vm.Errors["kv_cache"]), "KV cache must be one of") {
		t.Errorf("kv_cache 4-bit: shows %q, error %q", got, get[string](vm.Errors["kv_cache"]))
	}
	v.KVCache.SetSelected(label(config.KVCache8))
	if got := get[string](vm.Fields["kv_cache"]); got != config.KVCache8 || get[string](vm.Errors["kv_cache"]) != "" {
		t.Errorf("after picking 8-bit: kv_cache %q, error %q", got, get[string](vm.Errors["kv_cache"]))
	}
}
