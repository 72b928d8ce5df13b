package env

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// MinVersion is the oldest ONNX Runtime that serves the C API version onnxruntime_go's header
// asks for (ORT_API_VERSION 24; ONNX Runtime 1.N serves API versions up to N).
const MinVersion = "1.24.0"

// Candidate is an ONNX Runtime library found where a QNN-capable build is usually installed.
type Candidate struct {
	Path    string `json:"path"`
	Origin  string `json:"origin"` // what installed it, e.g. "Python package onnxruntime-qnn 1.24.1"
	Version string `json:"version,omitempty"`
	Arch    string `json:"arch,omitempty"` // GOARCH spelling: amd64, arm64, 386, arm64ec
	// QNNBackend says QnnHtp.dll (the QNN provider's NPU backend) sits beside the library.
	QNNBackend bool `json:"qnn_backend"`
	// Providers is what the library itself lists (GetAvailableProviders); set by Probe.
	Providers []string `json:"providers,omitempty"`
	// Problem says why EdgeChat cannot use the library for the NPU; empty when it can.
	Problem string `json:"problem,omitempty"`
}

// Usable says whether EdgeChat can load the library and run the QNN provider from it.
func (c Candidate) Usable() bool { return c.Problem == "" }

// DiscoverOptions says where and for what to look. The zero value looks on this PC for this
// program's CPU.
type DiscoverOptions struct {
	Getenv func(string) string // default os.Getenv
	Arch   string              // default runtime.GOARCH
	// Folders the user points at: Python installs or virtual environments (their
	// Lib\site-packages is searched) or folders that hold onnxruntime.dll themselves.
	Folders []string
}

// place is a glob of folders that may hold onnxruntime.dll, below the folder an environment
// variable names, and what installs it there.
type place struct {
	env, glob, origin string
}

// places lists where QNN-capable ONNX Runtime builds are installed on Windows.
var places = []place{
	// Python: python.org installers (per user and for all users), pip --user, conda, the
	// Microsoft Store's Python; the onnxruntime-qnn wheel installs the onnxruntime package.
	{"LOCALAPPDATA", `Programs/Python/Python*/Lib/site-packages/onnxruntime/capi`, "Python"},
	{"APPDATA", `Python/Python*/site-packages/onnxruntime/capi`, "Python (pip --user)"},
	{"ProgramFiles", `Python*/Lib/site-packages/onnxruntime/capi`, "Python"},
	{"SystemDrive", `/Python*/Lib/site-packages/onnxruntime/capi`, "Python"},
	{"LOCALAPPDATA", `Packages/PythonSoftwareFoundation.Python.3.*/LocalCache/local-packages/Python3*/site-packages/onnxruntime/capi`, "Python (Microsoft Store)"},
	{"USERPROFILE", `*conda3/Lib/site-packages/onnxruntime/capi`, "conda"},
	{"USERPROFILE", `*conda3/envs/*/Lib/site-packages/onnxruntime/capi`, "conda environment"},
	{"USERPROFILE", `miniforge3/Lib/site-packages/onnxruntime/capi`, "conda"},
	{"USERPROFILE", `miniforge3/envs/*/Lib/site-packages/onnxruntime/capi`, "conda environment"},
	{"VIRTUAL_ENV", `Lib/site-packages/onnxruntime/capi`, "active Python virtual environment"},
	{"CONDA_PREFIX", `Lib/site-packages/onnxruntime/capi`, "active conda environment"},
	// NuGet's global packages folder (dotnet restore, Visual Studio).
	{"NUGET_PACKAGES", `microsoft.ml.onnxruntime.qnn/*/runtimes/win-*/native`, "NuGet Microsoft.ML.OnnxRuntime.QNN"},
	{"USERPROFILE", `.nuget/packages/microsoft.ml.onnxruntime.qnn/*/runtimes/win-*/native`, "NuGet Microsoft.ML.OnnxRuntime.QNN"},
	// AI Toolkit for VS Code keeps its inference service and runtimes in the extension's bin
	// folders and downloads more into ~/.aitk/bin.
	{"USERPROFILE", `.vscode*/extensions/ms-windows-ai-studio.windows-ai-studio-*/bin`, "AI Toolkit for VS Code"},
	{"USERPROFILE", `.vscode*/extensions/ms-windows-ai-studio.windows-ai-studio-*/ai-mlstudio/bin`, "AI Toolkit for VS Code"},
	{"USERPROFILE", `.aitk/bin/*`, "AI Toolkit for VS Code"},
	{"USERPROFILE", `.aitk/bin/*/*`, "AI Toolkit for VS Code"},
	// Foundry Local is an MSIX package; Windows lets a user read its folder but not always
	// list WindowsApps, in which case the glob finds nothing.
	{"ProgramFiles", `WindowsApps/Microsoft.FoundryLocal_*`, "Foundry Local"},
	{"LOCALAPPDATA", `Programs/Foundry Local`, "Foundry Local"},
}

