package pdftext

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// rotated is a text matrix whose text runs at deg degrees, its glyphs upright to it, at
// size 10 from (x, y).
func rotated(deg, x, y float64) string {
	c, s := math.Cos(deg*math.Pi/180), math.Sin(deg*math.Pi/180)
	return fmt.Sprintf("%.4f %.4f %.4f %.4f %.2f %.2f Tm", 10*c, 10*s, -10*s, 10*c, x, y)
}

// TestSlantedText: text that runs at a slant reads along its own baseline, a direction's
// lines together after the page's upright text. Turned to the nearest axis, as it was (and
// as pdftotext reads it), each glyph drifted off its neighbours' baseline and words came
// apart into letters on lines of their own (pdfium's split_streams.pdf: "Test 1" … "Test
// 19" set around a circle read "T" / "est" / "Te" / "st 1"; pdf.js's issue1905.pdf, a
// chart's dates at 45°: "Ma" / "y 1" / "2"). A turn of a few degrees stays with its axis.
func TestSlantedText(t *testing.T) {
	circle := ""
	for i := range 8 {
		deg := -25 - 40*float64(i) // none along an axis
		circle += fmt.Sprintf("BT /F1 1 Tf %s (Test %d) Tj ET ", rotated(deg, 300+60*math.Cos(deg*math.Pi/180), 400+60*math.Sin(deg*math.Pi/180)), i+1)
	}
	for _, c := range []struct{ name, content, want string }{
		{"a word at 30°", "BT /F1 1 Tf " + rotated(30, 100, 100) + " (Test 1) Tj ET", "Test 1"},
		{"glyph by glyph", "BT /F1 1 Tf " + rotated(-40, 100, 500) + " (M) Tj 0.5 0 Td (a) Tj 0.5 0 Td (y) Tj 1 0 Td (1) Tj 0.5 0 Td (2) Tj ET", "May 12"},
		{"words around a circle", circle, "Test 1\n\nTest 2\n\nTest 3\n\nTest 4\n\nTest 5\n\nTest 6\n\nTest 7\n\nTest 8"},
		{"a chart's labels at 45°, after the upright text",
			"BT /F1 1 Tf " + rotated(45, 100, 100) + " (May 12) Tj ET BT /F1 1 Tf " + rotated(45, 130, 100) + " (Jun 12) Tj ET BT /F1 10 Tf 72 700 Td (Downloads per week) Tj ET",
			"Downloads per week\n\nMay 12\n\nJun 12"},
		{"sheared", "BT /F1 1 Tf 14 -7 7 7 100 500 Tm (Lorem ipsum dolor) Tj ET", "Lorem ipsum dolor"},
		{"two degrees stay upright",
			"BT /F1 10 Tf 72 700 Td (Upright) Tj ET BT /F1 1 Tf " + rotated(2, 110, 700) + " (text) Tj ET", "Upright text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := pagesText(t, pdfWith(simpleFont(""), "", c.content))
			if err != nil {
				t.Fatal(err)
			}
			if got = strings.TrimSpace(got); got != c.want {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}
