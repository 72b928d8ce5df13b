package pdftext

import "slices"

// ocrSizes is how many font sizes, within ocrSizeSpread of the line's, an OCR layer's line
// sets its words in at least: the engine sizes each word to the box it found (olmocr's
// ff518b12…: 28, 29, 30, 31 and 32 units on one line), where a typeset line, a listing's
// or a table's row, keeps one size for its text.
const (
	ocrSizes      = 3
	ocrSizeSpread = 0.25
)

// ocrSized says whether l's words are set in ocrSizes sizes or more, near the line's size
// (scripts and a drop cap aside): the lines of an OCR layer.
func ocrSized(l *line) bool {
	var sizes []float32
	for _, g := range l.g {
		if g.space || g.size < (1-ocrSizeSpread)*l.size {
			continue
		}
		if !slices.ContainsFunc(sizes, func(s float32) bool { return abs(s-g.size) < 0.01*l.size }) {
			if sizes = append(sizes, g.size); len(sizes) >= ocrSizes {
				return true
			}
		}
	}
	return false
}
