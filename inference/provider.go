package inference

import (
	"fmt"
	"strconv"
	"strings"

	ort "github.com/yalue/onnxruntime_go"
)

// EP names an execution provider and its options for one route.
type EP struct {
	// Name is "cpu", "qnn", "dml" or "webgpu".
	Name string
	// Options are passed to the provider (QNN: backend_path, htp_performance_mode…;
	// DirectML: device_id).
	Options map[string]string
	// Threads is the CPU intra-op thread count; 0 means the number of physical cores.
	Threads int
}

// EPNames lists the execution providers EdgeChat can ask ONNX Runtime for.
var EPNames = []string{"cpu", "qnn", "dml", "webgpu"}

// Label is how the EP is shown to a person ("CPU", "QNN", …).
func (e EP) Label() string {
	switch strings.ToLower(e.Name) {
	case "", "cpu":
		return "CPU"
	case "qnn":
		return "QNN"
	case "dml":
		return "DirectML"
	case "webgpu":
		return "WebGPU"
	}
	return e.Name
}

// qnnDefaults are the QNN options used unless the route overrides them.
var qnnDefaults = map[string]string{
	"backend_path":         "QnnHtp.dll",
	"htp_performance_mode": "burst",
}

// sessionDefaults are ONNX Runtime session settings used unless the route overrides them.
// Intra-op threads that spin-wait burn the battery between replies, and on a loaded machine
// they take the core a working thread needs: measured on 2 cores (tools/int4bench --only
// spin), a q4 Qwen3-width decoder decodes 3× faster with spinning off.
var sessionDefaults = map[string]string{"session.intra_op.allow_spinning": "0"}

// withDefaults returns opts with the defaults filled in where opts has no value.
func withDefaults(opts, defaults map[string]string) map[string]string {
	out := make(map[string]string, len(opts)+len(defaults))
	for k, v := range defaults {
		out[k] = v
	}
	for k, v := range opts {
		out[k] = v
	}
	return out
}

// newSessionOptions builds ONNX Runtime session options for ep. The error of a provider the
// loaded ONNX Runtime does not have carries ONNX Runtime's own words (e.g. "QNN execution
// provider is not supported in this build"), which the router reports as the fallback reason.
func newSessionOptions(ep EP) (*ort.SessionOptions, error) {
	o, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("create session options: %w", err)
	}
	threads := ep.Threads
	if threads <= 0 {
		threads = PhysicalCores()
	}
	if err := o.SetIntraOpNumThreads(threads); err != nil {
		o.Destroy()
		return nil, fmt.Errorf("set %d threads: %w", threads, err)
	}
	// Options named "session.*" are ONNX Runtime session settings, whatever the provider
	// (e.g. session.disable_prepacking=1 trades speed for memory); the rest go to the provider.
	provider := map[string]string{}
	for k, v := range withDefaults(ep.Options, sessionDefaults) {
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

// appendProvider adds ep's provider to o (nothing for the CPU, which is always there).
func appendProvider(o *ort.SessionOptions, ep EP) error {
	var err error
	switch strings.ToLower(ep.Name) {
	case "", "cpu":
		return nil
	case "qnn":
		err = o.AppendExecutionProvider("QNN", withDefaults(ep.Options, qnnDefaults))
	case "dml":
		id := 0
		if s := ep.Options["device_id"]; s != "" {
			if id, err = strconv.Atoi(s); err != nil {
				return fmt.Errorf("DirectML device_id %q is not a number", s)
			}
		}
		err = o.AppendExecutionProviderDirectML(id)
	case "webgpu":
		err = o.AppendExecutionProvider("WebGPU", ep.Options)
	default:
		return fmt.Errorf("unknown execution provider %q: choose one of %s", ep.Name, strings.Join(EPNames, ", "))
	}
	if err != nil {
		return &EPError{EP: ep.Label(), Err: err}
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
