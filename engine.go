package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"edgechat/reply"

	"edgechat/config"
	"edgechat/inference"
	"edgechat/inference/ortenv"
	"edgechat/inference/routes"
	"edgechat/ui"
)

// newEngine builds the engine the window talks to from the settings (routes.Build orders the
// routes). Without any route, every reply says how to configure one.
func newEngine(s config.Settings) ui.Engine {
	if demoEngine != nil {
		return demoEngine
	}
	cfg := routes.Build(routes.FromSettings(s))
	if len(cfg.Routes) == 0 {
		return noModelEngine{}
	}
	e, err := inference.New(cfg)
	if err != nil {
		return noModelEngine{}
	}
	return e
}

// demoEngine, when set (builds with the demo tag and --demo-engine), answers instead of a model.
var demoEngine ui.Engine

// newTester backs the settings pane's Test button: it loads the model on the chosen execution
// provider (proving the library, the EP and the files) and describes it.
func newTester() ui.ModelTester { return loadTester{} }

type loadTester struct{}

// CheckEP reports an execution provider the loaded ONNX Runtime lacks. Before ONNX Runtime is
// loaded (first reply or Test) it cannot tell, and says nothing.
func (loadTester) CheckEP(ep string) error {
	info, ok := ortenv.Loaded()
	if !ok || ep == "" || ep == "cpu" {
		return nil
	}
	name := map[string]string{"qnn": "QNN", "dml": "DML", "webgpu": "WebGPU"}[ep]
	if name == "" {
		return nil // config.CheckEP reports unknown names
	}
	opts := map[string]string{}
	if name == "QNN" {
		opts["backend_path"] = "QnnHtp.dll"
	}
	if err := ortenv.CheckProvider(name, opts); err != nil {
		return fmt.Errorf("%s is not usable in the ONNX Runtime at %s (%s): choose a build that has it (for the NPU a QNN-enabled onnxruntime) or another provider", name, info.Path, firstLine(err.Error()))
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func (loadTester) Test(ctx context.Context, r config.Route, ortLibrary string) (string, error) {
	rep, err := inference.Inspect(r.Model, r.ModelFile)
	if err != nil {
		return "", err
	}
	info, err := ortenv.Init(ortLibrary)
	if err != nil {
		return "", err
	}
	start := time.Now()
	m, err := inference.LoadModel(r.Model, inference.LoadOptions{ModelFile: r.ModelFile, EP: inference.EP{Name: r.EP, Options: r.EPOptions, Threads: r.Threads}})
	if err != nil {
		return "", err
	}
	m.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "Loaded in %.1f s on %s with ONNX Runtime %s\n", time.Since(start).Seconds(), inference.EP{Name: r.EP}.Label(), info.Version)
	fmt.Fprintf(&b, "%s (layout %s)\n", rep.Description, rep.LayoutLetter)
	fmt.Fprintf(&b, "%d layers, %d KV heads × %d, vocab %d, context %d tokens\n", rep.Layers, rep.KVHeads, rep.HeadDim, rep.Vocab, rep.ContextLength)
	if len(rep.Quantization) > 0 {
		fmt.Fprintf(&b, "Quantization: %s\n", strings.Join(rep.Quantization, ", "))
	}
	for _, g := range rep.Graphs {
		ep := ""
		if g.EP != "" {
			ep = " on " + g.EP
		}
		fmt.Fprintf(&b, "%s: %s (%.1f MB)%s\n", g.Role, g.File, float64(g.SizeBytes)/1e6, ep)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	return strings.TrimSpace(b.String()), nil
}

// noModelEngine answers every request with an error a person can act on.
type noModelEngine struct{}

func (noModelEngine) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	out := make(chan reply.Event, 1)
	out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{
		FinishReason: reply.FinishError,
		Err:          errors.New("No model configured — open Settings and choose a model folder"),
	}}
	close(out)
	return out, nil
}
