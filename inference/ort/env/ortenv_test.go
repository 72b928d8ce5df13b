package env

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/testkit/testenv"
)

func TestLocateOrder(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "custom.so")
	if err := os.WriteFile(lib, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvVar, "")
	if p, src, err := Locate(lib); err != nil || p != lib || src != FromSetting {
		t.Fatalf("setting: got %q %q %v", p, src, err)
	}
	t.Setenv(EnvVar, lib)
	if p, src, err := Locate(""); err != nil || p != lib || src != FromEnv {
		t.Fatalf("env: got %q %q %v", p, src, err)
	}
	if _, _, err := Locate(filepath.Join(dir, "missing.so")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing setting: got %v", err)
	}
	if _, _, err := Locate(dir); err == nil || !strings.Contains(err.Error(), "has no") {
		t.Fatalf("folder without library: got %v", err)
	}
}

func TestInitLoadsRealLibrary(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	info, err := Init(lib)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != "1.30.0" {
		t.Fatalf("version %q, want 1.30.0", info.Version)
	}
	if again, err := Init(""); err != nil || again.Path != info.Path {
		t.Fatalf("second Init: %+v %v", again, err)
	}
}

func TestProvidersListsCPU(t *testing.T) {
	if _, err := Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	ps, err := Providers()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range ps {
		found = found || p == "CPUExecutionProvider"
	}
	if !found {
		t.Fatalf("providers %v lack CPUExecutionProvider", ps)
	}
	// Linux builds say QNN is "not supported in this build"; Windows builds try to load
	// onnxruntime_providers_qnn.dll and "Failed to load provider QNN".
	if err := CheckProvider("QNN", nil); err == nil || !strings.Contains(err.Error(), "not supported in this build") && !strings.Contains(err.Error(), "Failed to load provider QNN") {
		t.Fatalf("QNN check: %v", err)
	}
}
