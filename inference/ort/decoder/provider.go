package decoder

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference"
	"edgechat/inference/ort/env"
	"edgechat/internal/eps"
	"edgechat/internal/host"
)

// newSessionOptions builds ONNX Runtime session options for ep. The error of a provider the
// loaded ONNX Runtime does not have carries ONNX Runtime's own words (e.g. "QNN execution
// provider is not supported in this build"), which the router reports as the fallback reason.
func newSessionOptions(ep inference.EP) (*ort.SessionOptions, error) {
	o, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("create session options: %w", err)
	}
	threads := ep.Threads
	if threads <= 0 {
		threads = host.PhysicalCores()
	}
	if err := o.SetIntraOpNumThreads(threads); err != nil {
		o.Destroy()
		return nil, fmt.Errorf("set %d threads: %w", threads, err)
	}
	// Memory patterns plan a run's buffers for one set of input shapes, reused when the same
	// shapes come again. A decoder's shapes change every run (the prompt's length, the
	// attention mask's with every token), so each run would plan and place a new pattern
	// block; without them the arena's freed blocks serve the next run. DirectML refuses
	// sessions with them on.
	if err := o.SetMemPattern(false); err != nil {
		o.Destroy()
		return nil, fmt.Errorf("turn memory patterns off: %w", err)
	}
	// Options named "session.*" are ONNX Runtime session settings, whatever the provider
	// (e.g. session.disable_prepacking=1 trades speed for memory); the rest go to the provider.
	provider := map[string]string{}
	for k, v := range withSessionDefaults(ep.Options) {
		if !strings.HasPrefix(k, "session.") {
			provider[k] = v
		} else if err := o.AddSessionConfigEntry(k, v); err != nil {
			o.Destroy()
			return nil, fmt.Errorf("session option %s=%s: %w", k, v, err)
		}
	}
	ep.Options = provider
	if err := appendProvider(o, ep); err != nil {
		o.Destroy()
		return nil, err
	}
	return o, nil
}

// appendProvider adds ep's provider to o (nothing for the CPU, which is always there), with
// the provider's defaults from the eps table under the route's options.
func appendProvider(o *ort.SessionOptions, ep inference.EP) error {
	p, ok := eps.Lookup(ep.Name)
	if !ok {
		return fmt.Errorf("unknown execution provider %q: choose one of %s", ep.Name, strings.Join(eps.Names(), ", "))
	}
	if err := env.AppendProvider(o, p.ORT, eps.WithDefaults(p.Name, ep.Options)); err != nil {
		return &EPError{EP: p.Label, Err: err}
	}
	return nil
}

// EPError reports that ONNX Runtime refused an execution provider.
type EPError struct {
	EP  string
	Err error
}

func (e *EPError) Error() string {
	msg := e.Err.Error()
	// onnxruntime_go prefixes its own words; keep ONNX Runtime's sentence.
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.Contains(msg[i:], "execution provider") {
		msg = msg[i+2:]
	}
	return msg
}

func (e *EPError) Unwrap() error { return e.Err }

// Spin-waiting: ONNX Runtime's intra-op threads spin between the operators of a run instead of
// sleeping. On an otherwise idle machine that is faster — a q4 Qwen3-width decoder on 2 cores
// decoded 98–101 tokens/s spinning and 80–87 not (tools/spinidle) — but on a busy one the
// spinning threads take the cores a working thread needs (45 vs 51–57 tokens/s with two other
// busy processes; 18 vs 55 at load 19). So a session spins unless the machine is busy when it
// is made, and stops spinning at the end of every run (session.force_spinning_stop): without
// that, its threads spin on for a while after each run — 32 ms of CPU per idle pause — which
// between replies only drains the laptop's battery.
const (
	spinKey     = eps.SpinKey
	spinStopKey = "session.force_spinning_stop"
	// busyShare is the share of the machine's CPU time, used by anyone, above which sessions do
	// not spin.
	busyShare = 0.5
)

// spinProbe keeps spinDefault's last answer for spinProbeFor, so that the sessions of one
// load (a decoder-pipeline bundle opens four) share one 150 ms probe.
var spinProbe struct {
	sync.Mutex
	at   time.Time
	spin string
}

const spinProbeFor = 10 * time.Second

// spinDefault is the spinning a session gets when its route does not choose: "1" unless the
// machine is busy.
func spinDefault() string {
	spinProbe.Lock()
	defer spinProbe.Unlock()
	if spinProbe.spin != "" && time.Since(spinProbe.at) < spinProbeFor {
		return spinProbe.spin
	}
	spin := "1"
	if busy, ok := host.CPUBusy(150 * time.Millisecond); ok && busy > busyShare {
		slog.Info("the machine is busy: ONNX Runtime threads will not spin-wait", "cpu_busy", fmt.Sprintf("%.0f%%", 100*busy))
		spin = "0"
	}
	spinProbe.at, spinProbe.spin = time.Now(), spin
	return spin
}

// SessionConfig is the ONNX Runtime session config entries ("session.*") a CPU session of
// the app gets for the route's options opts: spinning as the app decides it now (see
// spinDefault) and stopped at the end of every run. Benchmarks give their peers the same.
func SessionConfig(opts map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range withSessionDefaults(opts) {
		if strings.HasPrefix(k, "session.") {
			out[k] = v
		}
	}
	return out
}

// withSessionDefaults returns opts with the session defaults filled in where opts has no
// value: spinning (spinDefault) and stopping it when a run ends.
func withSessionDefaults(opts map[string]string) map[string]string {
	out := map[string]string{spinStopKey: "1"}
	if _, set := opts[spinKey]; !set {
		out[spinKey] = spinDefault()
	}
	for k, v := range opts {
		out[k] = v
	}
	return out
}
