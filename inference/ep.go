package inference

import "edgechat/internal/eps"

// EP names an execution provider and its options for one route.
type EP struct {
	// Name is one of eps.Names(): "cpu", "qnn", "dml" or "webgpu".
	Name string
	// Options are passed to the provider (QNN: backend_path, htp_performance_mode…;
	// DirectML: device_id); those named "session.*" are ONNX Runtime session settings.
	Options map[string]string
	// Threads is the CPU intra-op thread count; 0 means the number of physical cores.
	Threads int
}

// Label is how the EP is shown to a person ("CPU", "QNN", …).
func (e EP) Label() string { return eps.Label(e.Name) }
