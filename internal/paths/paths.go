// Package paths knows where EdgeChat keeps what it installs outside the repository:
// the cache of downloaded packages, the ONNX Runtime library and the test tokenizers.
package paths

import (
	"os"
	"path/filepath"
	"runtime"
)

// ORTVersion is the ONNX Runtime release EdgeChat is built and tested against.
const ORTVersion = "1.30.0"

// CacheDir is the folder that tools/setup.sh fills: $EDGECHAT_CACHE, else the user cache
// folder's "edgechat".
func CacheDir() string {
	if d := os.Getenv("EDGECHAT_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "edgechat")
	}
	return filepath.Join(os.TempDir(), "edgechat-cache")
}

// GraphCacheDir is where EdgeChat keeps its optimized copies of model graphs (and the records
// of copies it does not use).
func GraphCacheDir() string { return filepath.Join(CacheDir(), "graphs") }

// ORTLibraryName is the file name of the ONNX Runtime shared library on this OS.
func ORTLibraryName() string {
	switch runtime.GOOS {
	case "windows":
		return "onnxruntime.dll"
	case "darwin":
		return "libonnxruntime.dylib"
	default:
		return "libonnxruntime.so.1"
	}
}

// CachedORTLibrary is where setup.sh puts the ONNX Runtime library for this platform.
func CachedORTLibrary() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	osName := runtime.GOOS
	if osName == "windows" {
		osName = "win32"
	}
	return filepath.Join(CacheDir(), "onnxruntime", ORTVersion, osName+"-"+arch, ORTLibraryName())
}

// TokenizerDir is the folder holding the real tokenizer files of name (qwen3, llama3,
// deepseek_v3, llama2, gemma3) that setup.sh installs as test data.
func TokenizerDir(name string) string {
	return filepath.Join(CacheDir(), "tokenizers", name)
}
