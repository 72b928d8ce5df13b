package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// A widget.Button has no Truncation (Fyne 2.7), and its minimum width is its text's: a long
// model header squeezed the chat's title to nothing. The header's text is cut to
// modelHeaderWidth with an ellipsis; the whole of it is the button's tip.

// modelHeaderWidth is the widest the chat header's model text is drawn, in Fyne units.
const modelHeaderWidth float32 = 340

// fitText is s cut at the end, with "…", to be at most max wide in the theme's text size and
// style; s itself when it fits. The second result says whether it was cut.
func fitText(s string, max float32, style fyne.TextStyle) (string, bool) {
	size := theme.TextSize()
	if fyne.MeasureText(s, size, style).Width <= max {
		return s, false
	}
	r := []rune(s)
	lo, hi := 0, len(r) // the longest prefix that fits, with the ellipsis, is r[:lo]
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fyne.MeasureText(string(r[:mid])+"…", size, style).Width <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(r[:lo]) + "…", true
}
