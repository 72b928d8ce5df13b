package reply

import (
	"fmt"
	"strings"
)

// Progress is how far a model's load has gone. Every load reads the tokenizer first (Step
// StepTokenizer) and ends with ONNX Runtime creating its session (StepLoading), which gives
// no progress of its own. The first load of a model prepares an optimized copy of its graph
// for this PC in between (read, rewritten, its weights written, checked on a short run),
// which takes seconds to a minute. Fraction is the share of the preparation done, from 0 to
// 1: it never goes back, is 0 while the tokenizer is read and 1 once loading starts.
//
// A load with the 8-bit KV cache calibrates it on its first use, after the preparation and
// before StepLoading (StepCalibrating): a float32 run over a calibration text, then the int8
// copy written. Its Fraction is the share of the calibration done, again from 0 to 1. A load
// with 8-bit prompts writes their 8-bit copy of the weights on its first use, before
// StepLoading too (StepPrompts), with the share of the weights written.
type Progress struct {
	Step     string  `json:"step"`
	Fraction float64 `json:"fraction"`
}

// The steps of a load, in order (a cached copy goes from StepTokenizer to StepLoading).
const (
	StepTokenizer = "tokenizer" // the tokenizer and chat template are read
	StepReading   = "reading"   // the graph
	StepRewriting = "rewriting" // the optimized copy's graph
	StepWriting   = "writing"   // the weights beside the copy
	StepVerifying = "verifying" // a short run of the copy against the graph
	// StepCalibrating: the 8-bit KV cache's first load runs the copy over a calibration
	// text and writes the int8 copy.
	StepCalibrating = "calibrating"
	// StepPrompts: the 8-bit prompts' first load writes the 8-bit copy of the weights.
	StepPrompts = "prompts"
	StepLoading = "loading" // ONNX Runtime creates the session
)

// Percent is Fraction in whole percent, 0 to 100.
func (p Progress) Percent() int { return int(min(max(p.Fraction, 0), 1)*100 + 1e-9) }

// The words of a load's steps: the full sentence (Label) and the few a narrow place shows
// (ShortStatus). Both are built from these, so that ShortStatus knows every Label.
const (
	tokenizerWords   = "reading the tokenizer"
	loadingWords     = "starting ONNX Runtime"
	preparingLong    = "Preparing this model for your PC: "
	preparingShort   = "preparing for this PC "
	calibratingLong  = "Preparing the 8-bit cache: "
	calibratingShort = "preparing the 8-bit cache "
	promptsLong      = "Preparing 8-bit prompts: "
	promptsShort     = "preparing 8-bit prompts "
	loadingPrefix    = "Loading the model for the "
)

// Label says it for people. loading names what the caller loads the model for ("Loading the
// model for the CPU…"); the two steps of every load follow it ("Loading the model for the
// CPU: starting ONNX Runtime (step 2 of 2)"), the preparation has its own words ("Preparing
// this model for your PC: 45%"), and so has the 8-bit cache's calibration ("Preparing the
// 8-bit cache: 60%").
func (p Progress) Label(loading string) string {
	what := strings.TrimSuffix(loading, "…")
	switch p.Step {
	case StepTokenizer:
		return what + ": " + tokenizerWords + " (step 1 of 2)"
	case StepLoading:
		return what + ": " + loadingWords + " (step 2 of 2)"
	case StepCalibrating:
		return fmt.Sprintf("%s%d%%", calibratingLong, p.Percent())
	case StepPrompts:
		return fmt.Sprintf("%s%d%%", promptsLong, p.Percent())
	}
	return fmt.Sprintf("%s%d%%", preparingLong, p.Percent())
}

// Short is the step in a few words, for a place with little room such as the chat's header:
// "reading the tokenizer (1 of 2)", "starting ONNX Runtime (2 of 2)", "preparing for this PC
// 45%".
func (p Progress) Short() string {
	switch p.Step {
	case StepTokenizer:
		return tokenizerWords + " (1 of 2)"
	case StepLoading:
		return loadingWords + " (2 of 2)"
	case StepCalibrating:
		return fmt.Sprintf("%s%d%%", calibratingShort, p.Percent())
	case StepPrompts:
		return fmt.Sprintf("%s%d%%", promptsShort, p.Percent())
	}
	return fmt.Sprintf("%s%d%%", preparingShort, p.Percent())
}

// ShortStatus is a load's status line in a few words: a Label becomes its Progress's Short,
// "Loading the model for the CPU…" becomes "loading for the CPU"; other words come back as
// they are.
func ShortStatus(status string) string {
	status = strings.TrimSpace(status)
	switch {
	case strings.HasSuffix(status, ": "+tokenizerWords+" (step 1 of 2)"):
		return Progress{Step: StepTokenizer}.Short()
	case strings.HasSuffix(status, ": "+loadingWords+" (step 2 of 2)"):
		return Progress{Step: StepLoading, Fraction: 1}.Short()
	case strings.HasPrefix(status, preparingLong):
		return percentWords(status, preparingLong, preparingShort)
	case strings.HasPrefix(status, calibratingLong):
		return percentWords(status, calibratingLong, calibratingShort)
	case strings.HasPrefix(status, promptsLong):
		return percentWords(status, promptsLong, promptsShort)
	case strings.HasPrefix(status, loadingPrefix) && strings.HasSuffix(status, "…"):
		return "loading for the " + strings.TrimSuffix(strings.TrimPrefix(status, loadingPrefix), "…")
	}
	return status
}

// percentWords turns a percentage sentence that starts with long ("Preparing …: 45%") into
// short and the same percentage; a status whose percentage cannot be read comes back as it is.
func percentWords(status, long, short string) string {
	var pct int
	if _, err := fmt.Sscanf(strings.TrimPrefix(status, long), "%d%%", &pct); err != nil {
		return status
	}
	return fmt.Sprintf("%s%d%%", short, pct)
}
