package main

import (
	"edgechat/inference/ort/env"
	"edgechat/inference/routes"
	"edgechat/ui"
)

// runtimeTester is the settings pane's tester, which also lists the ONNX Runtime builds for
// the NPU installed on this PC (ui.RuntimeFinder).
type runtimeTester struct{ routes.Tester }

// FindRuntimes finds the builds and asks each what it offers (Settings shows them).
func (runtimeTester) FindRuntimes() []ui.Runtime {
	found := env.Discover(env.DiscoverOptions{})
	env.Probe(found)
	out := make([]ui.Runtime, len(found))
	for i, c := range found {
		out[i] = ui.Runtime{Path: c.Path, Origin: c.Origin, Version: c.Version, Providers: c.Providers, Problem: c.Problem}
	}
	return out
}

// HasNPURuntime reports whether an ONNX Runtime build for the NPU is installed where
// EdgeChat looks (files only: nothing is loaded). The window shows its NPU options only then,
// or when an NPU model is already set.
func (runtimeTester) HasNPURuntime() bool {
	for _, c := range env.Discover(env.DiscoverOptions{}) {
		if c.Usable() {
			return true
		}
	}
	return false
}
