package ui

import (
	"fyne.io/fyne/v2/widget"

	"edgechat/config"
)

// kvCacheChoices are the KV cache setting's options: the value config stores and what the
// pane shows for it, in the order shown.
var kvCacheChoices = []struct{ value, label string }{
	{config.KVCacheAuto, "Automatic (8-bit where EdgeChat's kernels run)"},
	{config.KVCache32, "32-bit (exact)"},
	{config.KVCache8, "8-bit"},
}

// kvCacheHint says what the choice does now: the per-row 8-bit cache is faster than the 32-bit
// one at every length where the kernels run (28-layer Qwen3-0.6B-sized model: decoding 1.57×
// llama.cpp's speed against 1.23–1.31×, measured on x86-64; Arm64's speed is not measured yet,
// only its outputs under emulation) and a quarter its size.
const kvCacheHint = "8-bit is a quarter the memory where EdgeChat's attention kernels run (x86-64 with AVX2, Arm64) and faster at every length (measured on x86-64); replies can differ slightly from 32-bit's. Automatic is 32-bit elsewhere."

// kvCacheSelect is the KV cache picker: it shows the label of the kv_cache field's value and
// writes the value of the label picked (nothing is selected for a value config does not
// know: the field's error says why).
func (v *SettingsView) kvCacheSelect() *widget.Select {
	field := v.vm.Fields["kv_cache"]
	labels := make([]string, len(kvCacheChoices))
	for i, c := range kvCacheChoices {
		labels[i] = c.label
	}
	sel := widget.NewSelect(labels, func(label string) {
		for _, c := range kvCacheChoices {
			if c.label == label && get[string](field) != c.value {
				_ = field.Set(c.value)
			}
		}
	})
	v.KVCache = sel
	v.on(field, func() {
		value := get[string](field)
		for _, c := range kvCacheChoices {
			if c.value == value {
				if sel.Selected != c.label {
					sel.SetSelected(c.label)
				}
				return
			}
		}
		sel.ClearSelected()
	})
	return sel
}
