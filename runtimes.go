package main

import (
	"edgechat/inference/ortenv"
	"edgechat/inference/routes"
)

// runtimeTester is the settings pane's tester, which also lists the ONNX Runtime builds for
// the NPU installed on this PC (ui.RuntimeFinder).
type runtimeTester struct{ routes.Tester }

// FindRuntimes finds the builds and asks each what it offers (Settings shows them).
func (runtimeTester) FindRuntimes() []ortenv.Candidate {
	found := ortenv.Discover(ortenv.DiscoverOptions{})
	ortenv.Probe(found)
	return found
}
