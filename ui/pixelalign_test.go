package ui

import (
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

// Every run of text starts on a whole device pixel, so the painter draws it at its own size
// (a run after a bold or code run started between pixels and was drawn lighter), at the
// display scales Windows offers.
func TestRunsStartOnWholePixels(t *testing.T) {
	test.NewTempApp(t)
	runs := 0
	for _, scale := range []float32{1, 1.25, 1.5} {
		for _, tc := range mdCases {
			wt := newWrapText(markdownSegments(tc.src))
			w := test.NewTempWindow(t, wt)
			w.Canvas().(test.WindowlessCanvas).SetScale(scale)
			for width := float32(150); width <= 480; width += 33 {
				w.Resize(fyne.NewSize(width, 900))
				for _, o := range test.WidgetRenderer(wt.rt).Objects() {
					txt, ok := o.(*canvas.Text)
					if !ok || txt.Text == "" {
						continue
					}
					runs++
					if px := txt.Position().X * scale; math.Abs(float64(px)-math.Round(float64(px))) > 0.01 {
						t.Errorf("%s at scale %.2f, width %.0f: %q starts at %.3f px", tc.name, scale, width, txt.Text, px)
					}
				}
			}
		}
	}
	if runs == 0 {
		t.Fatal("no text drawn")
	}
}
