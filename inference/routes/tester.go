package routes

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"edgechat/config"
	"edgechat/inference"
	"edgechat/inference/ort/env"
	"edgechat/internal/eps"
)

// Tester backs the settings pane's Test button and its inline provider check.
type Tester struct {
	// Engine is the window's engine; Saved returns the settings it was built from.
	Engine *Switch
	Saved  func() config.Settings
}

// routeTester is what Test needs of an engine.
type routeTester interface {
	TestRoute(ctx context.Context, name string) (*inference.RouteReport, error)
}

// Test loads the model of route r and describes it. When r and the library are what the
// running engine serves, its own route loads and inspects the model — the one copy the
// replies use, loaded once, by the goroutine that owns it. Unsaved settings get an engine of
// their own for the test, closed after it. ctx bounds the whole test.
func (t Tester) Test(ctx context.Context, r config.Route, ortLibrary string) (string, error) {
	name, eng := t.running(r, ortLibrary)
	if eng == nil {
		local := &Local{Model: r.Model, ModelFile: r.ModelFile, EP: r.EP, EPOptions: r.EPOptions, Threads: r.Threads}
		spec := Spec{ORTLibrary: ortLibrary}
		name = "cpu"
		if eps.IsCPU(r.EP) {
			spec.CPU = local
		} else {
			spec.NPU, name = local, "npu"
		}
		e, err := inference.New(Build(spec))
		if err != nil {
			return "", err
		}
		defer e.Close()
		eng = e
	}
	rep, err := eng.TestRoute(ctx, name)
	if err != nil {
		return "", err
	}
	return FormatReport(rep), nil
}

// running finds the running engine's route that serves r with ortLibrary, if any.
func (t Tester) running(r config.Route, ortLibrary string) (string, routeTester) {
	if t.Engine == nil || t.Saved == nil {
		return "", nil
	}
	eng, ok := t.Engine.Current().(routeTester)
	saved := t.Saved()
	if !ok || saved.ORTLibrary != ortLibrary {
		return "", nil
	}
	spec := FromSettings(saved)
	for _, c := range []struct {
		name  string
		local *Local
		cpu   bool
	}{{"npu", spec.NPU, false}, {"cpu", spec.CPU, true}} {
		want := Local{Model: r.Model, ModelFile: r.ModelFile, EP: r.EP, EPOptions: r.EPOptions, Threads: r.Threads}
		if c.local == nil {
			continue
		}
		got := *c.local
		if c.cpu { // the CPU route runs on the CPU whatever its EP setting says
			got.EP, want.EP = "cpu", cmpEP(want.EP)
		}
		if reflect.DeepEqual(got, want) {
			return c.name, eng
		}
	}
	return "", nil
}

func cmpEP(ep string) string {
	if eps.IsCPU(ep) {
		return "cpu"
	}
	return ep
}

// FormatReport is the text the settings pane shows for a tested route.
func FormatReport(r *inference.RouteReport) string {
	var b strings.Builder
	rt := ""
	if r.Runtime != "" {
		rt = " with " + r.Runtime
	}
	if r.Load > 0 {
		fmt.Fprintf(&b, "Loaded in %.1f s on %s%s\n", r.Load.Seconds(), r.Device, rt)
	} else {
		fmt.Fprintf(&b, "Loaded on %s%s (already in use)\n", r.Device, rt)
	}
	rep := r.Model
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
	return strings.TrimSpace(b.String())
}

// CheckEP reports an execution provider the loaded ONNX Runtime lacks. Before ONNX Runtime is
// loaded (first reply or Test) it cannot tell, and says nothing.
func (Tester) CheckEP(ep string) error {
	info, ok := env.Loaded()
	p, known := eps.Lookup(ep)
	if !ok || !known || eps.IsCPU(ep) {
		return nil // config.CheckEP reports unknown names
	}
	if err := env.CheckProvider(p.ORT, eps.WithDefaults(ep, nil)); err != nil {
		return fmt.Errorf("%s is not usable in the ONNX Runtime at %s (%s): choose a build that has it (for the NPU a QNN-enabled onnxruntime) or another accelerator", p.Label, info.Path, firstLine(err.Error()))
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
