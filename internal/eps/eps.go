// Package eps is the one table of the execution providers EdgeChat can ask ONNX Runtime for:
// their setting names, labels, ONNX Runtime names and default options, and what battery saver
// mode changes in those options. Settings validation, the settings pane and the decoders all
// read it. It imports nothing.
package eps

import (
	"maps"
	"sort"
	"strings"
)

// Provider is one execution provider.
type Provider struct {
	// Name is the setting value: "cpu", "qnn", "dml", "webgpu".
	Name string
	// Label is how a person sees it ("CPU", "QNN", "DirectML", "WebGPU").
	Label string
	// ORT is ONNX Runtime's name for it ("QNN", "DML", "WebGPU"; "CPU" is always there).
	ORT string
	// Defaults are the provider options used unless a route overrides them.
	Defaults map[string]string
}

// All lists the providers in the order the settings pane offers them.
var All = []Provider{
	{Name: "cpu", Label: "CPU", ORT: "CPU"},
	{Name: "qnn", Label: "QNN", ORT: "QNN", Defaults: map[string]string{
		"backend_path":         "QnnHtp.dll",
		"htp_performance_mode": "burst",
	}},
	{Name: "dml", Label: "DirectML", ORT: "DML"},
	{Name: "webgpu", Label: "WebGPU", ORT: "WebGPU"},
}

// Names are the setting values of All, in order.
func Names() []string {
	out := make([]string, len(All))
	for i, p := range All {
		out[i] = p.Name
	}
	return out
}

// ORTNames are ONNX Runtime's names of All, in order.
func ORTNames() []string {
	out := make([]string, len(All))
	for i, p := range All {
		out[i] = p.ORT
	}
	return out
}

// Lookup finds a provider by its setting name (any case; "" is the CPU).
func Lookup(name string) (Provider, bool) {
	if name == "" {
		name = "cpu"
	}
	for _, p := range All {
		if strings.EqualFold(p.Name, name) {
			return p, true
		}
	}
	return Provider{}, false
}

// Label is how a provider named name is shown; an unknown name is shown as given.
func Label(name string) string {
	if p, ok := Lookup(name); ok {
		return p.Label
	}
	return name
}

// IsCPU reports whether name means the CPU ("" or "cpu", any case).
func IsCPU(name string) bool { return name == "" || strings.EqualFold(name, "cpu") }

// WithDefaults returns opts with the provider's defaults filled in where opts has no value.
// The result is a new map.
func WithDefaults(name string, opts map[string]string) map[string]string {
	p, _ := Lookup(name)
	return Merge(p.Defaults, opts)
}

// Merge returns base overlaid with over, as a new map.
func Merge(base, over map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}

// FormatOptions writes options as the settings pane shows them: "key=value, key=value",
// sorted by key.
func FormatOptions(opts map[string]string) string {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + opts[k]
	}
	return strings.Join(parts, ", ")
}
