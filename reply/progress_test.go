package reply

import "testing"

// Every Label a load sends has its few words, and the long sentence stays as it was.
func TestProgressShortStatus(t *testing.T) {
	const loading = "Loading the model for the CPU…"
	for _, tc := range []struct {
		p           Progress
		label, want string
	}{
		{Progress{Step: StepTokenizer}, "Loading the model for the CPU: reading the tokenizer (step 1 of 2)", "reading the tokenizer (1 of 2)"},
		{Progress{Step: StepReading}, "Preparing this model for your PC: 0%", "preparing for this PC 0%"},
		{Progress{Step: StepVerifying, Fraction: 0.45}, "Preparing this model for your PC: 45%", "preparing for this PC 45%"},
		{Progress{Step: StepVerifying, Fraction: 1}, "Preparing this model for your PC: 100%", "preparing for this PC 100%"},
		{Progress{Step: StepCalibrating, Fraction: 0.6}, "Preparing the 8-bit cache: 60%", "preparing the 8-bit cache 60%"},
		{Progress{Step: StepPrompts, Fraction: 0.25}, "Preparing 8-bit prompts: 25%", "preparing 8-bit prompts 25%"},
		{Progress{Step: StepLoading, Fraction: 1}, "Loading the model for the CPU: starting ONNX Runtime (step 2 of 2)", "starting ONNX Runtime (2 of 2)"},
	} {
		if got := tc.p.Label(loading); got != tc.label {
			t.Errorf("%+v: Label %q, want %q", tc.p, got, tc.label)
		}
		if got := tc.p.Short(); got != tc.want {
			t.Errorf("%+v: Short %q, want %q", tc.p, got, tc.want)
		}
		if got := ShortStatus(tc.label); got != tc.want {
			t.Errorf("ShortStatus(%q) = %q, want %q", tc.label, got, tc.want)
		}
	}
	for in, want := range map[string]string{
		loading:                            "loading for the CPU",
		"Loading the model for the NPU…":   "loading for the NPU",
		"Preparing this model for your PC": "Preparing this model for your PC",
		"Warming up the NPU":               "Warming up the NPU",
		"":                                 "",
	} {
		if got := ShortStatus(in); got != want {
			t.Errorf("ShortStatus(%q) = %q, want %q", in, got, want)
		}
	}
}
