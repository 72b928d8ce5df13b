package pdftext

import (
	"fmt"
	"strings"
	"testing"
)

// type3Labels is a Type3 font as Matplotlib's PDF backend embeds DejaVu Sans: glyphs
// named by their letters in a glyph space of 1/1000, their DejaVu widths; "m" 974 units
// wide makes its em 1.623 of the font size (type3Em), as pdftotext guesses it too.
func type3Labels() string {
	glyphs := []struct {
		c string
		w int
	}{{".", 318}, {"C", 698}, {"I", 295}, {"N", 748}, {"O", 787}, {"T", 611}, {"W", 1000}, {"a", 613}, {"e", 615}, {"i", 278},
		{"l", 278}, {"m", 974}, {"o", 612}, {"r", 411}, {"s", 521}, {"u", 634}, {"y", 592}}
	var w, names strings.Builder
	for c := '.'; c <= 'z'; c++ {
		width, name := 0, ""
		for _, g := range glyphs {
			if g.c == string(c) {
				width, name = g.w, "/"+g.c
			}
		}
		if name == "" {
			name = fmt.Sprintf("/g%d", c)
		}
		fmt.Fprintf(&w, "%d ", width)
		names.WriteString(name)
	}
	return "<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 0.001 0 0] /FontBBox [-1021 -463 1793 1232] /CharProcs << >>" +
		" /FirstChar 46 /LastChar 122 /Widths [" + w.String() + "] /Encoding << /Differences [46 " + names.String() + "] >> >>"
}

// TestOverdrawnStrings: strings drawn back over the one before on (nearly) its baseline,
// each in a text object of its own (Matplotlib's point labels), stay whole, in the order
// drawn (python-periodictable-doc's density_plot.pdf: "OIsr" for "Os" "Ir", "CNoCi u" for
// "Co" "Ni" "Cu"; pdftotext: "OsIr", "CoNiCu"). Text that goes back less keeps its order
// by x.
func TestOverdrawnStrings(t *testing.T) {
	label := func(x, y float64, s string) string {
		return fmt.Sprintf("BT /F1 10 Tf %g %g Td (%s) Tj ET ", x, y, s)
	}
	tests := []struct{ name, content, want string }{
		{"a label drawn half an em back over the one before, lower",
			label(475.53, 463.77, "Os") + label(480.6, 461.11, "Ir"),
			"OsIr"},
		{"three labels, each over the one before",
			label(226.96, 221.25, "Co") + label(232.04, 221.29, "Ni") + label(237.11, 222.32, "Cu"),
			"CoNiCu"},
		{"a label over the one before, then one after both",
			label(100, 300, "Os") + label(105.07, 300, "Ir") + label(113, 300, "Ta"),
			"OsIrTa"},
		{"a glyph kerned back into the one before reads in its place by x",
			"BT /F1 10 Tf 100 300 Td [(To) 200 (y)] TJ ET",
			"Toy"},
		{"a glyph drawn back before the last one but not into the one before reads in its place by x",
			"BT /F1 10 Tf 100 300 Td [(W) -200 (a)] TJ ET BT /F1 10 Tf 111 300 Td (r) Tj ET",
			"Wra"},
		{"a period drawn back into the letters before keeps its place by x",
			label(100, 300, "al") + label(105.6, 300, "."),
			"a.l"},
		{"a smaller script drawn back over a script keeps its place by x",
			label(100, 300, "Om") + "BT /F1 7 Tf 116 303 Td (Ne) Tj ET BT /F1 7 Tf 115.5 297 Td (i) Tj ET",
			"OmiNe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAs(t, tt.name, pdfWith(type3Labels(), "", tt.content), tt.want)
		})
	}
}
