package main

import (
	"fmt"
	"strings"

	"edgechat/config"
	"edgechat/inference/ort/env"
	"edgechat/inference/routes"
	"edgechat/internal/paths"
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
	lib, _, err := env.Locate(s.ORTLibrary)
	if err != nil {
		return append(out, runtimeProblem(err))
	}
	if _, err := env.Init(s.ORTLibrary); err != nil {
		if why, ok := loadFailure(err); ok {
			return append(out, ui.ModelProblem{Fix: ui.FixRuntime, Message: fmt.Sprintf(
				"EdgeChat could not open %s as its ONNX Runtime library (the system says: %s), so replies will fail — choose the %s of ONNX Runtime %s for this PC in Settings → Runtime.",
				lib, why, paths.ORTLibraryName(), paths.ORTVersion)})
		}
		return append(out, runtimeProblem(err))
	}
	if s.NPU.Model != "" {
		if err := (routes.Tester{}).CheckEP(s.NPU.EP); err != nil {
			out = append(out, ui.ModelProblem{Fix: ui.FixRuntime, Message: "The NPU's model cannot run: " + err.Error()})
		}
	}
	return out
}

// loadFailure is the system's reason in an error of loading the library ("file too short",
// "The specified module could not be found."): the text after the last ": " of the loader's
// message, without the version hint; false when err is not one (ONNX Runtime already loaded
// from another file).
func loadFailure(err error) (string, bool) {
	msg := err.Error()
	if !strings.HasPrefix(msg, "load ONNX Runtime from ") {
		return "", false
	}
	msg, _, _ = strings.Cut(msg, " (is it ONNX Runtime")
	i := strings.LastIndex(msg, ": ")
	if i < 0 || strings.TrimSpace(msg[i+2:]) == "" {
		return "", false
	}
	return strings.TrimSpace(msg[i+2:]), true
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
