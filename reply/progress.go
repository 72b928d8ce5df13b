package reply

import "fmt"

// Progress is how far a model's load has gone. The first load of a model prepares an
// optimized copy of its graph for this PC (read, rewritten, its weights written, checked on
// a short run), which takes seconds to a minute; then ONNX Runtime loads it (Step
// StepLoading). Fraction is the share of the preparation done, from 0 to 1: it never goes
// back and reaches 1 before loading starts.
type Progress struct {
	Step     string  `json:"step"`
	Fraction float64 `json:"fraction"`
}

// The steps of a load, in order (a cached copy goes straight to StepLoading).
const (
	StepReading   = "reading"   // the graph
	StepRewriting = "rewriting" // the optimized copy's graph
	StepWriting   = "writing"   // the weights beside the copy
	StepVerifying = "verifying" // a short run of the copy against the graph
	StepLoading   = "loading"   // ONNX Runtime loads the copy
)

// Percent is Fraction in whole percent, 0 to 100.
func (p Progress) Percent() int { return int(min(max(p.Fraction, 0), 1)*100 + 1e-9) }

// Label says it for people: "Preparing this model for your PC: 45%", or loading for
// StepLoading ("Loading the model…"; loading names what the caller loads it for).
func (p Progress) Label(loading string) string {
	if p.Step == StepLoading {
		return loading
	}
	return fmt.Sprintf("Preparing this model for your PC: %d%%", p.Percent())
}
