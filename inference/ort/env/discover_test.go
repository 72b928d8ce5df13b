package env

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/paths"
)

// fakeDLL returns a minimal PE32+ DLL for machine whose .rsrc section holds a
// VS_FIXEDFILEINFO with file version major.minor.patch.0 (no version when major is 0).
func fakeDLL(machine uint16, major, minor, patch uint16) []byte {
	var rsrc bytes.Buffer
	rsrc.Write(make([]byte, 40)) // stands for the resource directory and VS_VERSIONINFO header
	if major != 0 {
		for _, v := range []uint32{fixedInfoSig, 0x10000, uint32(major)<<16 | uint32(minor), uint32(patch) << 16, 0, 0} {
			binary.Write(&rsrc, binary.LittleEndian, v)
		}
	}
	for rsrc.Len()%512 != 0 {
		rsrc.WriteByte(0)
	}
	var b bytes.Buffer
	dos := make([]byte, 64)
	copy(dos, "MZ")
	binary.LittleEndian.PutUint32(dos[60:], 64)
	b.Write(dos)
	b.WriteString("PE\x00\x00")
	opt := pe.OptionalHeader64{Magic: 0x20b, SectionAlignment: 4096, FileAlignment: 512, NumberOfRvaAndSizes: 16}
	fh := pe.FileHeader{Machine: machine, NumberOfSections: 1, SizeOfOptionalHeader: uint16(binary.Size(opt)), Characteristics: 0x2022}
	binary.Write(&b, binary.LittleEndian, fh)
	binary.Write(&b, binary.LittleEndian, opt)
	sh := pe.SectionHeader32{VirtualSize: uint32(rsrc.Len()), VirtualAddress: 4096, SizeOfRawData: uint32(rsrc.Len()), PointerToRawData: 1024}
	copy(sh.Name[:], ".rsrc")
	binary.Write(&b, binary.LittleEndian, sh)
	for b.Len() < 1024 {
		b.WriteByte(0)
	}
	b.Write(rsrc.Bytes())
	return b.Bytes()
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tempDir is t.TempDir whose removal may fail: packaging/wine.sh runs this test for Windows
// under Wine 8, which cannot run Go's os.RemoveAll (t.TempDir would fail the test).
func tempDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "ortenv-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func TestDiscoverFakeTrees(t *testing.T) {
	home := filepath.Join(tempDir(t), "Jürgen Müller")
	local := filepath.Join(home, "AppData", "Local")
	roaming := filepath.Join(home, "AppData", "Roaming")
	venv := filepath.Join(tempDir(t), "my venv")
	arm := func(minor uint16) []byte { return fakeDLL(pe.IMAGE_FILE_MACHINE_ARM64, 1, minor, 1) }
	qnn := []byte("QnnHtp")

	// A python.org Python with onnxruntime-qnn 1.24.1: usable.
	py := filepath.Join(local, "Programs", "Python", "Python312", "Lib", "site-packages")
	writeFile(t, filepath.Join(py, "onnxruntime", "capi", "onnxruntime.dll"), arm(24))
	writeFile(t, filepath.Join(py, "onnxruntime", "capi", "QnnHtp.dll"), qnn)
	writeFile(t, filepath.Join(py, "onnxruntime_qnn-1.24.1.dist-info", "METADATA"), nil)
	// pip --user with plain onnxruntime (no QNN backend beside it).
	user := filepath.Join(roaming, "Python", "Python311", "site-packages")
	writeFile(t, filepath.Join(user, "onnxruntime", "capi", "onnxruntime.dll"), arm(25))
	writeFile(t, filepath.Join(user, "onnxruntime-1.25.0.dist-info", "METADATA"), nil)
	// NuGet: an old QNN package, and the x64 half of a current one.
	nuget := filepath.Join(home, ".nuget", "packages", "microsoft.ml.onnxruntime.qnn")
	writeFile(t, filepath.Join(nuget, "1.22.0", "runtimes", "win-arm64", "native", "onnxruntime.dll"), arm(22))
	writeFile(t, filepath.Join(nuget, "1.22.0", "runtimes", "win-arm64", "native", "QnnHtp.dll"), qnn)
	writeFile(t, filepath.Join(nuget, "1.30.0", "runtimes", "win-x64", "native", "onnxruntime.dll"), fakeDLL(pe.IMAGE_FILE_MACHINE_AMD64, 1, 30, 0))
	writeFile(t, filepath.Join(nuget, "1.30.0", "runtimes", "win-x64", "native", "QnnHtp.dll"), qnn)
	// AI Toolkit's bin folder: a library without a version resource.
	aitk := filepath.Join(home, ".vscode", "extensions", "ms-windows-ai-studio.windows-ai-studio-0.14.2-win32-arm64", "bin")
	writeFile(t, filepath.Join(aitk, "onnxruntime.dll"), fakeDLL(pe.IMAGE_FILE_MACHINE_ARM64, 0, 0, 0))
	writeFile(t, filepath.Join(aitk, "QnnHtp.dll"), qnn)
	// A venv the user points at, whose "DLL" is not a PE file at all.
	writeFile(t, filepath.Join(venv, "Lib", "site-packages", "onnxruntime", "capi", "onnxruntime.dll"), []byte("not a DLL"))
	// Not searched: a Python package that is not onnxruntime.
	writeFile(t, filepath.Join(py, "other", "onnxruntime.dll"), arm(24))

	env := map[string]string{"LOCALAPPDATA": local, "APPDATA": roaming, "USERPROFILE": home}
	got := Discover(DiscoverOptions{Getenv: func(k string) string { return env[k] }, Arch: "arm64", Folders: []string{venv}})
	want := []Candidate{
		{Path: filepath.Join(py, "onnxruntime", "capi", "onnxruntime.dll"), Origin: "Python: package onnxruntime-qnn 1.24.1 in " + py,
			Version: "1.24.1", Arch: "arm64", QNNBackend: true},
		{Path: filepath.Join(user, "onnxruntime", "capi", "onnxruntime.dll"), Origin: "Python (pip --user): package onnxruntime 1.25.0 in " + user,
			Version: "1.25.1", Arch: "arm64", Problem: "no QnnHtp.dll beside it, so it has no NPU backend (not a QNN build)"},
		{Path: filepath.Join(nuget, "1.22.0", "runtimes", "win-arm64", "native", "onnxruntime.dll"), Origin: "NuGet Microsoft.ML.OnnxRuntime.QNN 1.22.0",
			Version: "1.22.1", Arch: "arm64", QNNBackend: true, Problem: "ONNX Runtime 1.22.1 is older than 1.24.0, the oldest EdgeChat can use: update it"},
		{Path: filepath.Join(nuget, "1.30.0", "runtimes", "win-x64", "native", "onnxruntime.dll"), Origin: "NuGet Microsoft.ML.OnnxRuntime.QNN 1.30.0",
			Version: "1.30.0", Arch: "amd64", QNNBackend: true, Problem: "built for x64, but this EdgeChat runs on Arm64: Windows cannot load it into this program"},
		{Path: filepath.Join(aitk, "onnxruntime.dll"), Origin: "AI Toolkit for VS Code", Arch: "arm64", QNNBackend: true,
			Problem: "its version resource is missing, so its ONNX Runtime version is unknown"},
		{Path: filepath.Join(venv, "Lib", "site-packages", "onnxruntime", "capi", "onnxruntime.dll"), Origin: "Python environment you named: " + filepath.Join(venv, "Lib", "site-packages"),
			Problem: "not a Windows DLL"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	if n := len(Discover(DiscoverOptions{Getenv: func(string) string { return "" }})); n != 0 {
		t.Errorf("with no environment Discover found %d libraries, want none", n)
	}
}

func TestVersionLess(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"1.9.0", "1.24.0", true}, {"1.24.0", "1.24.0", false}, {"1.30.0", "1.24.0", false},
		{"1.24", "1.24.1", true}, {"2.0.0", "1.24.0", false}, {"1.24.0-dev", "1.24.0", false},
	} {
		if got := versionLess(c.a, c.b); got != c.want {
			t.Errorf("versionLess(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestReadPERealDLL reads the Windows onnxruntime.dll the packaging scripts cache, when they
// have run on this machine.
func TestReadPERealDLL(t *testing.T) {
	arch := map[string]string{"win32-x64": "amd64", "win32-arm64": "arm64"}
	found := 0
	for dir, goarch := range arch {
		p := filepath.Join(paths.CacheDir(), "onnxruntime", paths.ORTVersion, dir, "onnxruntime.dll")
		if _, err := os.Stat(p); err != nil {
			continue
		}
		found++
		info, err := readPE(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(peInfo{arch: goarch, version: paths.ORTVersion}, info, cmp.AllowUnexported(peInfo{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", p, diff)
		}
	}
	if found == 0 {
		t.Skip("no Windows onnxruntime.dll in the cache (make package-windows-amd64 puts one there)")
	}
}

func TestExplain(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`N:\_work\1\s\onnxruntime\core\providers\dml\dml_provider_factory.cc(512)\onnxruntime.dll!000000018068CBD0: (caller: 000000018068CF0A) Exception(1) tid(10c) 887A0004`,
			`N:\_work\1\s\onnxruntime\core\providers\dml\dml_provider_factory.cc(512)\onnxruntime.dll!000000018068CBD0: (caller: 000000018068CF0A) Exception(1) tid(10c) 887A0004 (DXGI_ERROR_UNSUPPORTED: no Direct3D 12 GPU that DirectML can use)`},
		{"QNN execution provider is not supported in this build.", "QNN execution provider is not supported in this build."},
		{"887a0005", "887a0005 (DXGI_ERROR_DEVICE_REMOVED: the GPU was removed or its driver restarted)"},
	} {
		if got := Explain(errors.New(c.in)).Error(); got != c.want {
			t.Errorf("Explain(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if Explain(nil) != nil {
		t.Error("Explain(nil) is not nil")
	}
}

// FuzzFixedFileVersion feeds arbitrary resource sections to the version reader: it never
// panics and finds either nothing or three numbers.
func FuzzFixedFileVersion(f *testing.F) {
	f.Add(fakeDLL(pe.IMAGE_FILE_MACHINE_ARM64, 1, 24, 1)[1024:])
	f.Add([]byte{0xbd, 0x04, 0xef, 0xfe})
	f.Add([]byte{0, 0xbd, 0x04, 0xef, 0xfe, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Fuzz(func(t *testing.T, rsrc []byte) {
		v := fixedFileVersion(rsrc)
		if v == "" {
			return
		}
		var a, b, c uint32
		if n, err := fmt.Sscanf(v, "%d.%d.%d", &a, &b, &c); n != 3 || err != nil || fmt.Sprintf("%d.%d.%d", a, b, c) != v {
			t.Fatalf("version %q is not three numbers", v)
		}
	})
}
