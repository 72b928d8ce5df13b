package main

import (
	"fmt"

	"edgechat/config"
	"edgechat/inference/ort/env"
	"edgechat/inference/routes"
	"edgechat/models"
	"edgechat/ui"
)

// modelProblems finds what would make every reply fail, for the window's banner (its
// CheckModel): a local model that cannot be opened, an ONNX Runtime library that is missing
// or does not load, the NPU's execution provider missing from it. Settings without a local
// model (a remote server only, or none yet) have none. It runs off the main goroutine: it
// loads ONNX Runtime, as the first reply would, but no model.
func modelProblems(s config.Settings) []ui.ModelProblem {
	if demoEngine != nil {
		return nil
	}
	var out []ui.ModelProblem
	local := false
	for _, r := range []struct {
		name  string
		route config.Route
	}{{"NPU", s.NPU}, {"CPU", s.CPU}} {
		if r.route.Model == "" {
			continue
		}
		local = true
		if err := checkModel(r.route); err != nil {
			out = append(out, ui.ModelProblem{Fix: ui.FixModel,
				Message: fmt.Sprintf("The %s's model cannot be used, so replies will fail: %v", r.name, err)})
		}
	}
	if !local {
		return nil
	}
	runtimeProblem := func(err error) ui.ModelProblem {
		return ui.ModelProblem{Fix: ui.FixRuntime,
			Message: fmt.Sprintf("EdgeChat cannot load ONNX Runtime, which runs the models on this PC, so replies will fail: %v", err)}
	}
	if _, _, err := env.Locate(s.ORTLibrary); err != nil {
		return append(out, runtimeProblem(err))
	}
	if _, err := env.Init(s.ORTLibrary); err != nil {
		return append(out, runtimeProblem(err))
	}
	if s.NPU.Model != "" {
		if err := (routes.Tester{}).CheckEP(s.NPU.EP); err != nil {
			out = append(out, ui.ModelProblem{Fix: ui.FixRuntime, Message: "The NPU's model cannot run: " + err.Error()})
		}
	}
	return out
}

// checkModel opens a route's model folder as loading it would, without ONNX Runtime: the
// files are there, the graph is an ONNX model, the layout and tokenizer are found.
func checkModel(r config.Route) error {
	if err := config.CheckModelPath(r.Model); err != nil {
		return err
	}
	_, err := models.Open(r.Model, r.ModelFile)
	return err
}
