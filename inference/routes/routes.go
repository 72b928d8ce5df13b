// Package routes decides which routes serve a reply and in which order — the one policy the
// window and the command line share — and lets saved settings swap the engine in place.
package routes

import (
	"edgechat/config"
	"edgechat/inference"
	"edgechat/inference/ort/decoder"
	"edgechat/inference/remote"
	"edgechat/internal/host"
	"edgechat/internal/paths"
)

// Local is a model to run on this PC.
type Local struct {
	Model, ModelFile string
	// EP is the execution provider: "cpu", "qnn", "dml", "webgpu".
	EP        string
	EPOptions map[string]string
	Threads   int
	// MaxContext caps the context in tokens (0 = the engine's default).
	MaxContext int
	// KVCache says how the KV cache is kept (see inference.KVCache; the zero value is auto).
	KVCache inference.KVCache
	// PromptInt8 runs prompts on 8-bit weights (see inference.LoadOptions).
	PromptInt8 bool
}

// Spec is what the routes are built from: settings in the window, flags on the command line.
type Spec struct {
	ORTLibrary string
	// NPU is tried first; PrefillLimit bounds the prompts it takes while a later route exists.
	NPU          *Local
	PrefillLimit int
	// CPU is the fallback; it always runs on the CPU execution provider.
	CPU *Local
	// Remote is an OpenAI-compatible server: between NPU and CPU when ForLongPrompts is set
	// (it takes what the NPU declines), else only when no local model is configured.
	Remote         *remote.Config
	ForLongPrompts bool
	// GraphCache is where optimized copies of dynamic graphs go ("" runs the files as
	// published; see inference.LoadOptions).
	GraphCache string
	// PowerMode pins the local routes' power mode (eps.PowerPerformance or eps.PowerSaver);
	// "" or eps.PowerAuto follows the machine. SaverHTPMode is QNN's htp_performance_mode in
	// battery saver ("" = eps.SaverHTPMode).
	PowerMode, SaverHTPMode string
}

// Build orders the routes: NPU, then the remote server for long prompts, then the CPU; a
// remote server alone serves when no local model is set. No routes means nothing is configured.
func Build(s Spec) inference.Config {
	cfg := inference.Config{Open: decoder.Opener(s.ORTLibrary),
		Power: inference.PowerConfig{Mode: s.PowerMode, SaverHTPMode: s.SaverHTPMode, Watch: host.WatchPower}}
	local := func(name string, l *Local) inference.RouteConfig {
		return inference.RouteConfig{Name: name, Model: l.Model, LoadOptions: inference.LoadOptions{
			ModelFile: l.ModelFile, MaxContext: l.MaxContext, GraphCache: s.GraphCache, KVCache: l.KVCache, PromptInt8: l.PromptInt8,
			EP: inference.EP{Name: l.EP, Options: l.EPOptions, Threads: l.Threads},
		}}
	}
	remoteRoute := func() inference.RouteConfig {
		return inference.RouteConfig{Name: "remote", Generator: remote.New(*s.Remote)}
	}
	if s.NPU != nil && s.NPU.Model != "" {
		npu := local("npu", s.NPU)
		npu.PrefillLimit = s.PrefillLimit
		cfg.Routes = append(cfg.Routes, npu)
	}
	remoteUsed := false
	if s.Remote != nil && s.ForLongPrompts {
		cfg.Routes = append(cfg.Routes, remoteRoute())
		remoteUsed = true
	}
	if s.CPU != nil && s.CPU.Model != "" {
		cpu := local("cpu", s.CPU)
		cpu.EP.Name = "cpu"
		cfg.Routes = append(cfg.Routes, cpu)
	}
	if s.Remote != nil && !remoteUsed && len(cfg.Routes) == 0 {
		cfg.Routes = append(cfg.Routes, remoteRoute())
	}
	return cfg
}

// FromSettings is the Spec of the window's settings.
func FromSettings(s config.Settings) Spec {
	spec := Spec{ORTLibrary: s.ORTLibrary, PrefillLimit: s.PrefillLimit, ForLongPrompts: s.Remote.UseForLongPrompts,
		GraphCache: paths.GraphCacheDir(), PowerMode: s.Power.Mode, SaverHTPMode: s.Power.SaverHTPMode}
	local := func(r config.Route) *Local {
		if r.Model == "" {
			return nil
		}
		// Both routes: the 8-bit caches run on the CPU provider only, so an NPU route on the
		// CPU (npu.ep: cpu) follows the setting too and one on an NPU keeps 32 bits.
		kv, err := inference.ParseKVCache(s.KVCache)
		if err != nil {
			kv = inference.KVAuto // config.Open and Validate only let KVCaches through
		}
		return &Local{Model: r.Model, ModelFile: r.ModelFile, EP: r.EP, EPOptions: r.EPOptions, Threads: r.Threads, KVCache: kv}
	}
	spec.NPU, spec.CPU = local(s.NPU), local(s.CPU)
	if spec.CPU != nil {
		spec.CPU.PromptInt8 = s.PromptInt8 // the prompt twin runs on the CPU route only
	}
	if s.Remote.BaseURL != "" {
		spec.Remote = &remote.Config{BaseURL: s.Remote.BaseURL, Model: s.Remote.Model, APIKey: s.Remote.APIKey}
	}
	return spec
}
