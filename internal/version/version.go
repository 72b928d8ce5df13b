// Package version says which EdgeChat this is: its version, build number and commit, and the
// ONNX Runtime it runs on, for `edgechat --version` and the About box.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"edgechat/inference/ort/env"
)

// Set at link time with
//
//	go build -ldflags "-X edgechat/internal/version.version=0.1.0 -X edgechat/internal/version.build=1
//	                   -X edgechat/internal/version.commit=$(git rev-parse --short=12 HEAD)"
//
// or, in the release packages, by the stamp_package.go file that packaging/build.sh writes into
// its copy of the source. Left empty, version and build fall back to the FyneApp.toml values
// below and commit to the VCS revision the go command stamps into the binary.
var version, build, commit string

// Defaults from FyneApp.toml ([Details] Version and Build); version_test.go checks they agree.
const (
	defaultVersion = "0.1.0"
	defaultBuild   = "1"
)

// Info describes this binary. Every field is filled; Commit is "unknown" when neither the
// linker nor the go command recorded it.
type Info struct {
	Version  string // "0.1.0"
	Build    string // "1"
	Commit   string // "897eeda1c2d3", with "-dirty" when built from a modified tree
	Go       string // "go1.26.8"
	Platform string // "windows/arm64"
}

// Get returns this binary's Info. It has no side effects.
func Get() Info {
	return Info{
		Version:  or(version, defaultVersion),
		Build:    or(build, defaultBuild),
		Commit:   or(commit, vcsRevision(), "unknown"),
		Go:       runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// String is Info's text as `edgechat --version` prints it, without the ONNX Runtime line:
//
//	EdgeChat 0.1.0 (build 1)
//	Commit: 897eeda1c2d3
//	Go: go1.26.8 windows/arm64
func (i Info) String() string {
	return fmt.Sprintf("EdgeChat %s (build %s)\nCommit: %s\nGo: %s %s\n", i.Version, i.Build, i.Commit, i.Go, i.Platform)
}

// Runtime describes the ONNX Runtime library this process has loaded, as one line such as
// "ONNX Runtime: 1.30.0 (C:\EdgeChat\onnxruntime.dll, next to the executable)", or
// "ONNX Runtime: not loaded" when none is. It never loads one: for the About box.
func Runtime() string {
	info, ok := env.Loaded()
	if !ok {
		return "ONNX Runtime: not loaded"
	}
	return runtimeLine(info)
}

// String returns the full `edgechat --version` text: Get().String() and an ONNX Runtime line.
// It loads ONNX Runtime the default way (env.Init("")) when nothing is loaded yet, and says
// "ONNX Runtime: not found (why)" when that fails. Use Get and Runtime inside the app, where
// loading a library would pre-empt the user's setting.
func String() string {
	info, err := env.Init("")
	line := runtimeLine(info)
	if err != nil {
		line = "ONNX Runtime: not found (" + err.Error() + ")"
	}
	return Get().String() + line + "\n"
}

func runtimeLine(info env.Info) string {
	return fmt.Sprintf("ONNX Runtime: %s (%s, %s)", info.Version, info.Path, info.Source)
}

// vcsRevision returns the revision the go command stamped (go build in a git checkout),
// shortened to 12 characters, with "-dirty" for a modified tree; "" when there is none.
func vcsRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return rev[:min(len(rev), 12)] + dirty
}

func or(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
