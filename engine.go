package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"edgechat/reply"

	"edgechat/config"
	"edgechat/inference"
	"edgechat/inference/ortenv"
	"edgechat/inference/remote"
	"edgechat/internal/paths"
	"edgechat/ui"
)

// newEngine builds the engine the window talks to from the settings: the NPU route first,
// then the remote server when it takes long prompts, then the CPU; a remote server alone
// serves when no local model is set. Without any, every reply says how to configure one.
func newEngine(s config.Settings, demo bool) ui.Engine {
	if demo {
		return demoEngine{}
	}
	cfg := engineConfig(s)
	if len(cfg.Routes) == 0 {
		return noModelEngine{}
	}
	e, err := inference.New(cfg)
	if err != nil {
		return noModelEngine{}
	}
	return e
}

// engineConfig turns settings into routes.
func engineConfig(s config.Settings) inference.Config {
	cfg := inference.Config{ORTLibrary: s.ORTLibrary}
	local := func(name string, r config.Route) inference.RouteConfig {
		return inference.RouteConfig{Name: name, Model: r.Model, LoadOptions: inference.LoadOptions{
			ModelFile: r.ModelFile, EP: inference.EP{Name: r.EP, Options: r.EPOptions, Threads: r.Threads},
			GraphCache: filepath.Join(paths.CacheDir(), "graphs"),
		}}
	}
	var remoteRoute *inference.RouteConfig
	if s.Remote.BaseURL != "" {
		remoteRoute = &inference.RouteConfig{Name: "remote", Generator: remote.New(remote.Config{BaseURL: s.Remote.BaseURL, Model: s.Remote.Model, APIKey: s.Remote.APIKey})}
	}
	if s.NPU.Model != "" {
		npu := local("npu", s.NPU)
		npu.PrefillLimit = s.PrefillLimit
		cfg.Routes = append(cfg.Routes, npu)
	}
	if remoteRoute != nil && s.Remote.UseForLongPrompts {
		cfg.Routes = append(cfg.Routes, *remoteRoute)
		remoteRoute = nil
	}
	if s.CPU.Model != "" {
		cpu := local("cpu", s.CPU)
		cpu.EP.Name = "cpu"
		cfg.Routes = append(cfg.Routes, cpu)
	}
	if remoteRoute != nil && len(cfg.Routes) == 0 {
		cfg.Routes = append(cfg.Routes, *remoteRoute)
	}
	return cfg
}

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

// demoEngine streams a canned reply with thinking, for screenshots and UI work only
// (--demo-engine). It behaves like the real engine: status first, ~40 tokens/s, stops on ctx.
type demoEngine struct{}

const demoThinking = `The user asks how the NPU route works. I should explain prefill and decode briefly, ` +
	`mention the CPU fallback and show a short code sample.`

const demoAnswer = "EdgeChat runs the model in two phases:\n\n" +
	"1. **Prefill** reads your whole prompt in chunks on the NPU.\n" +
	"2. **Decode** then produces one token per step and streams it here.\n\n" +
	"If the NPU cannot load the model, the CPU takes over and the footer says so.\n\n" +
	"```go\nfor step := 0; step < maxTokens; step++ {\n\tid := sample(session.Run(ids))\n\tif id == eos {\n\t\tbreak\n\t}\n}\n```\n\n" +
	"Press *Stop* (Esc) at any time; the partial answer is kept."

func (demoEngine) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	out := make(chan reply.Event)
	go func() {
		defer close(out)
		start := time.Now()
		send := func(ev reply.Event, wait time.Duration) bool {
			select {
			case out <- ev:
			case <-ctx.Done():
				return false
			}
			select {
			case <-time.After(wait):
				return true
			case <-ctx.Done():
				return false
			}
		}
		n, ttft := 0, time.Duration(0)
		stream := func(kind reply.EventKind, text string) bool {
			for _, w := range strings.SplitAfter(text, " ") {
				if ttft == 0 {
					ttft = time.Since(start)
				}
				n++
				if !send(reply.Event{Kind: kind, Text: w}, 25*time.Millisecond) {
					return false
				}
			}
			return true
		}
		ok := send(reply.Event{Kind: reply.EventStatus, Text: "Loading model…"}, 700*time.Millisecond) &&
			(!req.Thinking || stream(reply.EventThinking, demoThinking)) &&
			stream(reply.EventText, demoAnswer)
		sum := &reply.Summary{
			FinishReason: reply.FinishStop, Backend: "npu", Device: "QNN (demo)",
			PromptTokens: 40 * len(req.Messages), GeneratedTokens: n, ReusedTokens: 30 * (len(req.Messages) - 2),
			TTFT: ttft, DecodeTPS: 38.5, PrefillTPS: 410,
		}
		if sum.ReusedTokens < 0 {
			sum.ReusedTokens = 0
		}
		if !ok {
			sum.FinishReason = reply.FinishCancelled
		}
		out <- reply.Event{Kind: reply.EventDone, Done: sum}
	}()
	return out, nil
}
