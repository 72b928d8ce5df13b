package eps

// The power modes a local route runs in (the setting power.mode): PowerAuto follows the
// machine — battery or energy saver mean PowerSaver, AC power PowerPerformance — and the other
// two pin a mode.
const (
	PowerAuto        = "auto"
	PowerPerformance = "performance"
	PowerSaver       = "saver"
)

// PowerModes lists the power.mode values, in the order the settings pane offers them.
var PowerModes = []string{PowerAuto, PowerPerformance, PowerSaver}

// PowerModeLabel is how a person sees a power mode.
func PowerModeLabel(mode string) string {
	switch mode {
	case PowerPerformance:
		return "Full speed"
	case PowerSaver:
		return "Battery saver"
	case PowerAuto, "":
		return "Automatic"
	}
	return mode
}

// Option keys the power modes set.
const (
	// SpinKey lets ONNX Runtime's intra-op threads spin-wait between operators ("1") or not.
	SpinKey = "session.intra_op.allow_spinning"
	// HTPModeKey is QNN's HTP performance mode.
	HTPModeKey = "htp_performance_mode"
)

// HTPModes are the values QNN takes for htp_performance_mode, fastest first.
var HTPModes = []string{"burst", "sustained_high_performance", "high_performance", "balanced",
	"low_balanced", "high_power_saver", "power_saver", "low_power_saver", "extreme_power_saver", "default"}

// SaverHTPMode is QNN's htp_performance_mode in battery saver mode unless the user chooses
// another: "balanced" keeps replies fluent at a fraction of "burst"'s power.
const SaverHTPMode = "balanced"

// SaverOptions returns a route's provider options for battery saver mode, as a new map:
// ONNX Runtime's threads do not spin-wait, and a QNN route's HTP runs at htpMode
// (SaverHTPMode when ""), whatever the route asks for on AC power.
func SaverOptions(name string, opts map[string]string, htpMode string) map[string]string {
	out := Merge(opts, map[string]string{SpinKey: "0"})
	if p, _ := Lookup(name); p.Name == "qnn" {
		if htpMode == "" {
			htpMode = SaverHTPMode
		}
		out[HTPModeKey] = htpMode
	}
	return out
}
