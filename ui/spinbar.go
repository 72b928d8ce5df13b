package ui

import "fyne.io/fyne/v2/widget"

// runBar shows and runs an infinite progress bar, or stops and hides it. The order matters:
// Fyne 2.7.1's ProgressBarInfinite.Hide clears the bar's running flag without stopping its
// animation, after which Stop does nothing, so a bar hidden first goes on animating unseen
// and redraws the whole window every frame (~60% of a core under Xvfb, measured with
// tools/idlecpu after a Test in the settings).
func runBar(bar *widget.ProgressBarInfinite, on bool) {
	if on {
		bar.Show()
		bar.Start()
		return
	}
	bar.Stop()
	bar.Hide()
}