// Discover lists the ONNX Runtime libraries installed where QNN-capable builds usually live,
// each checked without loading it: a Windows DLL for this CPU, ONNX Runtime MinVersion or
// newer, QnnHtp.dll beside it. Probe adds what each library really offers.
func Discover(o DiscoverOptions) []Candidate {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	arch := o.Arch
	if arch == "" {
		arch = runtime.GOARCH
	}
	var out []Candidate
	seen := map[string]bool{}
	add := func(dir, origin string) {
		lib := filepath.Join(dir, "onnxruntime.dll")
		key := strings.ToLower(filepath.Clean(lib))
		if seen[key] || !fileExists(lib) {
			return
		}
		seen[key] = true
		out = append(out, inspect(lib, originOf(dir, origin), arch))
	}
	for _, p := range places {
		root := getenv(p.env)
		if root == "" {
			continue
		}
		if p.env == "SystemDrive" { // "C:" names the drive's current folder, not its root
			root += string(filepath.Separator)
		}
		dirs, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(p.glob)))
		for _, d := range dirs {
			add(d, p.origin)
		}
	}
	for _, d := range pythonsOnPath(getenv("PATH")) {
		add(d, "Python on PATH")
	}
	for _, f := range o.Folders {
		add(f, "folder you named")
		for _, d := range sitePackages(f) {
			add(d, "Python environment you named")
		}
	}
	return out
}

// pythonsOnPath returns the onnxruntime\capi folders of the Pythons on PATH (a venv's
// Scripts folder or an install's own folder).
func pythonsOnPath(path string) []string {
	var out []string
	for _, d := range filepath.SplitList(path) {
		if d == "" || !fileExists(filepath.Join(d, "python.exe")) {
			continue
		}
		for _, root := range []string{d, filepath.Dir(d)} {
			out = append(out, sitePackages(root)...)
		}
	}
	return out
}

// sitePackages returns the onnxruntime\capi folders of a Python install or virtual
// environment at root.
func sitePackages(root string) []string {
	var out []string
	for _, g := range []string{`Lib/site-packages/onnxruntime/capi`, `lib/python3*/site-packages/onnxruntime/capi`} {
		m, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(g)))
		out = append(out, m...)
	}
	return out
}

// originOf names what installed the library in dir: the Python distribution that owns an
// onnxruntime package (onnxruntime-qnn, onnxruntime, …) and its version, or a NuGet version.
func originOf(dir, origin string) string {
	if filepath.Base(dir) == "capi" && filepath.Base(filepath.Dir(dir)) == "onnxruntime" {
		site := filepath.Dir(filepath.Dir(dir))
		infos, _ := filepath.Glob(filepath.Join(site, "onnxruntime*.dist-info"))
		slices.Sort(infos)
		for _, info := range infos {
			name, version, ok := strings.Cut(strings.TrimSuffix(filepath.Base(info), ".dist-info"), "-")
			if ok {
				return origin + ": package " + strings.ReplaceAll(name, "_", "-") + " " + version + " in " + site
			}
		}
		return origin + ": " + site
	}
	if strings.HasPrefix(origin, "NuGet") {
		// …\microsoft.ml.onnxruntime.qnn\<version>\runtimes\win-arm64\native
		return origin + " " + filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(dir))))
	}
	return origin
}

// inspect checks one library without loading it.
func inspect(lib, origin, arch string) Candidate {
	c := Candidate{Path: lib, Origin: origin, QNNBackend: fileExists(filepath.Join(filepath.Dir(lib), "QnnHtp.dll"))}
	info, err := readPE(lib)
	if err != nil {
		c.Problem = err.Error()
		return c
	}
	c.Arch, c.Version = info.arch, info.version
	switch {
	case c.Arch != arch:
		c.Problem = "built for " + ArchName(c.Arch) + ", but this EdgeChat runs on " + ArchName(arch) + ": Windows cannot load it into this program"
	case c.Version == "":
		c.Problem = "its version resource is missing, so its ONNX Runtime version is unknown"
	case versionLess(c.Version, MinVersion):
		c.Problem = "ONNX Runtime " + c.Version + " is older than " + MinVersion + ", the oldest EdgeChat can use: update it"
	case !c.QNNBackend:
		c.Problem = "no QnnHtp.dll beside it, so it has no NPU backend (not a QNN build)"
	}
	return c
}

// Probe asks each library that passed the file checks which execution providers it offers
// (GetAvailableProviders) and marks one without the QNN provider as not usable. It loads each
// library into the process (harmless: EdgeChat's own ONNX Runtime stays the one in use) and
// only works for libraries this OS can load.
func Probe(cs []Candidate) {
	for i := range cs {
		if !cs[i].Usable() {
			continue
		}
		ps, err := listProviders(cs[i].Path)
		if err != nil {
			cs[i].Problem = "could not load it: " + firstLine(err.Error())
			continue
		}
		cs[i].Providers = ps
		if !slices.Contains(ps, "QNNExecutionProvider") {
			cs[i].Problem = "it does not offer QNNExecutionProvider (it offers " + strings.Join(ps, ", ") + ")"
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// ArchName spells a GOARCH as Windows users know it: x64, Arm64, x86.
func ArchName(a string) string {
	switch a {
	case "amd64":
		return "x64"
	case "arm64":
		return "Arm64"
	case "386":
		return "x86"
	}
	return a
}

// versionLess compares dotted numeric versions ("1.9.0" < "1.24.0").
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		x, y := versionPart(as, i), versionPart(bs, i)
		if x != y {
			return x < y
		}
	}
	return false
}

func versionPart(parts []string, i int) int {
	if i >= len(parts) {
		return 0
	}
	n := 0
	for _, r := range parts[i] {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}
